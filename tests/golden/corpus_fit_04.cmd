cd $CORPUS/mosaic && $VMEMSCOPE fit 04_matmul_bf16_f32_scratch_parallel.mlir --array arg3=bf16[4096,4096] --array arg4=bf16[4096,4096] --array arg5=bf16[4096,4096] --top 3 --json
