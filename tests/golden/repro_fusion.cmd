$VMEMSCOPE repro kernel.hlo --instruction fusion
