$VMEMSCOPE check program_s1.hlo --summary --timeline --top 2
