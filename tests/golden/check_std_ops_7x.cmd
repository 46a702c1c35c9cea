$VMEMSCOPE check std_ops.hlo --summary --no-env --target 7x | grep -A7 likely
