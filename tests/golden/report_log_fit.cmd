$VMEMSCOPE report explain_gated.log --fit
