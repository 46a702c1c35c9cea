$VMEMSCOPE check body_value_widen.mlirbc --target v5e
