$VMEMSCOPE check program_s1.hlo --json --top 1
