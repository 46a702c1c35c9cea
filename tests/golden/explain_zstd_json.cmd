$VMEMSCOPE explain --json explain_quoted_html.log.zst
