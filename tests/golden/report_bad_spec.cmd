$VMEMSCOPE report spec_name_number.json -o /dev/null
