#!/bin/sh
# Runs one golden CLI case. NAME.cmd is a shell line in which $VMEMSCOPE is
# the binary (environment assignments may precede it); NAME.out holds the
# expected stdout+stderr followed by a last line "exit N". The case runs in
# an empty environment, so the caller's LIBTPU_INIT_ARGS and
# VMEMSCOPE_TARGET do not leak in.
# A case that names $CORPUS runs on ../shared/corpus and is skipped (exit
# 77) when that folder is absent.
set -u
bin=$1
case=$2
out=${case%.cmd}.out
corpus=$(cd "$(dirname "$0")/../../.." && pwd)/shared/corpus
if grep -q '\$CORPUS' "$case" && [ ! -d "$corpus" ]; then
  echo "SKIP: $corpus not found"
  exit 77
fi
actual=$(cd "$(dirname "$case")" && env -i PATH=/usr/bin:/bin VMEMSCOPE="$bin" CORPUS="$corpus" sh -c "$(cat "$case")" 2>&1; echo "exit $?")
if [ "$actual" != "$(cat "$out")" ]; then
  echo "golden mismatch for $(basename "$case" .cmd):"
  printf '%s\n' "$actual" | diff -u "$out" - || true
  exit 1
fi
