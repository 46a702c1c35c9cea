$VMEMSCOPE check bad_values.json
