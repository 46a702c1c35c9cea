$VMEMSCOPE check two_kernels.hlo --color=blue
