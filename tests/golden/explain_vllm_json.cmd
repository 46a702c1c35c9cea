$VMEMSCOPE explain --json explain_vllm.log
