$VMEMSCOPE explain explain_gated.log --kernel ../../examples/gated_matmul.json --json
