$VMEMSCOPE mlir-text two_kernels.hlo --json | head -8
