$VMEMSCOPE check body_value_unread.mlir --json
