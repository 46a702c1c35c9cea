printf 'f32[8,8]\n' | $VMEMSCOPE size -f - --json
