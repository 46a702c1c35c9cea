$VMEMSCOPE check spec_scalar_whole.json --target v5e
