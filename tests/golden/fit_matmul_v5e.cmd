$VMEMSCOPE fit fit_matmul.json --target v5e --top 5
