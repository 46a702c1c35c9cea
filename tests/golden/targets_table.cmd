$VMEMSCOPE targets
