$VMEMSCOPE explain explain_gzip_nothing.log.gz
