$VMEMSCOPE check body_value_matmul.mlirbc --target v5e
