$VMEMSCOPE check $CORPUS/mosaic/hlo_mosaic_semaphore_dma_tpu_custom_call.stablehlo.mlir
