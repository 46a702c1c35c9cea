$VMEMSCOPE check body_value_heads.mlir --target v5e --vmem-limit-bytes 5242880
