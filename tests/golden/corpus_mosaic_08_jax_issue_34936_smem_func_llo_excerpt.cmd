cd $CORPUS/mosaic && $VMEMSCOPE check 08_jax_issue_34936_smem_func_llo_excerpt.mlir
