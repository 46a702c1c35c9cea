$VMEMSCOPE explain explain_over_physical.log
