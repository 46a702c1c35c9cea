$VMEMSCOPE fit ../../examples/gated_matmul.json --buffers --vmem-limit-bytes 8388608 --top 3 --all
