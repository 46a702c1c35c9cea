grep -v '^#' $CORPUS/errors/17_ptxla7942_vmem_spill_slots_29M_of_16M.txt | $VMEMSCOPE explain
