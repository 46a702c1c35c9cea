$VMEMSCOPE explain explain_old_profile_cut.log --target v3
