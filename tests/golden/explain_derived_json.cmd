$VMEMSCOPE explain explain_derived.log --json
