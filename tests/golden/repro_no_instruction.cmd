$VMEMSCOPE repro kernel.hlo
