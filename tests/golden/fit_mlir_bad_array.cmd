$VMEMSCOPE fit fit_mm.mlir --array arg3=f32[2048,2048]
