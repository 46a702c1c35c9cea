cd $CORPUS/mosaic && $VMEMSCOPE check 07_add_kernel_post_layout_tiled_memrefs.mlir
