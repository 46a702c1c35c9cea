cd $CORPUS/mosaic && $VMEMSCOPE check 03_matmul_f32_accumulate_in_output.mlir
