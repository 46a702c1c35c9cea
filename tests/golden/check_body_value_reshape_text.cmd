$VMEMSCOPE check body_value_reshape.mlir --target v2
