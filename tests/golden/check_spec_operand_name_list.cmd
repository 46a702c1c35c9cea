$VMEMSCOPE check spec_operand_name_list.json
