$VMEMSCOPE limits --vmem-limit-bytes lots
