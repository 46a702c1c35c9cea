$VMEMSCOPE check body_version9.mlirbc
