/* heap_reference.h — placement by definition, for checking vmem_heap_pack:
 * buffers in XLA's spatial order (size, then life, descending) or its
 * temporal order (life, then size); each
 * placed at the smallest aligned gap among the chunks of every placed
 * buffer that overlaps it in time (and its floor), else at the top. No
 * index: every placed buffer is checked, O(n^2). And the better of the two
 * orders by definition: both packed to the end, the temporal kept only
 * when its heap is smaller. Used by tests/test_heap.c and
 * bench/bench_heap.c. */
#ifndef VMEM_HEAP_REFERENCE_H
#define VMEM_HEAP_REFERENCE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "vmemscope.h"

static int heap_reference_order(const void *x, const void *y) {
  const vmem_heap_buffer *a = *(vmem_heap_buffer *const *)x, *b = *(vmem_heap_buffer *const *)y;
  if (a->size != b->size)
    return a->size > b->size ? -1 : 1;
  int64_t da = a->end - a->start, db = b->end - b->start;
  if (da != db)
    return da > db ? -1 : 1;
  return (a > b) - (a < b); /* input order: the buffers are one array */
}

static int heap_reference_temporal(const void *x, const void *y) {
  const vmem_heap_buffer *a = *(vmem_heap_buffer *const *)x, *b = *(vmem_heap_buffer *const *)y;
  int64_t da = a->end - a->start, db = b->end - b->start;
  if (da != db)
    return da > db ? -1 : 1;
  if (a->size != b->size)
    return a->size > b->size ? -1 : 1;
  return (a > b) - (a < b);
}

static int heap_reference_by_offset(const void *x, const void *y) {
  const uint64_t *a = x, *b = y;
  return (a[0] > b[0]) - (a[0] < b[0]);
}

static void heap_reference_pack_in(vmem_heap_buffer *b, size_t n, uint64_t align, bool temporal) {
  vmem_heap_buffer **o = malloc((n + 1) * sizeof *o);
  uint64_t(*busy)[2] = malloc((n + 1) * sizeof *busy);
  if (!o || !busy)
    abort();
  for (size_t i = 0; i < n; i++)
    o[i] = &b[i];
  qsort(o, n, sizeof *o, temporal ? heap_reference_temporal : heap_reference_order);
  for (size_t i = 0; i < n; i++) {
    size_t k = 0;
    for (size_t j = 0; j < i; j++)
      if (o[j]->start <= o[i]->end && o[i]->start <= o[j]->end)
        busy[k][0] = o[j]->offset, busy[k][1] = o[j]->offset + o[j]->size, k++;
    if (o[i]->floor)
      busy[k][0] = 0, busy[k][1] = o[i]->floor, k++;
    qsort(busy, k, sizeof *busy, heap_reference_by_offset);
    uint64_t from = 0, best = 0, best_len = UINT64_MAX;
    bool found = false;
    for (size_t c = 0; c <= k; c++) {
      uint64_t start = (from + align - 1) / align * align, gap_end = c < k ? busy[c][0] : UINT64_MAX;
      if (c < k && start < gap_end && gap_end - start >= o[i]->size && gap_end - start < best_len)
        best = start, best_len = gap_end - start, found = true;
      if (c == k && !found)
        best = start;
      if (c < k && busy[c][1] > from)
        from = busy[c][1];
    }
    o[i]->offset = best;
  }
  free(o);
  free(busy);
}

static void heap_reference_pack(vmem_heap_buffer *b, size_t n, uint64_t align) {
  heap_reference_pack_in(b, n, align, false);
}

static uint64_t heap_reference_top(const vmem_heap_buffer *b, size_t n) {
  uint64_t top = 0;
  for (size_t i = 0; i < n; i++)
    top = b[i].offset + b[i].size > top ? b[i].offset + b[i].size : top;
  return top;
}

static void heap_reference_best(vmem_heap_buffer *b, size_t n, uint64_t align) {
  vmem_heap_buffer *t = malloc((n + 1) * sizeof *t);
  if (!t)
    abort();
  for (size_t i = 0; i < n; i++)
    t[i] = b[i];
  heap_reference_pack_in(b, n, align, false);
  heap_reference_pack_in(t, n, align, true);
  if (heap_reference_top(t, n) < heap_reference_top(b, n))
    for (size_t i = 0; i < n; i++)
      b[i].offset = t[i].offset;
  free(t);
}

#endif
