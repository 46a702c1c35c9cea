$VMEMSCOPE explain explain_hlo.log --hlo kernel.hlo --target v6e --json
