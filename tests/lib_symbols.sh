#!/bin/sh
# libvmemscope exports the public API alone: every global symbol it defines
# is vmem_-prefixed, and none is the command line's (vmem_cli_*: those are
# libvmemscope-cli's). Skips (77) without nm.
set -u
lib=$1
command -v nm >/dev/null 2>&1 || { echo "SKIP: lib_symbols: no nm"; exit 77; }
other=$(nm -g --defined-only "$lib" | awk '{print $3}' | grep -v '^vmem_' | grep -v '^_\(init\|fini\)$')
cli=$(nm -g --defined-only "$lib" | awk '{print $3}' | grep '^vmem_cli_')
[ -z "$other" ] || { echo "libvmemscope exports names without the vmem_ prefix:"; echo "$other"; exit 1; }
[ -z "$cli" ] || { echo "libvmemscope carries the command line (link it into libvmemscope-cli only):"; echo "$cli"; exit 1; }
echo "libvmemscope exports $(nm -g --defined-only "$lib" | grep -c ' vmem_') vmem_ names and no CLI"
