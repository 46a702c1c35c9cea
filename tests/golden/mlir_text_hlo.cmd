$VMEMSCOPE mlir-text two_kernels.hlo
