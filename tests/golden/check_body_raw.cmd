$VMEMSCOPE check body_copy_nogrid.mlirbc --json
