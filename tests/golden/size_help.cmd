$VMEMSCOPE size --help
