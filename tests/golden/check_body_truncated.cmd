$VMEMSCOPE check body_truncated.b64
