grep -v '^#' $CORPUS/errors/27_helion2321_tool_estimate_not_xla.txt | $VMEMSCOPE explain
