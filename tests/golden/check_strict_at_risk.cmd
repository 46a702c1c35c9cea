$VMEMSCOPE check body_value_heads.mlir --vmem-limit-bytes 10485760 --strict
