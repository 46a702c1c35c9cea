$VMEMSCOPE explain explain_clean.log explain_truncated.log
