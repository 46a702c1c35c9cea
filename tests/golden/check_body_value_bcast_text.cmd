$VMEMSCOPE check body_value_bcast.mlir --target v4
