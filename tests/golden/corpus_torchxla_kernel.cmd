$VMEMSCOPE check $CORPUS/hlo/torchxla_tpu_custom_call_flash_attention_preopt.hlo --instruction custom-call.58
