$VMEMSCOPE fit fit_matmul.json --vmem-limit-bytes 1000000
