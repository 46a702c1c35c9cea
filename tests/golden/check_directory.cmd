$VMEMSCOPE check .
