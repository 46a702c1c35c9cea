LIBTPU_INIT_ARGS=--xla_tpu_scoped_vmem_limit_kib=32768 $VMEMSCOPE check ../../examples/gated_matmul.json --target v6e
