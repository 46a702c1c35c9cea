$VMEMSCOPE size 'bf16[129,1024]' 'f32[128,6]{1,0}' 'u8[4096]{0}' 's32[]' 'bf16[6144]' --target v5e
