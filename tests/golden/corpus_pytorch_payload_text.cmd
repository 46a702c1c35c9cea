$VMEMSCOPE mlir-text $CORPUS/mosaic/hlo_pytorch_xla_test_pallas_add_payload.py.txt
