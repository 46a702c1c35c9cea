$VMEMSCOPE fit ../../examples/gated_matmul.json --explain --top 3
