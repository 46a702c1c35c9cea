$VMEMSCOPE report --help
