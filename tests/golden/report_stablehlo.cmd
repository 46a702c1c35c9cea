$VMEMSCOPE report jit_model.stablehlo.mlir | grep -o -e "<h2>[^<&]*" -e "data-name=\"[^\"]*\" data-bytes=\"[0-9]*\""
