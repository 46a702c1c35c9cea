cd $CORPUS/mosaic && $VMEMSCOPE check 05_flash_attention_main_4d_blocks.mlir
