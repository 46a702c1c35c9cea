$VMEMSCOPE check spec_bad_param.json
