$VMEMSCOPE print preopt.hlo
