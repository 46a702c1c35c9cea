$VMEMSCOPE fit fit_matmul.json --target v5e --color --buffers --vmem-limit-bytes 4194304 --param bm=512 --param bk=2048 --param bn=128,256 --top 3 --json
