$VMEMSCOPE size -f bad_shapes.txt
