$VMEMSCOPE explain explain_abbreviated.log
