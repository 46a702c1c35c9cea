$VMEMSCOPE check k_missing_transform.mlir
