$VMEMSCOPE explain explain_wrapped.log.gz
