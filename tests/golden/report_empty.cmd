$VMEMSCOPE report empty.hlo -o /dev/null
