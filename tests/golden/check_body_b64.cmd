$VMEMSCOPE check body_prefetch_sync.b64
