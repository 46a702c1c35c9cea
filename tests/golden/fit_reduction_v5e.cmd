$VMEMSCOPE fit fit_reduction.json --target v5e --top 3
