$VMEMSCOPE check ../../examples/gated_matmul.json | $VMEMSCOPE explain
