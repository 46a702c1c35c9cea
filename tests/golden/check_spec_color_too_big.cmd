$VMEMSCOPE check spec_color_too_big.json
