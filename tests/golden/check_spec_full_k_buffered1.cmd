$VMEMSCOPE check spec_full_k.json
