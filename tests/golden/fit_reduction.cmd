$VMEMSCOPE fit fit_reduction.json --target v6e --top 5
