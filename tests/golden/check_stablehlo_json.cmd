$VMEMSCOPE check jit_model.stablehlo.mlir --json
