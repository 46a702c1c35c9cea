$VMEMSCOPE check --summary kernel.hlo
