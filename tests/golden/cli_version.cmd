$VMEMSCOPE --version
