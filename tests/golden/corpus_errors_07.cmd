grep -v '^#' $CORPUS/errors/07_ptxla9524_vmem_listing_padding_f32_128x6.txt | $VMEMSCOPE explain
