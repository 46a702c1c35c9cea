cd $CORPUS/mosaic && $VMEMSCOPE check 04_matmul_bf16_f32_scratch_parallel.mlir --target 7x --json
