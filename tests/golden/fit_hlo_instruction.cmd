$VMEMSCOPE fit kernel.hlo --instruction flash_attention_kernel.7 --target 7x --top 3
