$VMEMSCOPE check std_ops.hlo --json --no-env | grep -A8 "scoped_model"
