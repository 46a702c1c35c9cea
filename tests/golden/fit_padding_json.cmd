$VMEMSCOPE fit fit_padding.json --target v6e --param br=384 --param bc=3000 --allow-padding-blocks --json
