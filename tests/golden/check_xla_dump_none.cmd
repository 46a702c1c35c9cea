$VMEMSCOPE check xla_dump --module jit_nothing
