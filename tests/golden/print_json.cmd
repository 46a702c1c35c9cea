$VMEMSCOPE print program_s1.hlo --json | head -4
