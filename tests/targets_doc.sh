#!/bin/sh
# docs/targets.md shows the target table and the model facts as the binary
# prints them: each fenced block under "## The table" and "## Model facts"
# must equal `vmemscope targets` and `vmemscope targets --model`.
set -u
bin=$1
doc=$2
status=0
block() { # the first fenced block after the heading $1
  awk -v h="$1" '$0 == h {on = 1; next} on && /^```/ {if (in_) exit; in_ = 1; next} in_ {print}' "$doc"
}
check() {
  want=$(env -i PATH=/usr/bin:/bin "$bin" targets $2 | awk 'NF == 0 {exit} {print}')  # the table, less the hint after it
  if [ "$(block "$1")" != "$want" ]; then
    echo "docs/targets.md: the block under '$1' differs from 'vmemscope targets $2':"
    block "$1" | diff - /dev/fd/3 3<<EOF2 || true
$want
EOF2
    status=1
  fi
}
check "## The table" ""
check "## Model facts" "--model"
[ $status -eq 0 ] && echo "docs/targets.md agrees with the table"
exit $status
