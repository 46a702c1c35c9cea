$VMEMSCOPE size --file ../../examples/shapes.txt --target v6e
