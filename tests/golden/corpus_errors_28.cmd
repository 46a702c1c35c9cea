grep -v '^#' $CORPUS/errors/28_openxla_doc_e1001_old_allocation_would_exceed.txt | $VMEMSCOPE explain
