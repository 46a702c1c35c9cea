$VMEMSCOPE check $CORPUS/mosaic/hlo_mosaic_boolean_constant_tpu_custom_call.stablehlo.mlir --instruction kernel
