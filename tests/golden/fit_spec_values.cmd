$VMEMSCOPE fit spec_values.json --top 3
