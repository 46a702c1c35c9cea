$VMEMSCOPE check two_kernels.hlo --instruction nope
