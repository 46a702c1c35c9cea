$VMEMSCOPE check preopt.hlo
