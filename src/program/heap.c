/*
 * heap.c — program-scoped packing as XLA's heap simulator does it
 * (GlobalDecreasingSizeBestFitHeap with the spatial order): buffers sorted
 * by size, then duration, descending; each placed at the smallest aligned
 * free chunk among the buffers already placed that overlap it in time
 * (ties to the lower offset), the open top of the heap only when no gap
 * fits; never below a buffer's floor (the scoped reservations at offset
 * 0 during its life). Live ranges are inclusive. The lower bound is the peak of the sum
 * of live sizes (XLA's NoFragmentationStatsHeap).
 *
 * Facts and golden vectors: ../shared/reference/hlo_format.md §3.1.
 * Placement is O(n * k log k) for k buffers overlapping in time.
 */
#include <stdlib.h>
#include <string.h>

#include "../base/base.h"

typedef struct order {
  const vmem_heap_buffer *b;
  size_t index;
} order;

/* size desc, duration desc, then input order (XLA: the buffer id) */
static int spatial(const void *x, const void *y) {
  const order *a = x, *b = y;
  if (a->b->size != b->b->size)
    return a->b->size > b->b->size ? -1 : 1;
  int64_t da = a->b->end - a->b->start, db = b->b->end - b->b->start;
  if (da != db)
    return da > db ? -1 : 1;
  return (a->index > b->index) - (a->index < b->index);
}

typedef struct chunk {
  uint64_t offset, end;
} chunk;

static int by_offset(const void *x, const void *y) {
  const chunk *a = x, *b = y;
  return (a->offset > b->offset) - (a->offset < b->offset);
}

static bool overlaps(const vmem_heap_buffer *a, const vmem_heap_buffer *b) {
  return a->start <= b->end && b->start <= a->end;
}

/* The best-fit offset for `b` among the placed chunks that overlap it. */
static bool best_fit(const vmem_heap_buffer *b, chunk *busy, size_t nbusy, uint64_t align, uint64_t *out) {
  qsort(busy, nbusy, sizeof *busy, by_offset);
  uint64_t free_from = 0, best = 0, best_len = UINT64_MAX;
  bool found = false;
  for (size_t i = 0; i <= nbusy; i++) {
    uint64_t start, gap_end = i < nbusy ? busy[i].offset : UINT64_MAX;
    if (!ck_round_up(free_from, align, &start))
      return false;
    if (i < nbusy && start < gap_end && gap_end - start >= b->size && gap_end - start < best_len) {
      best = start, best_len = gap_end - start, found = true;
    }
    if (i == nbusy && !found)
      best = start; /* the open top of the heap */
    if (i < nbusy && busy[i].end > free_from)
      free_from = busy[i].end;
  }
  *out = best;
  return true;
}

/* An allocation (+size at start) or a free (-size at end + 1, past the
 * inclusive range); at one time, frees come first. */
typedef struct event {
  int64_t t;
  int sign;
  uint64_t size;
} event;

static int by_time(const void *x, const void *y) {
  const event *a = x, *b = y;
  if (a->t != b->t)
    return a->t < b->t ? -1 : 1;
  return (a->sign > b->sign) - (a->sign < b->sign);
}

/* The peak of the sum of live sizes over time, and the first step at it. */
static uint64_t live_peak(const vmem_heap_buffer *bufs, size_t n, event *ev, int64_t *when) {
  for (size_t i = 0; i < n; i++) {
    ev[2 * i] = (event){bufs[i].start, 1, bufs[i].size};
    ev[2 * i + 1] = (event){bufs[i].end + 1, -1, bufs[i].size};
  }
  qsort(ev, 2 * n, sizeof *ev, by_time);
  uint64_t live = 0, peak = 0;
  *when = 0;
  for (size_t i = 0; i < 2 * n; i++) {
    live = ev[i].sign > 0 ? live + ev[i].size : live - ev[i].size;
    if (live > peak)
      peak = live, *when = ev[i].t;
  }
  return peak;
}

vmem_status vmem_heap_pack(vmem_heap_buffer *bufs, size_t n, uint64_t alignment, vmem_heap_result *out,
                           const vmem_allocator *alloc, vmem_error *err) {
  err_clear(err);
  memset(out, 0, sizeof *out);
  if ((n && !bufs) || alignment == 0) { /* any positive alignment: XLA's own tests use 20 */
    err_set(err, VMEM_ERR_ARGUMENT, 0, "heap: buffers and a positive alignment are needed");
    return VMEM_ERR_ARGUMENT;
  }
  for (size_t i = 0; i < n; i++)
    if (bufs[i].end < bufs[i].start || bufs[i].end == INT64_MAX) {
      err_set(err, VMEM_ERR_RANGE, i, "heap: buffer %zu ends before it starts", i);
      return VMEM_ERR_RANGE;
    }
  size_t room = n ? n : 1;
  order *o = vmem__alloc(alloc, room * sizeof *o);
  chunk *busy = vmem__alloc(alloc, (room + 1) * sizeof *busy);
  size_t *placed = vmem__alloc(alloc, room * sizeof *placed);
  event *ev = vmem__alloc(alloc, 2 * room * sizeof *ev);
  vmem_status st = VMEM_OK;
  if (!o || !busy || !placed || !ev) {
    err_set(err, VMEM_ERR_NOMEM, 0, "out of memory");
    st = VMEM_ERR_NOMEM;
  }
  for (size_t i = 0; st == VMEM_OK && i < n; i++)
    o[i] = (order){&bufs[i], i};
  if (st == VMEM_OK)
    qsort(o, n, sizeof *o, spatial);
  for (size_t i = 0; st == VMEM_OK && i < n; i++) {
    vmem_heap_buffer *b = &bufs[o[i].index];
    size_t nbusy = 0;
    for (size_t j = 0; j < i; j++) {
      const vmem_heap_buffer *p = &bufs[placed[j]];
      if (overlaps(b, p))
        busy[nbusy++] = (chunk){p->offset, p->offset + p->size};
    }
    uint64_t end;
    if (b->floor) /* the reservations below it: one busy chunk from 0 */
      busy[nbusy++] = (chunk){0, b->floor};
    if (!best_fit(b, busy, nbusy, alignment, &b->offset) || !ck_add(b->offset, b->size, &end)) {
      err_set(err, VMEM_ERR_OVERFLOW, o[i].index, "heap: offsets past 2^64 bytes");
      st = VMEM_ERR_OVERFLOW;
      break;
    }
    placed[i] = o[i].index;
    out->heap_bytes = end > out->heap_bytes ? end : out->heap_bytes;
  }
  if (st == VMEM_OK)
    out->lower_bound_bytes = live_peak(bufs, n, ev, &out->peak_time);
  vmem__free(alloc, ev);
  vmem__free(alloc, o);
  vmem__free(alloc, busy);
  vmem__free(alloc, placed);
  return st;
}
