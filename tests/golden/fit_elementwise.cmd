$VMEMSCOPE fit fit_elementwise.json --top 5
