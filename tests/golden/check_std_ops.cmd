$VMEMSCOPE check std_ops.hlo --summary --no-env
