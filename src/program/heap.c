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
#define _POSIX_C_SOURCE 200809L /* pthreads: the halves of time */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "../base/base.h"
#include "heap.h"

/* A buffer's sort key, copied out of it: sorting and placing then read
 * this array in order instead of the buffers at random. */
typedef struct order {
  uint64_t size, floor;
  int64_t start, end;
  size_t index;
} order;

/* The two placement orders of XLA's heap as stable sorts, the least
 * significant key first, starting from input order (the last tie-break):
 * kSpatial is size, then duration, descending; kTemporal duration, then
 * size. A radix sort of the keys, not qsort: its indirect compare was a
 * tenth of the packing. */
typedef enum order_key { BY_SIZE, BY_DURATION } order_key;

static uint64_t key_of(const order *o, order_key k) {
  return k == BY_SIZE ? o->size : (uint64_t)o->end - (uint64_t)o->start;
}

/* Stable, descending in key k (ascending in its complement), over only the
 * bytes in which the keys differ. tmp has room for n. */
static void sort_desc(order *o, order *tmp, size_t n, order_key k) {
  uint64_t all_or = 0, all_and = UINT64_MAX;
  for (size_t i = 0; i < n; i++)
    all_or |= ~key_of(&o[i], k), all_and &= ~key_of(&o[i], k);
  uint64_t differ = all_or ^ all_and;
  for (unsigned shift = 0; shift < 64; shift += 8) {
    if (!((differ >> shift) & 0xff))
      continue; /* every key has the same byte here */
    size_t count[257] = {0};
    for (size_t i = 0; i < n; i++)
      count[((~key_of(&o[i], k) >> shift) & 0xff) + 1]++;
    for (size_t d = 0; d < 256; d++)
      count[d + 1] += count[d];
    for (size_t i = 0; i < n; i++)
      tmp[count[(~key_of(&o[i], k) >> shift) & 0xff]++] = o[i];
    memcpy(o, tmp, n * sizeof *o);
  }
}

typedef struct chunk {
  uint64_t offset, end;
} chunk;

/* Two runs of chunks in offset order merged into out, without a branch
 * per chunk (which run gives the next is a coin toss on random offsets). */
static void merge2(const chunk *a, size_t na, const chunk *b, size_t nb, chunk *out) {
  size_t i = 0, j = 0, k = 0;
  while (i < na && j < nb) {
    size_t t = b[j].offset < a[i].offset;
    uint64_t m = -(uint64_t)t; /* masks: gcc turns a ?: here back into a branch */
    out[k].offset = (b[j].offset & m) | (a[i].offset & ~m);
    out[k++].end = (b[j].end & m) | (a[i].end & ~m);
    j += t, i += 1 - t;
  }
  memcpy(out + k, a + i, (na - i) * sizeof *a);
  memcpy(out + k + (na - i), b + j, (nb - j) * sizeof *b);
}

/* The m sorted runs c[r[i], r[i+1]) merged pairwise until one is left
 * (r is rewritten); returns the buffer that holds it, c or tmp. Each run
 * is one bucket's chunks, already in offset order, so this is a merge sort
 * that starts log(bucket size) levels up. */
static chunk *merge_runs(chunk *c, chunk *tmp, size_t *r, size_t m) {
  while (m > 1) {
    size_t w = 0;
    for (size_t i = 0; i < m; i += 2, w++) {
      size_t na = r[i + 1] - r[i], nb = i + 1 < m ? r[i + 2] - r[i + 1] : 0;
      merge2(c + r[i], na, c + r[i + 1], nb, tmp + r[i]);
      r[w] = r[i];
    }
    r[w] = r[m];
    m = w;
    chunk *t = c;
    c = tmp, tmp = t;
  }
  return c;
}

/* ---- the time index of placed buffers --------------------------------------
 * Time is cut into buckets of `width` steps, at least the mean life; each
 * placed buffer is listed in every bucket its life touches, and each
 * bucket keeps its list sorted by offset (capacity counted once up front:
 * about 3n entries). A buffer whose life lies in one bucket — most of
 * them — then meets its overlapping chunks already in offset order, and
 * best fit runs over them with no sort; a longer life gathers what counts
 * from each of its buckets and merges the runs. A chunk listed in several of the
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
  size_t *first;   /* nbuckets + 1: each bucket's room in entries */
  size_t *nplaced; /* per bucket: its entries so far, sorted by offset */
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

