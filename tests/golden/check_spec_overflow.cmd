$VMEMSCOPE check spec_overflow.json
