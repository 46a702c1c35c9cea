$VMEMSCOPE report fit_matmul.json --fit | grep -o -e "[0-9]* candidates considered, [0-9]* fit" -e "<tr><td>b[a-z]*=[0-9]* b[a-z]*=[0-9]* b[a-z]*=[0-9]*"
