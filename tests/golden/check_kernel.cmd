$VMEMSCOPE check kernel.hlo --target 7x
