$VMEMSCOPE check body_bad_char.b64
