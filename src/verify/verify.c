/*
 * verify.c — the plans checked against their own invariants, apart from
 * the code that made them: a kernel's stack (vmem_footprint_check) and a
 * program's heap (vmem_program_check). The planner tests call both on
 * every plan; a debug build (VMEM_VERIFY) checks every plan it returns.
 */
#include <stdlib.h>
#include <string.h>

#include "../base/base.h"

static vmem_status broken(vmem_error *err, const char *what, size_t a, size_t b) {
  err_set(err, VMEM_ERR_INTERNAL, 0, "plan check: %s (entries %zu and %zu)", what, a, b);
  return VMEM_ERR_INTERNAL;
}

/* ---- a kernel's stack ------------------------------------------------------ */

vmem_status vmem_footprint_check(const vmem_footprint *f, vmem_error *err) {
  if (!f || (f->count && !f->allocs) || !f->alignment) {
    err_set(err, VMEM_ERR_ARGUMENT, 0, "a footprint with an alignment is needed");
    return VMEM_ERR_ARGUMENT;
  }
  uint64_t top = 0, sums[5] = {0, 0, 0, 0, 0};
  for (size_t i = 0; i < f->count; i++) {
    const vmem_allocation *a = &f->allocs[i];
    uint64_t end;
    if (a->kind == VMEM_ALLOC_PREFETCHED) { /* off the stack: program-scoped */
      if (a->offset || !ck_add(sums[a->kind], a->bytes, &sums[a->kind]))
        return broken(err, "a prefetched input is on the stack or its total passes 2^64", i, i);
      continue;
    }
    if (a->offset % f->alignment)
      return broken(err, "an allocation's offset is not aligned", i, i);
    if (!ck_add(a->offset, a->bytes, &end) || (unsigned)a->kind >= 5 ||
        !ck_add(sums[a->kind], a->bytes, &sums[a->kind]))
      return broken(err, "an allocation's end or total passes 2^64", i, i);
    top = end > top ? end : top;
    for (size_t j = 0; j < i; j++) { /* all are live at once; a kernel has few */
      const vmem_allocation *b = &f->allocs[j];
      if (b->kind != VMEM_ALLOC_PREFETCHED && a->bytes && b->bytes && a->offset < b->offset + b->bytes &&
          b->offset < end)
        return broken(err, "two allocations overlap", j, i);
    }
  }
  if (top != f->stack_bytes)
    return broken(err, "stack_bytes is not the top of the stack", 0, f->count);
  if (sums[VMEM_ALLOC_WINDOW] + sums[VMEM_ALLOC_SCRATCH] != f->scoped_bytes)
    return broken(err, "scoped_bytes is not the windows and scratch", 0, f->count);
  if (sums[VMEM_ALLOC_PREFETCHED] != f->prefetched_bytes)
    return broken(err, "prefetched_bytes is not its allocations", 0, f->count);
  if (sums[VMEM_ALLOC_INTERNAL_SCRATCH] != f->internal_scratch_bytes)
    return broken(err, "internal_scratch_bytes is not its allocations", 0, f->count);
  if (sums[VMEM_ALLOC_MODELLED] != f->modelled_bytes)
    return broken(err, "modelled_bytes is not its allocations", 0, f->count);
  return VMEM_OK;
}

/* ---- a program's heap ------------------------------------------------------- */

/* qsort's comparator sees only the two elements, so buffers sort through
 * (time, index) keys: no global pointer to the buffers. */
typedef struct key {
  int64_t t;
  size_t i;
} key;

static int by_time(const void *x, const void *y) {
  const key *a = x, *b = y;
  return a->t < b->t ? -1 : a->t > b->t ? 1 : (a->i > b->i) - (a->i < b->i);
}

/* The largest reservation over steps [lo, hi]: the run-length list is in
 * step order, so the first run ending at or after lo is found by halves. */
static uint64_t floor_of(const vmem_program *p, int64_t lo, int64_t hi) {
  size_t a = 0, b = p->nreservations;
  while (a < b) {
    size_t m = a + (b - a) / 2;
    if (p->reservations[m].end < lo)
      a = m + 1;
    else
      b = m;
  }
  uint64_t most = 0;
  for (; a < p->nreservations && p->reservations[a].start <= hi; a++)
    most = p->reservations[a].bytes > most ? p->reservations[a].bytes : most;
  return most;
}

/* The live set at each start, in offset order: a new buffer overlaps a
 * live one only if it overlaps its neighbours there. */
