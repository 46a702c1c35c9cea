$VMEMSCOPE check spec_name_number.json
