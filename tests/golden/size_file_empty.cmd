$VMEMSCOPE size -f empty.txt
