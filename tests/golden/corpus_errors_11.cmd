grep -v '^#' $CORPUS/errors/11_transformers3702_scoped_listing_T1024.txt | $VMEMSCOPE explain
