$VMEMSCOPE check k_modes.mlir --target v6e
