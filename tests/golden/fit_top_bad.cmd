$VMEMSCOPE fit fit_matmul.json --top 5x
