grep -v '^#' $CORPUS/errors/02_jax38988_tpu7x_vmem_65M_of_64M.txt | $VMEMSCOPE explain
