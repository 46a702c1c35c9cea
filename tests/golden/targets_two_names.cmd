$VMEMSCOPE targets v5e v6e
