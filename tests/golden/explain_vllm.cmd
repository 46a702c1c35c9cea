$VMEMSCOPE explain explain_vllm.log
