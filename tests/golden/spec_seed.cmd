$VMEMSCOPE check ../../examples/gated_matmul.json
