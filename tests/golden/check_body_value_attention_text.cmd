$VMEMSCOPE check body_value_attention.mlir --target v2
