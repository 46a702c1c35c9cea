$VMEMSCOPE fit fit_elementwise.json --target 7x --top 3
