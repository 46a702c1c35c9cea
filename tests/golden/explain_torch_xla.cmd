$VMEMSCOPE explain explain_torch_xla.log
