$VMEMSCOPE mlir-text body_prefetch_sync.b64
