$VMEMSCOPE fit fit_padding.json --target v6e --vmem-limit-bytes 8388608 --top 4
