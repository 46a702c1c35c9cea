$VMEMSCOPE check ../../examples/gated_matmul.json --param bn=256
