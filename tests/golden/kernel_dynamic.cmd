$VMEMSCOPE check k_dynamic.mlir
