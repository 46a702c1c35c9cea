$VMEMSCOPE targets trillium
