$VMEMSCOPE size 'f32[?,8]'
