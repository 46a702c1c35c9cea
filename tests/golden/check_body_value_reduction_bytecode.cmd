$VMEMSCOPE check body_value_reduction.mlirbc --target v5e
