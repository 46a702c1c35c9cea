$VMEMSCOPE report explain_gated.log | grep -o -e "<h3>[^<]*" -e "vmem_limit_bytes=[0-9]*"
