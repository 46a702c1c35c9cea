grep -v '^#' $CORPUS/errors/18_ptxla7962_vmem_cumsum_29M_of_16M.txt | $VMEMSCOPE explain
