$VMEMSCOPE check fit_matmul.json --color=always | grep verdict | od -c | head -2
