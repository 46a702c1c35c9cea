$VMEMSCOPE report two_kernels.hlo -o /nonexistent/dir/report.html
