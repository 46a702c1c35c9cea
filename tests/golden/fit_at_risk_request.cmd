$VMEMSCOPE fit body_value_heads.mlir --target v5e --vmem-limit-bytes 10485760 --param g0=512
