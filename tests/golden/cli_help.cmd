$VMEMSCOPE --help
