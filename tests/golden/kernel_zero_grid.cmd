$VMEMSCOPE check k_zero_grid.mlir
