$VMEMSCOPE check ../../examples/gated_matmul.json --module jit_step
