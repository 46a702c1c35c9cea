$VMEMSCOPE check ../../examples/gated_matmul.json --param bq=256
