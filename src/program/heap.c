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
 * The placed buffers are found through a time index (below): placement is
 * O(n log n + sum of k log k) for the k buffers overlapping each in time,
 * plus what shares their buckets.
 */
#include <stdlib.h>
#include <string.h>

#include "../base/base.h"

typedef struct order {
  const vmem_heap_buffer *b;
  size_t index;
} order;

/* XLA's kTemporal: duration desc, size desc, then input order. */
static int temporal(const void *x, const void *y) {
  const order *a = x, *b = y;
  int64_t da = a->b->end - a->b->start, db = b->b->end - b->b->start;
  if (da != db)
    return da > db ? -1 : 1;
  if (a->b->size != b->b->size)
    return a->b->size > b->b->size ? -1 : 1;
  return (a->index > b->index) - (a->index < b->index);
}

/* XLA's kSpatial: size desc, duration desc, then input order (the buffer id) */
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


/* ---- the time index of placed buffers --------------------------------------
 * Time is cut into buckets of `width` steps, at least the mean life, and
 * each buffer has an entry in every bucket its life touches (about 3n
 * entries, built once), holding its range and, once placed, its chunk: a
 * query scans the buckets of one buffer's life sequentially, without
 * touching the buffers themselves, and a long buffer met in several of
 * them counts in the first only. XLA keeps an interval tree; an augmented
 * treap was tried here first and spent its time on paths and cache
 * misses, not results (docs/performance.md). */
typedef struct entry {
  int64_t start, end;   /* end is INT64_MIN until placed: no query meets it */
  uint64_t offset, top; /* the chunk, once placed */
} entry;

typedef struct tindex {
  int64_t t0;
  uint64_t width;
  size_t nbuckets;
  size_t *first;    /* nbuckets + 1 offsets into entries */
  entry *entries;
  size_t *mine_first, *mine; /* per buffer: its entries (CSR) */
} tindex;

static size_t bucket(const tindex *x, int64_t t) { return (size_t)(((uint64_t)t - (uint64_t)x->t0) / x->width); }

/* The buckets' layout: width from the mean life, no more than 2n + 1. */
static void tindex_shape(tindex *x, const vmem_heap_buffer *b, size_t n) {
  int64_t t0 = n ? b[0].start : 0, t1 = n ? b[0].end : 0;
  uint64_t lives = 0;
  for (size_t i = 0; i < n; i++) {
    t0 = b[i].start < t0 ? b[i].start : t0;
    t1 = b[i].end > t1 ? b[i].end : t1;
    uint64_t d = (uint64_t)b[i].end - (uint64_t)b[i].start + 1;
    lives = lives + d < lives ? UINT64_MAX : lives + d;
  }
  uint64_t span = (uint64_t)t1 - (uint64_t)t0;
  x->t0 = t0;
  x->width = n && lives / n > 1 ? lives / n : 1;
  if (span / x->width > 2 * (uint64_t)n)
    x->width = span / (2 * (uint64_t)n + 1) + 1;
  x->nbuckets = (size_t)(span / x->width) + 1;
}

