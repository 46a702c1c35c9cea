$VMEMSCOPE check body_value_fp8.mlirbc --target v5e
