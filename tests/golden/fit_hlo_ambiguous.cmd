$VMEMSCOPE fit two_kernels.hlo
