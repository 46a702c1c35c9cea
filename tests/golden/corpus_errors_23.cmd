grep -v '^#' $CORPUS/errors/23_marin_v5p_rpa_scoped_33M_limit_16M.txt | $VMEMSCOPE explain
