$VMEMSCOPE explain explain_old_profile.log --target v3
