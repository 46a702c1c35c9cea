$VMEMSCOPE check spec_values.json --vmem-limit-bytes 30408704
