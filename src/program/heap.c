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
 * The placed buffers are found through a time index (below) that keeps
 * them in offset order: placement is about O(n log n + sum of k) for the k
 * buffers overlapping each in time, plus what shares their buckets.
 */
#include <stdlib.h>
#include <string.h>

#include "../base/base.h"

/* A buffer's sort key, copied out of it: sorting and placing then read
 * this array in order instead of the buffers at random. */
typedef struct order {
  uint64_t size, floor;
  int64_t start, end;
  size_t index;
} order;

/* XLA's kTemporal: duration desc, size desc, then input order. */
static int temporal(const void *x, const void *y) {
  const order *a = x, *b = y;
  int64_t da = a->end - a->start, db = b->end - b->start;
  if (da != db)
    return da > db ? -1 : 1;
  if (a->size != b->size)
    return a->size > b->size ? -1 : 1;
  return (a->index > b->index) - (a->index < b->index);
}

/* XLA's kSpatial: size desc, duration desc, then input order (the buffer id) */
static int spatial(const void *x, const void *y) {
  const order *a = x, *b = y;
  if (a->size != b->size)
    return a->size > b->size ? -1 : 1;
  int64_t da = a->end - a->start, db = b->end - b->start;
  if (da != db)
    return da > db ? -1 : 1;
  return (a->index > b->index) - (a->index < b->index);
}

typedef struct chunk {
  uint64_t offset, end;
} chunk;


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

/* ---- the time index of placed buffers --------------------------------------
 * Time is cut into buckets of `width` steps, at least the mean life; each
 * placed buffer is listed in every bucket its life touches, and each
 * bucket keeps its list sorted by offset (capacity counted once up front:
 * about 3n entries). A buffer whose life lies in one bucket or a few — most
 * of them — then meets its overlapping chunks already in offset order, by
 * a merge of those lists, and best fit runs over them with no sort; a long
 * life gathers its chunks and sorts them. A chunk listed in several of the
 * buckets counts in the first the two lives share. XLA keeps an interval
 * tree; an augmented treap was tried here first and spent its time on
 * paths and cache misses, not results (docs/performance.md). */
typedef struct entry {
  int64_t start, end;
  uint64_t offset, top; /* the chunk */
} entry;

typedef struct tindex {
  int64_t t0;
  uint64_t width;
  size_t nbuckets;
  size_t *first;    /* nbuckets + 1: each bucket's room in entries */
  size_t *nplaced;  /* per bucket: its entries so far, sorted by offset */
  entry *entries;
} tindex;

static size_t bucket(const tindex *x, int64_t t) { return (size_t)(((uint64_t)t - (uint64_t)x->t0) / x->width); }

static int64_t bucket_start(const tindex *x, size_t k) { return (int64_t)((uint64_t)x->t0 + (uint64_t)k * x->width); }

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
  x->nplaced = vmem__alloc(alloc, (x->nbuckets + 1) * sizeof *x->nplaced);
  if (!x->first || !x->nplaced)
    return false;
  memset(x->first, 0, (x->nbuckets + 1) * sizeof *x->first);
  memset(x->nplaced, 0, (x->nbuckets + 1) * sizeof *x->nplaced);
  for (size_t i = 0; i < n; i++)
    for (size_t k = bucket(x, b[i].start); k <= bucket(x, b[i].end); k++)
      x->first[k + 1]++;
  for (size_t k = 0; k < x->nbuckets; k++)
    x->first[k + 1] += x->first[k];
  x->entries = vmem__alloc(alloc, (x->first[x->nbuckets] + 1) * sizeof *x->entries);
  return x->entries != NULL;
}

static void tindex_free(tindex *x, const vmem_allocator *alloc) {
  vmem__free(alloc, x->first);
  vmem__free(alloc, x->nplaced);
  vmem__free(alloc, x->entries);
}

/* Lists a placed buffer in each bucket of its life, in offset order. */
static void tindex_place(tindex *x, int64_t start, int64_t end, uint64_t offset, uint64_t top) {
  entry e = {start, end, offset, top};
  for (size_t k = bucket(x, start); k <= bucket(x, end); k++) {
    entry *a = x->entries + x->first[k];
    size_t n = x->nplaced[k]++, lo = 0, hi = n;
    while (lo < hi) { /* after every entry at the same offset */
      size_t mid = lo + (hi - lo) / 2;
      if (a[mid].offset <= e.offset)
        lo = mid + 1;
      else
        hi = mid;
    }
    memmove(a + lo + 1, a + lo, (n - lo) * sizeof *a);
    a[lo] = e;
  }
}

/* Whether bucket k's entry p counts for a query over [s, e] starting in
 * bucket b0: it overlaps in time, and k is the first bucket both share. */
static bool counts(const tindex *x, const entry *p, size_t k, size_t b0, int64_t s, int64_t e) {
  return p->end >= s && p->start <= e && (k == b0 || p->start >= bucket_start(x, k));
}

/* ---- best fit over chunks in offset order ------------------------------------ */

typedef struct fit {
  uint64_t size, align, free_from, best, best_len;
  bool found, overflow;
} fit;

/* free_from rounded up to the alignment: a mask when it is a power of two
 * (a division per chunk was a visible share of the packing). */
static bool align_up(const fit *f, uint64_t *out) {
  if ((f->align & (f->align - 1)) == 0) {
    if (f->free_from > UINT64_MAX - (f->align - 1))
      return false;
    *out = (f->free_from + f->align - 1) & ~(f->align - 1);
    return true;
  }
  return ck_round_up(f->free_from, f->align, out);
}

