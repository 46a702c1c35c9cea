grep -v '^#' $CORPUS/errors/30_openxla_doc_hbm_variants_e1000_e1002_oomdebug.txt | $VMEMSCOPE explain