/* ---- best fit over chunks in offset order ------------------------------------
 * One step per chunk, without branches: which chunks overlap the query and
 * which gaps fit are coin tosses to a branch predictor. The start of the
 * gap above the chunks so far is free_from rounded up to the alignment; it
 * may wrap past 2^64 without a check, because free_from only grows: if it
 * ever got too close to 2^64 to round up, it still is at the end, and
 * fit_end refuses the placement then (a heap past 2^64 bytes). */

typedef struct fit {
  uint64_t size, align, free_from, best, best_len;
  bool pow2; /* a mask instead of a division per chunk */
} fit;

static fit fit_new(uint64_t size, uint64_t align) {
  return (fit){size, align, 0, 0, UINT64_MAX, (align & (align - 1)) == 0};
}

static uint64_t fit_align(const fit *f) {
  uint64_t up = f->free_from + (f->align - 1);
  return f->pow2 ? up & ~(f->align - 1) : up / f->align * f->align;
}

/* The gap below the chunk [offset, top), if it fits better; then past it.
 * A chunk that does not count (ok false) changes nothing. */
static inline void fit_step(fit *f, uint64_t offset, uint64_t top, bool ok) {
  uint64_t start = fit_align(f), gap = offset - start;
  uint64_t take = -(uint64_t)(ok & (start < offset) & (gap >= f->size) & (gap < f->best_len));
  uint64_t grow = -(uint64_t)(ok & (top > f->free_from));
  f->best ^= (f->best ^ start) & take; /* masks, not ?:, which gcc turns back into branches */
  f->best_len ^= (f->best_len ^ gap) & take;
  f->free_from ^= (f->free_from ^ top) & grow;
}

/* The smallest gap that fits, else the open top of the heap. */
static bool fit_end(const fit *f, uint64_t *out) {
  if (f->free_from > UINT64_MAX - (f->align - 1))
    return false;
  *out = f->best_len != UINT64_MAX ? f->best : fit_align(f);
  return true;
}

/* The placed chunks overlapping [s, e], fed to f in offset order. A life
 * within one bucket reads that bucket's list; a longer one gathers what
 * counts from each bucket (a run in offset order each) and merges them.
 * runs has room for a boundary per bucket and one more. f is passed and
 * returned by value: through a pointer it could alias the entries, and
 * each step would store it to memory. */
