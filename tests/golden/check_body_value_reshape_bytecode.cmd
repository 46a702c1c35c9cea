$VMEMSCOPE check body_value_reshape.mlirbc --target v5e
