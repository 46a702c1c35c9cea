$VMEMSCOPE fit fit_matmul.json fit_matmul.json
