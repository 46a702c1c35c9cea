$VMEMSCOPE fit body_value_widen.mlir --target v5e --param g0=1024 --vmem-limit-bytes 12582912
