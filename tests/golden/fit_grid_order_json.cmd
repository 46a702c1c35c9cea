$VMEMSCOPE fit ../../examples/gated_matmul.json --target v5e --top 2 --grid-order --vmem-limit-bytes 4194304 --json
