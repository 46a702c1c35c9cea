$VMEMSCOPE sizes 'f32[8]'