static fit fit_query(const tindex *x, int64_t s, int64_t e, fit f, chunk *busy, chunk *tmp, size_t *runs) {
  size_t b0 = bucket(x, s), b1 = bucket(x, e);
  if (b0 == b1) {
    for (const entry *p = x->entries + x->first[b0], *end = p + x->nplaced[b0]; p < end; p++)
      fit_step(&f, p->offset, p->top, (p->end >= s) & (p->start <= e));
    return f;
  }
  size_t n = 0, m = 0;
  for (size_t k = b0; k <= b1; k++) {
    int64_t from = k == b0 ? INT64_MIN : bucket_start(x, k); /* earlier starts counted before */
    runs[m] = n;
    for (const entry *p = x->entries + x->first[k], *end = p + x->nplaced[k]; p < end; p++) {
      busy[n] = (chunk){p->offset, p->top};
      n += (p->end >= s) & (p->start <= e) & (p->start >= from);
    }
    m += n > runs[m]; /* an empty run is dropped */
  }
  runs[m] = n;
  const chunk *c = merge_runs(busy, tmp, runs, m);
  for (size_t i = 0; i < n; i++)
    fit_step(&f, c[i].offset, c[i].end, true);
  return f;
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

/* ---- placing one buffer ------------------------------------------------------
 * A placer is what one thread needs: scratch for the query, the top of
 * what it placed, and the buffer that would not fit below 2^64 (n if none). */
typedef struct placer {
  chunk *busy, *tmp; /* n + 1 each */
  size_t *runs;      /* nbuckets + 1 */
  uint64_t heap;
  size_t bad;
} placer;

static bool placer_init(placer *p, const tindex *x, size_t n, const vmem_allocator *alloc) {
  p->busy = vmem__alloc(alloc, (n + 1) * sizeof *p->busy);
  p->tmp = vmem__alloc(alloc, (n + 1) * sizeof *p->tmp);
  p->runs = vmem__alloc(alloc, (x->nbuckets + 1) * sizeof *p->runs);
  p->heap = 0, p->bad = n;
  return p->busy && p->tmp && p->runs;
}

static void placer_free(placer *p, const vmem_allocator *alloc) {
  vmem__free(alloc, p->busy);
  vmem__free(alloc, p->tmp);
  vmem__free(alloc, p->runs);
}

/* Best fit for b among the placed buffers, then b is placed. */
static bool place(tindex *x, const order *b, uint64_t alignment, placer *p, vmem_heap_buffer *bufs) {
  fit f = fit_new(b->size, alignment);
  fit_step(&f, 0, b->floor, b->floor > 0); /* the reservations below it: one busy chunk from 0 */
  f = fit_query(x, b->start, b->end, f, p->busy, p->tmp, p->runs);
  uint64_t offset, end;
  if (!fit_end(&f, &offset) || !ck_add(offset, b->size, &end)) {
    p->bad = b->index;
    return false;
  }
  bufs[b->index].offset = offset;
  tindex_place(x, b->start, b->end, offset, end);
  p->heap = end > p->heap ? end : p->heap;
  return true;
}

/* ---- two halves of time, in parallel -------------------------------------------
 * A buffer's placement depends only on the buffers before it in the order
 * that overlap it in time. Cut time at a bucket boundary t: a life wholly
 * before t never meets one wholly from t on, so the two halves are placed
 * by two threads, each in the order, in buckets the other never touches;
 * a life across t waits until both halves have placed everything before
 * it, and is placed alone. Every buffer meets the same placed buffers as
 * in one pass: the offsets are the same. The lives across one time are the
 * few live then (about 130 of bench_heap's million). */
typedef struct halves {
  tindex *x;
  const order *o;
  size_t n;
  vmem_heap_buffer *bufs;
  uint64_t alignment, cap;
  int64_t t;      /* the cut */
  placer side[2]; /* 0: the lives before t and those across it (this thread); 1: those from t on */
  pthread_mutex_t m;
  pthread_cond_t c;
  size_t reached;     /* side 1 has placed its own before o[reached] */
  size_t across_done; /* side 0 has placed o[0 .. across_done) of its own and those across */
  atomic_bool stop;   /* a side went past the cap or 2^64: both stop */
} halves;

static int side_of(const halves *h, const order *b) { return b->end < h->t ? 0 : b->start >= h->t ? 1 : 2; }

/* Places side k's buffers from o[i] on, up to the next life across the
 * cut; returns its index (n at the end). */
static size_t run_side(halves *h, int k, size_t i) {
  placer *p = &h->side[k];
  for (; i < h->n && !atomic_load_explicit(&h->stop, memory_order_relaxed); i++) {
    int s = side_of(h, &h->o[i]);
    if (s == 2)
      return i;
    if (s == k && (!place(h->x, &h->o[i], h->alignment, p, h->bufs) || p->heap > h->cap))
      atomic_store(&h->stop, true);
  }
  return h->n;
}

/* Side 1's thread: its run up to each life across the cut, then a wait
 * until side 0 has placed that life. */
static void *side1_main(void *arg) {
  halves *h = arg;
  for (size_t i = 0;;) {
    i = run_side(h, 1, i);
    pthread_mutex_lock(&h->m);
    h->reached = i;
    pthread_cond_broadcast(&h->c);
    while (i < h->n && h->across_done <= i && !atomic_load(&h->stop))
      pthread_cond_wait(&h->c, &h->m);
    pthread_mutex_unlock(&h->m);
    if (i >= h->n || atomic_load(&h->stop))
      return NULL;
    i++;
  }
}

/* Side 0, on the calling thread: its run, then each life across the cut
 * once side 1 has reached it. */
static void side0_main(halves *h) {
  for (size_t i = 0;;) {
    i = run_side(h, 0, i);
    pthread_mutex_lock(&h->m);
    while (h->reached < i && !atomic_load(&h->stop))
      pthread_cond_wait(&h->c, &h->m);
    if (i < h->n && !atomic_load(&h->stop) &&
        (!place(h->x, &h->o[i], h->alignment, &h->side[0], h->bufs) || h->side[0].heap > h->cap))
      atomic_store(&h->stop, true);
    h->across_done = i + 1;
    pthread_cond_broadcast(&h->c);
    pthread_mutex_unlock(&h->m);
    if (i >= h->n || atomic_load(&h->stop))
      return;
    i++;
  }
}

/* The cut: the bucket boundary nearest the median start (*t); false when
 * one side would hold less than a quarter of the buffers (no gain from a
 * thread) or there is no room to count. */
static bool cut_time(const tindex *x, const order *o, size_t n, const vmem_allocator *alloc, int64_t *t) {
  size_t *count = vmem__alloc(alloc, (x->nbuckets + 1) * sizeof *count), k = 0, below = 0;
  if (!count)
    return false;
  memset(count, 0, (x->nbuckets + 1) * sizeof *count);
  for (size_t i = 0; i < n; i++)
    count[bucket(x, o[i].start)]++;
  while (k < x->nbuckets && below + count[k] <= n / 2)
    below += count[k++];
  vmem__free(alloc, count);
  *t = bucket_start(x, k);
  return k > 0 && below >= n / 4 && n - below >= n / 4;
}

/* Places o[0..n) in two halves of time when it pays (threads > 1, a cut
 * that splits the buffers); false when it did not run (nothing placed). */
static bool place_halves(tindex *x, const order *o, size_t n, vmem_heap_buffer *bufs, uint64_t alignment, uint64_t cap,
                         unsigned threads, const vmem_allocator *alloc, placer *result) {
  int64_t t;
  if (threads < 2 || !cut_time(x, o, n, alloc, &t))
    return false;
  halves h = {.x = x, .o = o, .n = n, .bufs = bufs, .alignment = alignment, .cap = cap, .t = t};
  atomic_init(&h.stop, false);
  pthread_t th;
  bool ok = placer_init(&h.side[0], x, n, alloc) && placer_init(&h.side[1], x, n, alloc);
  bool m_ok = ok && pthread_mutex_init(&h.m, NULL) == 0;
  bool c_ok = m_ok && pthread_cond_init(&h.c, NULL) == 0;
  bool started = c_ok && pthread_create(&th, NULL, side1_main, &h) == 0;
  if (started) {
    side0_main(&h);
    pthread_join(th, NULL);
    result->heap = h.side[0].heap > h.side[1].heap ? h.side[0].heap : h.side[1].heap;
    result->bad = h.side[0].bad < n ? h.side[0].bad : h.side[1].bad;
  }
  if (c_ok)
    pthread_cond_destroy(&h.c);
  if (m_ok)
    pthread_mutex_destroy(&h.m);
  placer_free(&h.side[0], alloc);
  placer_free(&h.side[1], alloc);
  return started;
}

/* ---- one packing ----------------------------------------------------------------- */

/* One packing in the spatial or temporal order, on `threads` threads (1:
 * this one). It gives up (*gave_up, VMEM_OK, offsets partly written) as
 * soon as the heap passes cap (UINT64_MAX: never): the heap only grows, so
 * it could not end at or below the cap; a buffer that would not fit below
 * 2^64 then gives up too (a finite cap is below it). */
static vmem_status pack(vmem_heap_buffer *bufs, size_t n, uint64_t alignment, vmem_heap_result *out,
                        const vmem_allocator *alloc, vmem_error *err, bool temporal, uint64_t cap, bool *gave_up,
                        unsigned threads) {
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
  order *o = vmem__alloc(alloc, room * sizeof *o), *otmp = vmem__alloc(alloc, room * sizeof *otmp);
  tindex x = {0};
  event *ev = vmem__alloc(alloc, 2 * room * sizeof *ev);
  placer p = {0};
  vmem_status st = VMEM_OK;
  if (!o || !otmp || !ev || !tindex_build(&x, bufs, n, alloc)) {
    err_set(err, VMEM_ERR_NOMEM, 0, "out of memory");
    st = VMEM_ERR_NOMEM;
  }
  for (size_t i = 0; st == VMEM_OK && i < n; i++)
    o[i] = (order){bufs[i].size, bufs[i].floor, bufs[i].start, bufs[i].end, i};
  if (st == VMEM_OK) {
    sort_desc(o, otmp, n, temporal ? BY_SIZE : BY_DURATION);
    sort_desc(o, otmp, n, temporal ? BY_DURATION : BY_SIZE);
  }
  bool halved = st == VMEM_OK && place_halves(&x, o, n, bufs, alignment, cap, threads, alloc, &p);
  /* An offset past 2^64 is an error naming a buffer: the halves stop when
   * either side meets one, so which they name depends on timing. One pass
   * names the first in the order, on any machine. */
  if (halved && p.bad < n && cap == UINT64_MAX) {
    tindex_free(&x, alloc);
    x = (tindex){0};
    halved = false;
    p = (placer){0};
    if (!tindex_build(&x, bufs, n, alloc)) {
      err_set(err, VMEM_ERR_NOMEM, 0, "out of memory");
      st = VMEM_ERR_NOMEM;
    }
  }
  if (st == VMEM_OK && !halved && !placer_init(&p, &x, n, alloc)) {
    err_set(err, VMEM_ERR_NOMEM, 0, "out of memory");
    st = VMEM_ERR_NOMEM;
  }
  for (size_t i = 0; st == VMEM_OK && !halved && i < n && p.bad == n && p.heap <= cap; i++)
    place(&x, &o[i], alignment, &p, bufs);
  out->heap_bytes = p.heap;
  if (st == VMEM_OK && (p.heap > cap || (p.bad < n && cap != UINT64_MAX)))
    *gave_up = true;
  else if (st == VMEM_OK && p.bad < n) {
    err_set(err, VMEM_ERR_OVERFLOW, p.bad, "heap: offsets past 2^64 bytes");
    st = VMEM_ERR_OVERFLOW;
  }
  if (st == VMEM_OK && !(gave_up && *gave_up))
    out->lower_bound_bytes = live_peak(bufs, n, ev, &out->peak_time, alloc);
  vmem__free(alloc, ev);
  vmem__free(alloc, o);
  vmem__free(alloc, otmp);
  if (!halved)
    placer_free(&p, alloc);
  tindex_free(&x, alloc);
  return st;
}

vmem_status heap_pack_threads(vmem_heap_buffer *bufs, size_t n, uint64_t alignment, vmem_heap_result *out,
                              bool temporal, unsigned threads, vmem_error *err) {
  bool gave_up = false;
  return pack(bufs, n, alignment, out, NULL, err, temporal, UINT64_MAX, &gave_up, threads);
}

/* Threads for a packing of n buffers: halves only where they pay for
 * starting a thread. */
static unsigned threads_for(size_t n) { return n >= HEAP_HALVES_MIN ? sys_processors() : 1; }

static vmem_status pack_one(vmem_heap_buffer *bufs, size_t n, uint64_t alignment, vmem_heap_result *out,
                            const vmem_allocator *alloc, unsigned threads, vmem_error *err) {
  bool gave_up = false;
  return pack(bufs, n, alignment, out, alloc, err, false, UINT64_MAX, &gave_up, threads);
}

/* XLA's ChooseBestHeapAlgorithm over the two orders: the temporal packing
 * is kept only when its heap is smaller. The temporal order runs first;
 * the spatial one then gives up as soon as its heap passes the temporal
 * heap, since it could only lose from there. The same choice and offsets
 * as running both to the end, for the cost of one packing and the part of
 * the other until it loses (on bench_heap's mix, a quarter). */
static vmem_status pack_best(vmem_heap_buffer *bufs, size_t n, uint64_t alignment, vmem_heap_result *out,
                             const vmem_allocator *alloc, unsigned threads, vmem_error *err) {
  bool gave_up = false;
  vmem_status st = pack(bufs, n, alignment, out, alloc, err, true, UINT64_MAX, &gave_up, threads);
  uint64_t *keep = st == VMEM_OK && n ? vmem__alloc(alloc, n * sizeof *keep) : NULL;
  if (st != VMEM_OK || !n)
    return st;
  if (!keep) {
    err_set(err, VMEM_ERR_NOMEM, 0, "out of memory");
    return VMEM_ERR_NOMEM;
  }
  for (size_t i = 0; i < n; i++)
    keep[i] = bufs[i].offset;
  vmem_heap_result temporal = *out;
  bool lost = false;
  st = pack(bufs, n, alignment, out, alloc, err, false, temporal.heap_bytes, &lost, threads);
  if (st == VMEM_OK && lost) { /* ties go to the spatial order, which is XLA's first */
    for (size_t i = 0; i < n; i++)
      bufs[i].offset = keep[i];
    *out = temporal;
  }
  vmem__free(alloc, keep);
  return st;
}

vmem_status vmem_heap_pack_with(vmem_heap_buffer *bufs, size_t n, const vmem_heap_options *opt, vmem_heap_result *out,
                                vmem_error *err) {
  if ((!bufs && n) || !out) {
    err_set(err, VMEM_ERR_ARGUMENT, 0, "buffers and a result are needed");
    return VMEM_ERR_ARGUMENT;
  }
  static const vmem_heap_options none = {0, NULL, false, 0};
  opt = opt ? opt : &none;
  unsigned threads = opt->threads == 1 ? 1 : threads_for(n);
  return (opt->best ? pack_best : pack_one)(bufs, n, opt->alignment, out, opt->alloc, threads, err);
}

vmem_status vmem_heap_pack(vmem_heap_buffer *bufs, size_t n, uint64_t alignment, vmem_heap_result *out,
                           const vmem_allocator *alloc, vmem_error *err) {
  vmem_heap_options o = {alignment, alloc, false, 0};
  return vmem_heap_pack_with(bufs, n, &o, out, err);
}

vmem_status vmem_heap_pack_best(vmem_heap_buffer *bufs, size_t n, uint64_t alignment, vmem_heap_result *out,
                                const vmem_allocator *alloc, vmem_error *err) {
  vmem_heap_options o = {alignment, alloc, true, 0};
  return vmem_heap_pack_with(bufs, n, &o, out, err);
}
