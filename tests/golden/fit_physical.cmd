$VMEMSCOPE fit fit_matmul.json --physical --target v5p --top 3 --param bm=2048 --param bk=2048 --param bn=2048
