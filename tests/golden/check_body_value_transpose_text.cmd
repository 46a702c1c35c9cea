$VMEMSCOPE check body_value_transpose.mlir --target v2
