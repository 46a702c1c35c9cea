$VMEMSCOPE limits --target v5p
