$VMEMSCOPE explain explain_hosts.log
