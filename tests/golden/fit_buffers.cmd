$VMEMSCOPE fit fit_matmul.json --target v6e --buffers --vmem-limit-bytes 8388608 --top 6
