$VMEMSCOPE explain explain_prefixes_crlf.log
