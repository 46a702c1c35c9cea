$VMEMSCOPE limits --target 7x --flags '--xla_tpu_scoped_vmem_limit_kib=32768' --vmem-limit-bytes 134217728 --json
