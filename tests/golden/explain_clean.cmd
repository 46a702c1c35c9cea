$VMEMSCOPE explain explain_clean.log
