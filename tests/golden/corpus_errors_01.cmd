grep -v '^#' $CORPUS/errors/01_ptxla9524_vmem_used_32M_of_16M.txt | $VMEMSCOPE explain
