$VMEMSCOPE explain explain_crlf.log --target 7x
