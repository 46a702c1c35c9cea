$VMEMSCOPE fit body_value_unread.mlir --target v5e --top 2
