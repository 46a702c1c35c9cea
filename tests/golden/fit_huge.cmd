$VMEMSCOPE fit fit_huge.json
