$VMEMSCOPE explain no-such.log
