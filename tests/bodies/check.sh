#!/bin/sh
# The checked-in Mosaic bodies (tests/golden/body_NAME.b64, and the copies
# inside the HLO and StableHLO fixtures) are what scripts/mosaic-body writes
# today from tests/bodies/NAME.json. Skips (77) without python3.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3 for scripts/mosaic-body"; exit 77; }
status=0
for spec in "$root"/tests/bodies/*.json; do
  name=$(basename "$spec" .json)
  body=$(python3 "$root/scripts/mosaic-body" "$spec") || { echo "mosaic-body failed on $spec"; status=1; continue; }
  if [ "$body" != "$(cat "$root/tests/golden/body_$name.b64")" ]; then
    echo "tests/golden/body_$name.b64 is stale: run scripts/mosaic-body $spec > tests/golden/body_$name.b64"
    status=1
  fi
  grep -rlF --include='*.hlo' --include='*.mlir' "$body" "$root/tests/golden" >/dev/null ||
    echo "note: body_$name is in no HLO or StableHLO fixture"
done
exit $status
