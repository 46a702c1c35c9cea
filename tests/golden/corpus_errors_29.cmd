grep -v '^#' $CORPUS/errors/29_openxla_errors_overview_vmem_stack_example.txt | $VMEMSCOPE explain
