$VMEMSCOPE explain explain_cut.log.gz
