$VMEMSCOPE check two_kernels.hlo --json --summary --no-env
