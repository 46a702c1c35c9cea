$VMEMSCOPE size -f no-such-file.txt
