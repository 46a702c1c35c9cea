$VMEMSCOPE check xla_dump --summary --top 3
