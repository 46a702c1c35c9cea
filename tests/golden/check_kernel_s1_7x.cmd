$VMEMSCOPE check kernel.hlo --target 7x --instruction flash_attention_kernel.7
