$VMEMSCOPE size '(f32[8]{0}, s32[])' 'f32[128,6]' --json
