$VMEMSCOPE check jit_model.stablehlo.mlir --instruction 3
