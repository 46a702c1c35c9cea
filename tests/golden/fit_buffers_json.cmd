$VMEMSCOPE fit fit_matmul.json --target v5e --buffers --vmem-limit-bytes 4194304 --top 2 --json
