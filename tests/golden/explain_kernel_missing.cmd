$VMEMSCOPE explain explain_hlo.log --kernel no-such.json
