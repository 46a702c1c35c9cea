$VMEMSCOPE repro two_kernels.hlo --instruction copy_kernel.6 --json | grep -v "\"module\""
