grep -v '^#' $CORPUS/errors/26_spill_slots_in_hlo_matmul_16M.txt | $VMEMSCOPE explain
