$VMEMSCOPE check body_value_reduction.mlir --target v2
