$VMEMSCOPE check kernel.hlo --json --top 3
