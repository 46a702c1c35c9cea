$VMEMSCOPE repro program_s1.hlo --instruction c
