cd $CORPUS/mosaic && $VMEMSCOPE check 06_all_reduce_any_semaphores_synchronous.mlir
