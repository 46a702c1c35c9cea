$VMEMSCOPE fit fit_not_plain.mlir
