$VMEMSCOPE explain binary.bin
