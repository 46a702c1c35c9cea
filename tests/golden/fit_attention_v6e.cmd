$VMEMSCOPE fit fit_attention.json --target v6e --top 3
