$VMEMSCOPE explain explain_old_profile_truncated.log --json
