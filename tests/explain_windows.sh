#!/bin/sh
# explain reads a log larger than a window a window at a time: the reports,
# their counts, hosts, lines and offsets must be those of the whole log read
# at once. The log (about 6 MB) is built from the golden logs with training
# noise between them, so that reports and listings fall across window edges;
# the window is made 400 KiB (VMEMSCOPE_EXPLAIN_WINDOW), its least.
#   tests/explain_windows.sh build/vmemscope
set -eu
cli=$1
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 - "$here/golden" "$dir/log" <<'PY'
import os, sys
golden, out = sys.argv[1], sys.argv[2]
names = ["explain_hosts.log", "explain_old_profile.log", "explain_program_scoped.log", "explain_wrapped.log",
         "explain_quoted_html.log", "explain_torch_xla.log", "explain_prefixes_crlf.log"]
logs = [open(os.path.join(golden, n), encoding="utf-8").read() for n in names]
with open(out, "w", encoding="utf-8") as f:
    for i in range(60):
        # noise of varying length, so that each log lands at a new place against the window's edges
        f.write("".join("I1203 10:%02d:00.000000  77 train.py:42] step %d loss 1.234\n" % (i % 60, j)
                        for j in range(600 + 97 * i)))
        f.write(logs[i % len(logs)])
PY
whole=$("$cli" explain "$dir/log" || true)
json=$("$cli" explain --json "$dir/log" || true)
cut=$(VMEMSCOPE_EXPLAIN_WINDOW=409600 "$cli" explain "$dir/log" || true)
cutjson=$(VMEMSCOPE_EXPLAIN_WINDOW=409600 "$cli" explain --json "$dir/log" || true)
n=$(printf '%s\n' "$whole" | grep -c '^error ' || true)
[ "$n" -ge 6 ] || { echo "explain_windows: only $n reports in the whole log" >&2; exit 1; }
if [ "$whole" != "$cut" ] || [ "$json" != "$cutjson" ]; then
  printf '%s\n' "$whole" > "$dir/whole.txt"
  printf '%s\n' "$cut" > "$dir/cut.txt"
  diff "$dir/whole.txt" "$dir/cut.txt" | head -40 >&2
  echo "explain_windows: a log read in 400 KiB windows reads differently from the whole log" >&2
  exit 1
fi
# compressed, decoded a window at a time: the same text
gzip -1 -c "$dir/log" > "$dir/log.gz"
for packed in "$dir/log.gz" $(command -v zstd >/dev/null 2>&1 && zstd -q -1 -c "$dir/log" > "$dir/log.zst" && echo "$dir/log.zst"); do
  got=$(VMEMSCOPE_EXPLAIN_WINDOW=409600 "$cli" explain "$packed" || true)
  if [ "$whole" != "$(printf '%s\n' "$got")" ] && [ "$whole" != "$got" ]; then
    printf '%s\n' "$got" > "$dir/packed.txt"
    printf '%s\n' "$whole" > "$dir/whole.txt"
    diff "$dir/whole.txt" "$dir/packed.txt" | head -20 >&2
    echo "explain_windows: $packed in windows reads differently from the plain log" >&2
    exit 1
  fi
done
echo "explain_windows: $n reports, the same read whole and in 400 KiB windows ($(wc -c < "$dir/log") bytes)"
