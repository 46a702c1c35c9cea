grep -v '^#' $CORPUS/errors/04_vllm8318_smem_oom_v5e.txt | $VMEMSCOPE explain
