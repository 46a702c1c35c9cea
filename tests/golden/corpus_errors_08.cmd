grep -v '^#' $CORPUS/errors/08_tf26893_vmem_please_file_bug.txt | $VMEMSCOPE explain
