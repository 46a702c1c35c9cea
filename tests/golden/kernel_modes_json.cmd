$VMEMSCOPE check k_modes.mlir --json --no-env
