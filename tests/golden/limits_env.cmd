LIBTPU_INIT_ARGS='--xla_tpu_scoped_vmem_limit_kib=65536 --xla_tpu_scoped_vmem_limit_kib=98304' XLA_FLAGS=--xla_tpu_scoped_vmem_limit_kib=4096 $VMEMSCOPE limits --target v6e
