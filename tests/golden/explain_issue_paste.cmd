$VMEMSCOPE explain explain_issue_paste.log
