$VMEMSCOPE check std_ops.hlo --json --no-env | grep -A6 "scoped_model"
