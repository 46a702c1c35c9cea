grep -v '^#' $CORPUS/errors/09_easydel166_hbm_oom_listing_v4.txt | $VMEMSCOPE explain
