$VMEMSCOPE explain explain_damaged.log.gz
