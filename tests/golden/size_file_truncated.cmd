$VMEMSCOPE size -f truncated.txt
