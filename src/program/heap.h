/* heap.h — the packer's entry for tests: one packing on a given number of
 * threads, so that the two halves of time can be checked against one
 * pass on inputs too small to be split otherwise. */
#ifndef VMEM_HEAP_H
#define VMEM_HEAP_H

#include <stdbool.h>

#include "../base/names.h" /* first: the internal names carry the library's prefix */
#include "vmemscope.h"

/* vmem_heap_pack and vmem_heap_pack_best split time in two halves, placed
 * by two threads, from this many buffers on (when two processors run). */
enum { HEAP_HALVES_MIN = 1 << 16 };

/* One packing, spatial or temporal order, on `threads` threads (1 or 2). */
vmem_status heap_pack_threads(vmem_heap_buffer *bufs, size_t n, uint64_t alignment, vmem_heap_result *out,
                              bool temporal, unsigned threads, vmem_error *err);

#endif
