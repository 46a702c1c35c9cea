$VMEMSCOPE fit fit_matmul.json --target v5e --color --vmem-limit-bytes 4194304 --top 4
