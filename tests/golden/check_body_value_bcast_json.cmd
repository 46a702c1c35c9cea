$VMEMSCOPE check body_value_bcast.mlirbc --target v4 --json
