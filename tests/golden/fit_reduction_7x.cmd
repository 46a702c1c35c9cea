$VMEMSCOPE fit fit_reduction.json --target 7x --top 3
