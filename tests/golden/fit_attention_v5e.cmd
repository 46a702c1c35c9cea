$VMEMSCOPE fit fit_attention.json --target v5e --top 3
