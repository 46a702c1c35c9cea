$VMEMSCOPE check ../../examples/gated_matmul.json --param bm=100
