grep -v '^#' $CORPUS/errors/22_jax7822_hbm_aborting_compilation_early.txt | $VMEMSCOPE explain