static vmem_status no_overlap(const vmem_program *p, const key *order, size_t *live, vmem_error *err) {
  size_t nlive = 0;
  for (size_t k = 0; k < p->count; k++) {
    size_t i = order[k].i;
    const vmem_program_buffer *b = &p->buffers[i];
    size_t kept = 0;
    for (size_t j = 0; j < nlive; j++)
      if (p->buffers[live[j]].end >= b->start)
        live[kept++] = live[j];
    nlive = kept;
    if (!b->bytes)
      continue;
    size_t lo = 0, hi = nlive;
    while (lo < hi) {
      size_t m = lo + (hi - lo) / 2;
      if (p->buffers[live[m]].offset < b->offset)
        lo = m + 1;
      else
        hi = m;
    }
    if (lo > 0) {
      const vmem_program_buffer *a = &p->buffers[live[lo - 1]];
      if (a->offset + a->bytes > b->offset)
        return broken(err, "two buffers live at once overlap", live[lo - 1], i);
    }
    if (lo < nlive && b->offset + b->bytes > p->buffers[live[lo]].offset)
      return broken(err, "two buffers live at once overlap", i, live[lo]);
    memmove(live + lo + 1, live + lo, (nlive - lo) * sizeof *live);
    live[lo] = i, nlive++;
  }
  return VMEM_OK;
}

/* The peak of the live sizes' sum and its first step: frees at a step
 * come before the allocations of the next (a buffer lives [start, end]). */
static void live_peak(const vmem_program *p, key *ev, uint64_t *peak, int64_t *at) {
  size_t n = 0;
  for (size_t i = 0; i < p->count; i++) {
    ev[n++] = (key){p->buffers[i].start * 2 + 1, i}; /* allocate at start */
    ev[n++] = (key){(p->buffers[i].end + 1) * 2, i}; /* free before end + 1's allocations */
  }
  qsort(ev, n, sizeof *ev, by_time);
  uint64_t sum = 0;
  *peak = 0, *at = 0;
  for (size_t k = 0; k < n; k++) {
    bool alloc = ev[k].t & 1;
    sum = alloc ? sum + p->buffers[ev[k].i].bytes : sum - p->buffers[ev[k].i].bytes;
    if (alloc && sum > *peak)
      *peak = sum, *at = (ev[k].t - 1) / 2;
  }
}

vmem_status vmem_program_check(const vmem_program *p, uint64_t alignment, vmem_error *err) {
  if (!p || (p->count && !p->buffers) || (p->nreservations && !p->reservations)) {
    err_set(err, VMEM_ERR_ARGUMENT, 0, "a program is needed");
    return VMEM_ERR_ARGUMENT;
  }
  alignment = alignment ? alignment : 1;
  uint64_t top = 0;
  for (size_t i = 0; i < p->count; i++) {
    const vmem_program_buffer *b = &p->buffers[i];
    uint64_t end;
    if (b->offset % alignment)
      return broken(err, "a buffer's offset is not aligned", i, i);
    if (b->end < b->start || !ck_add(b->offset, b->bytes, &end) || end > (uint64_t)INT64_MAX)
      return broken(err, "a buffer's life or end is out of range", i, i);
    if (!p->scoped_in_heap && b->offset < floor_of(p, b->start, b->end))
      return broken(err, "a buffer sits below a scoped reservation of its life", i, i);
    top = end > top ? end : top;
  }
  uint64_t used = top > p->scoped_reservation_bytes ? top : p->scoped_reservation_bytes;
  if (p->count && (p->scoped_in_heap ? p->used_bytes < used : used != p->used_bytes))
    return broken(err, "used_bytes is not the top of the heap", 0, p->count);
  key *k = p->count ? vmem__alloc(&p->alloc, 2 * p->count * sizeof *k) : NULL;
  size_t *live = p->count ? vmem__alloc(&p->alloc, p->count * sizeof *live) : NULL;
  vmem_status st = VMEM_OK;
  if (p->count && (!k || !live)) {
    err_set(err, VMEM_ERR_NOMEM, 0, "out of memory");
    st = VMEM_ERR_NOMEM;
  }
  if (st == VMEM_OK && p->count) {
    for (size_t i = 0; i < p->count; i++)
      k[i] = (key){p->buffers[i].start, i};
    qsort(k, p->count, sizeof *k, by_time);
    st = no_overlap(p, k, live, err);
  }
  if (st == VMEM_OK && p->count) {
    uint64_t peak;
    int64_t at;
    live_peak(p, k, &peak, &at);
    if (peak != p->lower_bound_bytes || (peak && at != p->peak_time))
      st = broken(err, "lower_bound_bytes or peak_time is not the live sizes' peak", 0, p->count);
    else if (p->peak_bytes < peak || p->used_bytes < peak)
      st = broken(err, "a heap is below the live sizes' peak", 0, p->count);
  }
  vmem__free(&p->alloc, k);
  vmem__free(&p->alloc, live);
  return st;
}
