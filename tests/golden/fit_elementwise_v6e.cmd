$VMEMSCOPE fit fit_elementwise.json --target v6e --top 3