static bool tindex_build(tindex *x, const vmem_heap_buffer *b, size_t n, const vmem_allocator *alloc) {
  tindex_shape(x, b, n);
  x->first = vmem__alloc(alloc, (x->nbuckets + 1) * sizeof *x->first);
  x->mine_first = vmem__alloc(alloc, (n + 1) * sizeof *x->mine_first);
  if (!x->first || !x->mine_first)
    return false;
  memset(x->first, 0, (x->nbuckets + 1) * sizeof *x->first);
  x->mine_first[0] = 0;
  for (size_t i = 0; i < n; i++) {
    size_t b0 = bucket(x, b[i].start), b1 = bucket(x, b[i].end);
    for (size_t k = b0; k <= b1; k++)
      x->first[k + 1]++;
    x->mine_first[i + 1] = x->mine_first[i] + (b1 - b0 + 1);
  }
  for (size_t k = 0; k < x->nbuckets; k++)
    x->first[k + 1] += x->first[k];
  size_t total = x->first[x->nbuckets] + 1, *fill = vmem__alloc(alloc, (x->nbuckets + 1) * sizeof *fill);
  x->entries = vmem__alloc(alloc, total * sizeof *x->entries);
  x->mine = vmem__alloc(alloc, total * sizeof *x->mine);
  if (!fill || !x->entries || !x->mine) {
    vmem__free(alloc, fill);
    return false;
  }
  memcpy(fill, x->first, x->nbuckets * sizeof *fill);
  for (size_t i = 0; i < n; i++)
    for (size_t k = bucket(x, b[i].start), m = x->mine_first[i]; k <= bucket(x, b[i].end); k++, m++) {
      x->mine[m] = fill[k];
      x->entries[fill[k]++] = (entry){b[i].start, INT64_MIN, 0, 0};
    }
  vmem__free(alloc, fill);
  return true;
}

static void tindex_place(tindex *x, size_t i, int64_t end, uint64_t offset, uint64_t top) {
  for (size_t m = x->mine_first[i]; m < x->mine_first[i + 1]; m++) {
    entry *e = &x->entries[x->mine[m]];
    e->end = end, e->offset = offset, e->top = top;
  }
}

static void tindex_free(tindex *x, const vmem_allocator *alloc) {
  vmem__free(alloc, x->first);
  vmem__free(alloc, x->entries);
  vmem__free(alloc, x->mine_first);
  vmem__free(alloc, x->mine);
}

/* The chunks of the placed buffers that overlap [s, e] in time. */
static size_t overlapping(const tindex *x, int64_t s, int64_t e, chunk *out) {
  size_t n = 0, b0 = bucket(x, s), b1 = bucket(x, e);
  for (size_t k = b0; k <= b1; k++) {
    /* Counted in the first bucket both lives touch: in b0 always; past
     * it, only what starts in this bucket (everything else was met in an
     * earlier one). */
    int64_t lo = k == b0 ? INT64_MIN : (int64_t)((uint64_t)x->t0 + (uint64_t)k * x->width);
    for (const entry *p = x->entries + x->first[k], *end = x->entries + x->first[k + 1]; p < end; p++)
      if (p->end >= s && p->start <= e && p->start >= lo)
        out[n++] = (chunk){p->offset, p->top};
  }
  return n;
}

/* Chunks by offset, once per buffer: insertion sort when few, else an LSD
 * radix sort over the bytes in which the offsets differ (k log k compares
 * on random offsets were mostly branch misses: a merge sort, and qsort's
 * indirect compare before it, took a third of the packing). */
static void sort_chunks(chunk *c, chunk *tmp, size_t n) {
  if (n <= 24) {
    for (size_t i = 1; i < n; i++) {
      chunk x = c[i];
      size_t j = i;
      for (; j > 0 && c[j - 1].offset > x.offset; j--)
        c[j] = c[j - 1];
      c[j] = x;
    }
    return;
  }
  uint64_t all_or = 0, all_and = UINT64_MAX;
  for (size_t i = 0; i < n; i++)
    all_or |= c[i].offset, all_and &= c[i].offset;
  uint64_t differ = all_or ^ all_and;
  for (unsigned shift = 0; shift < 64; shift += 8) {
    if (!((differ >> shift) & 0xff))
      continue; /* every offset has the same byte here */
    size_t count[257] = {0};
    for (size_t i = 0; i < n; i++)
      count[((c[i].offset >> shift) & 0xff) + 1]++;
    for (size_t d = 0; d < 256; d++)
      count[d + 1] += count[d];
    for (size_t i = 0; i < n; i++)
      tmp[count[(c[i].offset >> shift) & 0xff]++] = c[i];
    memcpy(c, tmp, n * sizeof *c);
  }
}

