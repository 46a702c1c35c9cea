$VMEMSCOPE check two_kernels.hlo --json --top 1
