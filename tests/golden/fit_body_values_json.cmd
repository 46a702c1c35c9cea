$VMEMSCOPE fit body_value_attention.mlirbc --top 3 --json
