$VMEMSCOPE explain < explain_repr.log
