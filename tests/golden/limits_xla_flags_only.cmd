XLA_FLAGS=--xla_tpu_scoped_vmem_limit_kib=65536 $VMEMSCOPE limits