/* The best-fit offset for `b` among the placed chunks that overlap it. */
static bool best_fit(const vmem_heap_buffer *b, chunk *busy, chunk *tmp, size_t nbusy, uint64_t align,
                     uint64_t *out) {
  sort_chunks(busy, tmp, nbusy);
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

static vmem_status pack(vmem_heap_buffer *bufs, size_t n, uint64_t alignment, vmem_heap_result *out,
                        const vmem_allocator *alloc, vmem_error *err, int (*sort_order)(const void *, const void *)) {
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
  chunk *busy = vmem__alloc(alloc, (room + 1) * sizeof *busy), *tmp = vmem__alloc(alloc, (room + 1) * sizeof *tmp);
  tindex x = {0};
  event *ev = vmem__alloc(alloc, 2 * room * sizeof *ev);
  vmem_status st = VMEM_OK;
  if (!o || !busy || !tmp || !ev || !tindex_build(&x, bufs, n, alloc)) {
    err_set(err, VMEM_ERR_NOMEM, 0, "out of memory");
    st = VMEM_ERR_NOMEM;
  }
  for (size_t i = 0; st == VMEM_OK && i < n; i++)
    o[i] = (order){&bufs[i], i};
  if (st == VMEM_OK)
    qsort(o, n, sizeof *o, sort_order);
  for (size_t i = 0; st == VMEM_OK && i < n; i++) {
    vmem_heap_buffer *b = &bufs[o[i].index];
    size_t nbusy = overlapping(&x, b->start, b->end, busy);
    uint64_t end;
    if (b->floor) /* the reservations below it: one busy chunk from 0 */
      busy[nbusy++] = (chunk){0, b->floor};
    if (!best_fit(b, busy, tmp, nbusy, alignment, &b->offset) || !ck_add(b->offset, b->size, &end)) {
      err_set(err, VMEM_ERR_OVERFLOW, o[i].index, "heap: offsets past 2^64 bytes");
      st = VMEM_ERR_OVERFLOW;
      break;
    }
    tindex_place(&x, o[i].index, b->end, b->offset, end);
    out->heap_bytes = end > out->heap_bytes ? end : out->heap_bytes;
  }
  if (st == VMEM_OK)
    out->lower_bound_bytes = live_peak(bufs, n, ev, &out->peak_time);
  vmem__free(alloc, ev);
  vmem__free(alloc, o);
  vmem__free(alloc, busy);
  vmem__free(alloc, tmp);
  tindex_free(&x, alloc);
  return st;
}

vmem_status vmem_heap_pack(vmem_heap_buffer *bufs, size_t n, uint64_t alignment, vmem_heap_result *out,
                           const vmem_allocator *alloc, vmem_error *err) {
  return pack(bufs, n, alignment, out, alloc, err, spatial);
}

/* XLA's ChooseBestHeapAlgorithm over the two orders: the temporal packing
 * is kept only when its heap is smaller. */
vmem_status vmem_heap_pack_best(vmem_heap_buffer *bufs, size_t n, uint64_t alignment, vmem_heap_result *out,
                                const vmem_allocator *alloc, vmem_error *err) {
  vmem_status st = pack(bufs, n, alignment, out, alloc, err, spatial);
  uint64_t *keep = st == VMEM_OK && n ? vmem__alloc(alloc, n * sizeof *keep) : NULL;
  if (st != VMEM_OK || !n)
    return st;
  if (!keep) {
    err_set(err, VMEM_ERR_NOMEM, 0, "out of memory");
    return VMEM_ERR_NOMEM;
  }
  for (size_t i = 0; i < n; i++)
    keep[i] = bufs[i].offset;
  vmem_heap_result spatial_result = *out;
  st = pack(bufs, n, alignment, out, alloc, err, temporal);
  if (st == VMEM_OK && out->heap_bytes >= spatial_result.heap_bytes) {
    for (size_t i = 0; i < n; i++)
      bufs[i].offset = keep[i];
    *out = spatial_result;
  }
  vmem__free(alloc, keep);
  return st;
}
