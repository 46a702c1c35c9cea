$VMEMSCOPE size -f binary.bin
