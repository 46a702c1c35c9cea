$VMEMSCOPE check stablehlo_cut.mlir
