$VMEMSCOPE check two_kernels.hlo --summary --top 2
