grep -v '^#' $CORPUS/errors/16_trax1343_hbm_1d_tiles_T256_T512_T1024.txt | $VMEMSCOPE explain
