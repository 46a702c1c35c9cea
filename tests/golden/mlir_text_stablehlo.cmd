$VMEMSCOPE mlir-text jit_model.stablehlo.mlir | grep -c "func.func @"
