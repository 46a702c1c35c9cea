$VMEMSCOPE check $CORPUS/mosaic/hlo_mosaic_matmul_tpu_custom_call.stablehlo.mlir --instruction 0
