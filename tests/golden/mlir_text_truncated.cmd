$VMEMSCOPE mlir-text body_truncated.b64
