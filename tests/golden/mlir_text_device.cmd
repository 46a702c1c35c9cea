$VMEMSCOPE mlir-text /dev/null
