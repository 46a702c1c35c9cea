$VMEMSCOPE check bad_body.hlo --summary
