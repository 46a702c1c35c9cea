$VMEMSCOPE fit jit_model.stablehlo.mlir --instruction matmul_kernel --top 3
