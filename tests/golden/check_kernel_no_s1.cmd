$VMEMSCOPE check kernel_no_s1.hlo --target 7x --instruction flash_attention_kernel.7
