$VMEMSCOPE check body_value_heads.mlirbc --target v5e --vmem-limit-bytes 6291456 --json
