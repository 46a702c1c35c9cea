#!/bin/sh
# libvmemscope exports the public API alone: every global symbol it defines
# is vmem_-prefixed (the static archive's internal names too, as vmem__*:
# src/base/names.h, scripts/internal-names), and none is the command
# line's (vmem_cli_*: those are libvmemscope-cli's). Takes the .so or the .a.
# Skips (77) without nm.
set -u
lib=$1
command -v nm >/dev/null 2>&1 || { echo "SKIP: lib_symbols: no nm"; exit 77; }
names=$(nm -g --defined-only "$lib" | awk 'NF == 3 {print $3}' | sort -u)
other=$(printf '%s\n' "$names" | grep -v '^vmem_' | grep -v '^_\(init\|fini\)$' | grep -v '^$')
cli=$(printf '%s\n' "$names" | grep '^vmem_cli_')
[ -z "$other" ] || { echo "libvmemscope defines names without the vmem_ prefix (scripts/internal-names writes them):"; echo "$other"; exit 1; }
[ -z "$cli" ] || { echo "libvmemscope carries the command line (link it into libvmemscope-cli only):"; echo "$cli"; exit 1; }
echo "$(basename "$lib"): $(printf '%s\n' "$names" | grep -c '^vmem_') names, every one vmem_, none of the CLI"
