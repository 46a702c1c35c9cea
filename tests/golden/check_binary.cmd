$VMEMSCOPE check binary.bin
