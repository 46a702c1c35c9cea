$VMEMSCOPE fit fit_matmul.json --param bq=128
