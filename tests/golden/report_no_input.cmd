$VMEMSCOPE report
