$VMEMSCOPE check two_kernels.hlo --instruction matmul_kernel.5
