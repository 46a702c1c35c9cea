$VMEMSCOPE explain xla_dump
