$VMEMSCOPE report program_s1.hlo --tight | grep -o -e "<rect class=\"buf\"" -e "peak, step [0-9]*" -e "<table class=\"sortable\" id=\"[a-z-]*\""
