$VMEMSCOPE report std_ops.hlo --no-env | grep -o -e "<h2>[^<&]*" -e "<li><code>[^<]*" -e "data-name=\"[^\"]*\" data-bytes=\"[0-9]*\""
