$VMEMSCOPE check nothing-here.hlo
