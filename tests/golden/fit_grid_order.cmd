$VMEMSCOPE fit ../../examples/gated_matmul.json --target v5e --top 3 --grid-order --buffers --vmem-limit-bytes 4194304
