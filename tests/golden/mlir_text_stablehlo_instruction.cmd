$VMEMSCOPE mlir-text jit_model.stablehlo.mlir --instruction copy_kernel
