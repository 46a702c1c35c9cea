$VMEMSCOPE check program_joins.hlo --timeline --no-env --summary