/* The gap below this chunk, then past it. */
static void fit_chunk(fit *f, uint64_t offset, uint64_t top) {
  uint64_t start;
  if (!align_up(f, &start)) {
    f->overflow = true;
    return;
  }
  if (start < offset && offset - start >= f->size && offset - start < f->best_len)
    f->best = start, f->best_len = offset - start, f->found = true;
  if (top > f->free_from)
    f->free_from = top;
}

/* The smallest gap that fits, else the open top of the heap. */
static bool fit_end(fit *f, uint64_t *out) {
  uint64_t start;
  if (f->overflow || !align_up(f, &start))
    return false;
  *out = f->found ? f->best : start;
  return true;
}

enum { MERGE = 4 }; /* lives over at most this many buckets merge their lists */

/* The placed chunks overlapping [s, e], fed to f in offset order. */
static void fit_query(const tindex *x, int64_t s, int64_t e, fit *f, chunk *busy, chunk *tmp) {
  size_t b0 = bucket(x, s), b1 = bucket(x, e), nb = b1 - b0 + 1;
  if (nb > MERGE) { /* a long life: gather, sort, then fit */
    size_t n = 0;
    for (size_t k = b0; k <= b1; k++)
      for (const entry *p = x->entries + x->first[k], *end = p + x->nplaced[k]; p < end; p++)
        if (counts(x, p, k, b0, s, e))
          busy[n++] = (chunk){p->offset, p->top};
    sort_chunks(busy, tmp, n);
    for (size_t i = 0; i < n; i++)
      fit_chunk(f, busy[i].offset, busy[i].end);
    return;
  }
  const entry *cur[MERGE], *end[MERGE];
  for (size_t j = 0; j < nb; j++) {
    cur[j] = x->entries + x->first[b0 + j], end[j] = cur[j] + x->nplaced[b0 + j];
    while (cur[j] < end[j] && !counts(x, cur[j], b0 + j, b0, s, e))
      cur[j]++;
  }
  for (;;) { /* the lowest offset among the cursors, then that cursor's next */
    size_t m = MERGE;
    for (size_t j = 0; j < nb; j++)
      if (cur[j] < end[j] && (m == MERGE || cur[j]->offset < cur[m]->offset))
        m = j;
    if (m == MERGE)
      return;
    fit_chunk(f, cur[m]->offset, cur[m]->top);
    do
      cur[m]++;
    while (cur[m] < end[m] && !counts(x, cur[m], b0 + m, b0, s, e));
  }
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

/* The same sweep over a dense timeline when the schedule is no longer than
 * a few times the buffers (the usual case): sums per step instead of a sort
 * of 2n events. Returns false when the span is too long for it. */
static bool live_peak_dense(const vmem_heap_buffer *bufs, size_t n, int64_t *when, uint64_t *peak,
                            const vmem_allocator *alloc) {
  int64_t t0 = bufs[0].start, t1 = bufs[0].end;
  for (size_t i = 0; i < n; i++) {
    t0 = bufs[i].start < t0 ? bufs[i].start : t0;
    t1 = bufs[i].end > t1 ? bufs[i].end : t1;
  }
  uint64_t span = (uint64_t)t1 - (uint64_t)t0 + 2;
  if (span > 4 * (uint64_t)n + 1024)
    return false;
  uint64_t *add = vmem__alloc(alloc, (size_t)span * sizeof *add), *rem = vmem__alloc(alloc, (size_t)span * sizeof *rem);
  if (!add || !rem) {
    vmem__free(alloc, add);
    vmem__free(alloc, rem);
    return false;
  }
  memset(add, 0, (size_t)span * sizeof *add);
  memset(rem, 0, (size_t)span * sizeof *rem);
  for (size_t i = 0; i < n; i++) {
    add[(uint64_t)bufs[i].start - (uint64_t)t0] += bufs[i].size;
    rem[(uint64_t)bufs[i].end - (uint64_t)t0 + 1] += bufs[i].size;
  }
  uint64_t live = 0;
  *peak = 0, *when = 0;
  for (uint64_t t = 0; t < span; t++) { /* frees first at a step, then allocations */
    live = live - rem[t] + add[t];
    if (live > *peak)
      *peak = live, *when = (int64_t)((uint64_t)t0 + t);
  }
  vmem__free(alloc, add);
  vmem__free(alloc, rem);
  return true;
}

/* The peak of the sum of live sizes over time, and the first step at it. */
static uint64_t live_peak(const vmem_heap_buffer *bufs, size_t n, event *ev, int64_t *when,
                          const vmem_allocator *alloc) {
  uint64_t dense;
  if (n && live_peak_dense(bufs, n, when, &dense, alloc))
    return dense;
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
    o[i] = (order){bufs[i].size, bufs[i].floor, bufs[i].start, bufs[i].end, i};
  if (st == VMEM_OK)
    qsort(o, n, sizeof *o, sort_order);
  for (size_t i = 0; st == VMEM_OK && i < n; i++) {
    const order *b = &o[i];
    fit f = {b->size, alignment, 0, 0, UINT64_MAX, false, false};
    if (b->floor) /* the reservations below it: one busy chunk from 0, the lowest offset */
      fit_chunk(&f, 0, b->floor);
    fit_query(&x, b->start, b->end, &f, busy, tmp);
    uint64_t offset, end;
    if (!fit_end(&f, &offset) || !ck_add(offset, b->size, &end)) {
      err_set(err, VMEM_ERR_OVERFLOW, b->index, "heap: offsets past 2^64 bytes");
      st = VMEM_ERR_OVERFLOW;
      break;
    }
    bufs[b->index].offset = offset;
    tindex_place(&x, b->start, b->end, offset, end);
    out->heap_bytes = end > out->heap_bytes ? end : out->heap_bytes;
  }
  if (st == VMEM_OK)
    out->lower_bound_bytes = live_peak(bufs, n, ev, &out->peak_time, alloc);
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
