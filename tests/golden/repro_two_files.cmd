$VMEMSCOPE repro two_kernels.hlo other.hlo --instruction copy_kernel.6
