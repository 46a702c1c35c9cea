$VMEMSCOPE check calibration.hlo --summary --no-env
