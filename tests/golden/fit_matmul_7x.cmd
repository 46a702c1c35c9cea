$VMEMSCOPE fit fit_matmul.json --target 7x --top 5
