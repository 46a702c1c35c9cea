$VMEMSCOPE size 'f32[8,8]{0,1:S(1)T(8,128)}'
