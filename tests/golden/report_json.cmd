$VMEMSCOPE report two_kernels.hlo --json
