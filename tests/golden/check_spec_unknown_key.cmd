$VMEMSCOPE check spec_typo.json
