$VMEMSCOPE check empty.hlo
