$VMEMSCOPE fit fit_matmul.json --target v6e --top 5
