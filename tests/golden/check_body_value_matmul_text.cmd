$VMEMSCOPE check body_value_matmul.mlir --target v2
