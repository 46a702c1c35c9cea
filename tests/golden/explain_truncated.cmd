$VMEMSCOPE explain explain_truncated.log
