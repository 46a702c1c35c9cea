$VMEMSCOPE check ../../examples/gated_matmul.json --vmem-limit-bytes 30408704
