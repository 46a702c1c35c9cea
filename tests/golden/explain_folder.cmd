$VMEMSCOPE explain job_logs
