$VMEMSCOPE fit fit_not_plain.mlir --array arg1=f32[1280,512] --top 2
