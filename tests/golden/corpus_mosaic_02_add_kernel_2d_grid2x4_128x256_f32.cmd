cd $CORPUS/mosaic && $VMEMSCOPE check 02_add_kernel_2d_grid2x4_128x256_f32.mlir
