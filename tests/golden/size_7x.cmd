$VMEMSCOPE size 'bf16[32,128]' 'bf16[129,1024]' 'f8e4m3fn[64,768]' --target=ironwood
