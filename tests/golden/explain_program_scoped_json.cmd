$VMEMSCOPE explain explain_program_scoped.log --json
