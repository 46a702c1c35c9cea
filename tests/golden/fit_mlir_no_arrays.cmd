$VMEMSCOPE fit fit_mm.mlir
