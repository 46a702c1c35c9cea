$VMEMSCOPE limits --flags '--xla_tpu_scoped_vmem_limit_kib=64M'
