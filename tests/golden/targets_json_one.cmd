$VMEMSCOPE targets 7x --json
