$VMEMSCOPE check spec_smem_over.json --target v5e
