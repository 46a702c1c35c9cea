$VMEMSCOPE fit fit_mm.mlir --array arg3=bf16[2048,2048] --array arg4=bf16[2048,2048] --array arg5=bf16[2048,2048] --top 5 --target v6e --flops 17179869184
