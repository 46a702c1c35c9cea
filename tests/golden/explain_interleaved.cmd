$VMEMSCOPE explain explain_interleaved.log
