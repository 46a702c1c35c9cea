$VMEMSCOPE mlir-text fit_matmul.json
