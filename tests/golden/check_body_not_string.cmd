$VMEMSCOPE check body_not_string.mlir
