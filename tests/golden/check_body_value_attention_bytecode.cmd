$VMEMSCOPE check body_value_attention.mlirbc --target v5e
