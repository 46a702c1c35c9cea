$VMEMSCOPE check two_kernels.hlo --quiet
