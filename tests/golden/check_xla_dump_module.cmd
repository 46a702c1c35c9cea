$VMEMSCOPE check xla_dump --module jit_step --summary --top 3
