$VMEMSCOPE check program_joins.hlo --json --no-env | grep -A12 "\"program\""
