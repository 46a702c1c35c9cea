$VMEMSCOPE fit fit_attention.json --target 7x --top 5
