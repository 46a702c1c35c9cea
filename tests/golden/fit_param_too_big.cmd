$VMEMSCOPE fit ../../examples/gated_matmul.json --param bm=99999999999999999999
