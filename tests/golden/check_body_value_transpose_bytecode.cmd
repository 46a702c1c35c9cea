$VMEMSCOPE check body_value_transpose.mlirbc --target v5e
