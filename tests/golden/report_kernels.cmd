$VMEMSCOPE report two_kernels.hlo | grep -o -e "<title>[^<]*" -e "data-name=\"[^\"]*\" data-bytes=\"[0-9]*\"" -e "class=\"bar[a-z ]*\""
