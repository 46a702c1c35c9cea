$VMEMSCOPE explain explain_quoted_html.log
