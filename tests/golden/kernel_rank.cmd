$VMEMSCOPE check k_rank.mlir
