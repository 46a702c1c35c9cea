$VMEMSCOPE limits --flags
