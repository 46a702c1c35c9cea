$VMEMSCOPE check two_kernels.hlo --summary --bytes
