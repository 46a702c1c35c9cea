grep -v '^#' $CORPUS/errors/12_ptxla2628_smem_should_not_be_possible_v3.txt | $VMEMSCOPE explain
