$VMEMSCOPE repro kernel.hlo --instruction q
