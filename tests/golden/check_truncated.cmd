$VMEMSCOPE check truncated.hlo
