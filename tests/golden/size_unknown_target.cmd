$VMEMSCOPE size 'f32[8]' --target v9
