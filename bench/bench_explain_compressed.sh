#!/bin/sh
# explain on a compressed log against the plain decompress-and-count of the
# same bytes: `zcat | wc -l` (and `zstd -dc | wc -l`), medians of 3 runs, in
# one run of this script. Usage: bench/bench_explain_compressed.sh build/vmemscope [MB]
set -eu
cli=$1
mb=${2:-100}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# A log of $mb MB: training output with examples/train.log's errors spread through it.
python3 - "$dir/log" "$mb" <<'PY'
import sys
path, mb = sys.argv[1], int(sys.argv[2])
err = open("examples/train.log").read()
noise = "".join("I1203 10:00:%02d.000000  77 train.py:42] step %d loss 1.234 lr 3e-4 tokens/s 12345\n" % (i % 60, i)
                for i in range(2000))
with open(path, "w") as f:
    n = 0
    while n < mb << 20:
        f.write(noise); n += len(noise)
        if n % (20 << 20) < len(noise):
            f.write(err); n += len(err)
PY
gzip -1 -c "$dir/log" > "$dir/log.gz"
have_zstd=0
command -v zstd >/dev/null 2>&1 && zstd -q -1 -c "$dir/log" > "$dir/log.zst" && have_zstd=1
median() { # the median wall time in ms of 3 runs of "$@"
  for i in 1 2 3; do
    s=$(date +%s%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s%N); echo $(( (e - s) / 1000000 ))
  done | sort -n | sed -n 2p
}
scan_gz=$(median sh -c "zcat '$dir/log.gz' | wc -l")
exp_gz=$(median "$cli" explain "$dir/log.gz")
echo "log: $mb MB ($(wc -c < "$dir/log.gz") bytes gzip -1)"
echo "  zcat | wc -l        $scan_gz ms"
echo "  explain log.gz      $exp_gz ms    $(python3 -c "print('%.2fx' % ($exp_gz / max($scan_gz, 1)))") zcat | wc -l"
if [ $have_zstd = 1 ]; then
  scan_zst=$(median sh -c "zstd -dc '$dir/log.zst' | wc -l")
  exp_zst=$(median "$cli" explain "$dir/log.zst")
  echo "  zstd -dc | wc -l    $scan_zst ms"
  echo "  explain log.zst     $exp_zst ms    $(python3 -c "print('%.2fx' % ($exp_zst / max($scan_zst, 1)))") zstd -dc | wc -l"
fi
echo "(medians of 3 runs)"
