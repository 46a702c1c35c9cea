$VMEMSCOPE check unbalanced.hlo
