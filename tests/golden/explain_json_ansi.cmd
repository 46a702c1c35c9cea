$VMEMSCOPE explain explain_json_ansi.log
