$VMEMSCOPE fit fit_matmul.json --json --top 2 --param bm=256,512 --param bk=512 --param bn=128..1024:pow2
