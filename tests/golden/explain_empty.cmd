$VMEMSCOPE explain empty.txt
