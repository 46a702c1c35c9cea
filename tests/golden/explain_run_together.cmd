$VMEMSCOPE explain explain_run_together.log
