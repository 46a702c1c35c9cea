$VMEMSCOPE explain explain_emitter_abort.log
