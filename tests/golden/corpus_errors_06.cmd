grep -v '^#' $CORPUS/errors/06_ringattention11_v4_vmem_59M_of_16M.txt | $VMEMSCOPE explain
