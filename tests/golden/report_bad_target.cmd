$VMEMSCOPE report two_kernels.hlo --target v9z
