$VMEMSCOPE check unknown_operand.hlo
