$VMEMSCOPE check body_value_widen.mlir --target v2
