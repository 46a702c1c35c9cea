cd $CORPUS/mosaic && $VMEMSCOPE check 01_add_kernel_1d_grid8.mlir
