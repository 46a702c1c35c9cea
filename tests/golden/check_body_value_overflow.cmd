$VMEMSCOPE check body_value_overflow.mlir --target v5e
