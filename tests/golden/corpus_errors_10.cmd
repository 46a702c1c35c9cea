grep -v '^#' $CORPUS/errors/10_lwm60_hbm_oom_v3.txt | $VMEMSCOPE explain
