$VMEMSCOPE size 'f31[8]'
