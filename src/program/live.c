/*
 * live.c — program-scoped VMEM of an HLO module: the values in memory
 * space 1 (shapes laid out with S(1)), their live ranges over the
 * flattened schedule, the buffers aliasing joins them into (alias.c), and
 * their packing by the heap simulator (heap.c).
 *
 * Following XLA's dataflow analysis and HloLiveRange
 * (../shared/reference/hlo_format.md §2.3):
 *  - a value is one leaf (shape index) of an instruction that defines
 *    buffers; the ops hlo_ops.def marks ALIAS (tuple, get-tuple-element,
 *    bitcast, while, call, copy-done, ...) define none, nor do a called
 *    computation's parameters: a use of them at a shape index is
 *    a use of the values they forward at that index (get-tuple-element
 *    narrows it, a tuple picks its operand, copy-done is its copy-start's
 *    element {0});
 *  - the schedule is the entry computation's order with the computations
 *    of call and conditional, and a while's condition then body, inserted
 *    before the instruction that calls them; fusion bodies and the
 *    computations other ops apply (reduce, sort, custom calls) are black
 *    boxes, not inlined;
 *  - a value lives from its definition (a parameter: from the start of
 *    its computation) to its last use, where a call's or while's use of
 *    an operand is its callee's use of the parameter; entry parameters and
 *    the values at the entry root to the end of the schedule.
 * Async ops other than copy-start/copy-done are taken as defining their
 * whole shape. The packing is exact for the ranges given; the ranges and
 * joins are this model of XLA's.
 */
#include <stdlib.h>
#include <string.h>

#include "program.h"

/* Instructions are numbered across the module in text order (hlo.h), so
 * the walk's per-instruction arrays are indexed by that number. */
size_t pg_index(const pg_walk *w, const vmem_hlo_instruction *in) {
  (void)w;
  return in->id;
}

/* ---- shape indices ---------------------------------------------------------- */

static size_t leaves(const vmem_shape *s) {
  if (!s->tuple)
    return 1;
  size_t n = 0;
  for (size_t k = 0; k < vmem_shape_tuple_count(s); k++)
    n += leaves(vmem_shape_tuple_at(s, k));
  return n;
}

/* The leaves [lo, hi) (depth-first numbering) of s at index p; false when
 * p is not an index of s. */
static bool leaf_span(const vmem_shape *s, const pg_path *p, size_t *lo, size_t *hi) {
  size_t at = 0;
  for (uint32_t d = 0; d < p->n; d++) {
    if (!s->tuple || p->k[d] < 0 || (size_t)p->k[d] >= vmem_shape_tuple_count(s))
      return false;
    for (int64_t k = 0; k < p->k[d]; k++)
      at += leaves(vmem_shape_tuple_at(s, (size_t)k));
    s = vmem_shape_tuple_at(s, (size_t)p->k[d]);
  }
  *lo = at;
  *hi = at + leaves(s);
  return true;
}

static pg_path tail(const pg_path *p) {
  pg_path q = {p->n - 1, {0}};
  memcpy(q.k, p->k + 1, q.n * sizeof *q.k);
  return q;
}

/* {k} followed by p; past the depth kept, the whole element k (a use of
 * more than asked: conservative). */
static pg_path prepend(int64_t k, const pg_path *p) {
  pg_path q = {1, {k}};
  if (p->n + 1 <= PG_MAX_PATH) {
    memcpy(q.k + 1, p->k, p->n * sizeof *q.k);
    q.n = p->n + 1;
  }
  return q;
}

static int64_t gte_index(const vmem_hlo_instruction *in) {
  sv v = vmem_hlo_instruction_attr(in, "index");
  int64_t k = 0;
  for (size_t i = 0; i < v.len; i++) {
    if (v.ptr[i] < '0' || v.ptr[i] > '9' || k > INT32_MAX)
      return -1;
    k = k * 10 + (v.ptr[i] - '0');
  }
  return v.len ? k : -1;
}

/* The body of a while (its body= attribute; else its last computation). */
const vmem_hlo_computation *pg_while_body(const vmem_hlo_instruction *in) {
  sv b = vmem_hlo_instruction_attr(in, "body");
  if (b.len && b.ptr[0] == '%')
    b.ptr++, b.len--;
  for (uint32_t k = 0; k < in->ncalled; k++)
    if (in->called[k]->name.len == b.len && !memcmp(in->called[k]->name.ptr, b.ptr, b.len))
      return in->called[k];
  return in->ncalled ? in->called[in->ncalled - 1] : NULL;
}

/* ---- reaching values through forwarding instructions ---------------------- */

static void hit(pg_walk *w, size_t v) {
  if (w->mode == PG_USE) {
    if (w->vend[v] < w->t)
      w->vend[v] = w->t;
    return;
  }
  if (w->nhits == w->hits_cap) {
    size_t cap = w->hits_cap ? 2 * w->hits_cap : 16;
    size_t *h = vmem__alloc(w->alloc, cap * sizeof *h);
    if (!h) {
      err_set(w->err, VMEM_ERR_NOMEM, 0, "out of memory");
      return;
    }
    if (w->nhits)
      memcpy(h, w->hits, w->nhits * sizeof *h);
    vmem__free(w->alloc, w->hits);
    w->hits = h, w->hits_cap = cap;
  }
  w->hits[w->nhits++] = v;
}

/* A called computation's parameter N stands for its caller's operand: a
 * call's N-th, a while's state (operand 0), a conditional branch k's
 * operand k + 1. */
static void use_parameter(pg_walk *w, const vmem_hlo_instruction *in, const pg_path *p, unsigned depth) {
  const vmem_hlo_computation *c = in->parent;
  for (uint32_t i = 0; i < c->ncallers; i++) {
    const vmem_hlo_instruction *caller = c->callers[i];
    size_t op = SIZE_MAX;
    if (caller->op == HLO_OP_CALL)
      op = (size_t)in->parameter;
    else if (caller->op == HLO_OP_WHILE)
      op = 0;
    else if (caller->op == HLO_OP_CONDITIONAL)
      for (uint32_t k = 0; k < caller->ncalled && op == SIZE_MAX; k++)
        if (caller->called[k] == c)
          op = k + 1;
    if (op < caller->noperands)
      pg_use_at(w, caller->operands[op], p, depth + 1);
  }
}

/* The values a forwarding instruction stands for at index p. */
static void forward(pg_walk *w, const vmem_hlo_instruction *in, const pg_path *p, unsigned depth) {
  if (in->op == HLO_OP_TUPLE) {
    if (p->n) {
      pg_path q = tail(p);
      if (p->k[0] >= 0 && (uint64_t)p->k[0] < in->noperands)
        pg_use_at(w, in->operands[p->k[0]], &q, depth);
      return;
    }
    for (uint32_t k = 0; k < in->noperands; k++)
      pg_use_at(w, in->operands[k], p, depth);
  } else if ((in->op == HLO_OP_GET_TUPLE_ELEMENT || in->op == HLO_OP_COPY_DONE) && in->noperands) {
    pg_path q = prepend(in->op == HLO_OP_COPY_DONE ? 0 : gte_index(in), p); /* copy-start's {0}: the copy */
    pg_use_at(w, in->operands[0], &q, depth);
  } else if (hlo_has(in, HLO_F_FORWARD) && in->noperands) {
    pg_use_at(w, in->operands[0], p, depth);
  } else if (in->op == HLO_OP_WHILE) {
    const vmem_hlo_computation *body = pg_while_body(in);
    if (body && body->root)
      pg_use_at(w, body->root, p, depth);
    if (in->noperands)
      pg_use_at(w, in->operands[0], p, depth);
  } else if (in->kind == HLO_KIND_CALLS) { /* call, conditional: the callee's root */
    for (uint32_t k = 0; k < in->ncalled; k++)
      if (in->called[k]->root)
        pg_use_at(w, in->called[k]->root, p, depth);
  }
}

void pg_use_at(pg_walk *w, const vmem_hlo_instruction *in, const pg_path *p, unsigned depth) {
  size_t i = pg_index(w, in);
  if (depth > PG_MAX_NEST || i >= w->n || w->by_ptr[i] != in || w->err->code != VMEM_OK)
    return;
  if (p->n == 0) { /* tuples of tuples fan out: each reached whole once per walk */
    if (w->visited[i] == w->mark)
      return;
    w->visited[i] = w->mark;
  }
  size_t lo, hi;
  if (w->base[i] != PG_NONE) {
    if (leaf_span(in->shape, p, &lo, &hi))
      for (size_t v = lo; v < hi; v++)
        hit(w, w->base[i] + v);
  } else if (in->kind == HLO_KIND_PARAMETER) {
    use_parameter(w, in, p, depth);
  } else {
    forward(w, in, p, depth + 1);
  }
}

bool pg_collect(pg_walk *w, const vmem_hlo_instruction *in, const pg_path *p) {
  w->mode = PG_COLLECT;
  w->mark = --w->next_mark; /* marks below -1 never equal a step */
  w->nhits = 0;
  pg_use_at(w, in, p, 0);
  w->mode = PG_USE;
  return w->err->code == VMEM_OK;
}

/* An instruction's scoped reservation: the compiler's own figure
 * (used_scoped_memory_configs) where the text has it; a Pallas kernel's
 * limit (--tight: its computed footprint with internal scratch); the
 * limit of its scoped_memory_configs; else the global scoped limit. The
 * last three are upper bounds; --tight gives a standard op its modelled
 * choice under that limit instead (vmem_std_scoped_likely). Parameters
 * and constants reserve nothing. */
static uint64_t reservation(const pg_walk *w, const vmem_hlo_instruction *in) {
  if (in->kind == HLO_KIND_PARAMETER || in->kind == HLO_KIND_CONSTANT || !vmem_hlo_instruction_defines_buffer(in))
    return 0;
  vmem_hlo_scoped sc;
  vmem_error e;
  if (w->opt->scoped)
    sc = w->opt->scoped[in->id];
  else if (vmem_hlo_instruction_scoped(in, &sc, &e) != VMEM_OK)
    return w->opt->scoped_limit_bytes;
  if (sc.limit_bytes >= 0 && vmem_target_u64(w->target, VMEM_FACT_SCOPED_IN_HEAP))
    return (uint64_t)sc.limit_bytes; /* 7x packs what was requested, not what was used (docs/program.md) */
  if (sc.used_bytes >= 0)
    return (uint64_t)sc.used_bytes;
  uint64_t limit = sc.limit_bytes >= 0 ? (uint64_t)sc.limit_bytes : w->opt->scoped_limit_bytes;
  vmem_kernel *k = sc.has_kernel_body ? vmem_hlo_instruction_kernel(in, w->alloc, &e) : NULL;
  if (k && vmem_kernel_vmem_limit_bytes(k) >= 0)
    limit = (uint64_t)vmem_kernel_vmem_limit_bytes(k);
  vmem_footprint f;
  if (k && w->opt->tight && vmem_kernel_footprint(k, w->target, NULL, &f, &e) == VMEM_OK) {
    limit = f.scoped_bytes + f.internal_scratch_bytes;
    vmem_footprint_free(&f);
  }
  vmem_std_scoped m;
  if (!k && w->opt->tight && vmem_hlo_instruction_min_scoped(in, w->target, &m, &e) == VMEM_OK && m.applies)
    limit = vmem_std_scoped_likely(&m, limit);
  vmem_kernel_free(k);
  return limit;
}

/* Records step t's reservation, growing the per-step arrays. */
static bool reserve_step(pg_walk *w, const vmem_hlo_instruction *in) {
  if ((size_t)w->t == w->resv_cap) {
    size_t cap = w->resv_cap ? 2 * w->resv_cap : 256;
    uint64_t *r = vmem__alloc(w->alloc, cap * sizeof *r);
    const vmem_hlo_instruction **ri = vmem__alloc(w->alloc, cap * sizeof *ri);
    if (!r || !ri) {
      vmem__free(w->alloc, r);
      vmem__free(w->alloc, ri);
      err_set(w->err, VMEM_ERR_NOMEM, 0, "out of memory");
      return false;
    }
    if (w->resv_cap) {
      memcpy(r, w->resv, w->resv_cap * sizeof *r);
      memcpy(ri, w->resv_in, w->resv_cap * sizeof *ri);
    }
    vmem__free(w->alloc, w->resv);
    vmem__free(w->alloc, w->resv_in);
    w->resv = r, w->resv_in = ri, w->resv_cap = cap;
  }
  w->resv[w->t] = w->opt->scoped_limit_bytes ? reservation(w, in) : 0;
  w->resv_in[w->t] = in;
  return true;
}

static bool run(pg_walk *w, const vmem_hlo_computation *c, unsigned depth);

/* The computations an instruction's schedule inlines before it. */
static bool inline_called(pg_walk *w, const vmem_hlo_instruction *in, unsigned depth) {
  if (in->kind != HLO_KIND_CALLS || !hlo_has(in, HLO_F_INLINES))
    return true;
  for (uint32_t k = 0; k < in->ncalled; k++) /* while: condition=, body= in text order */
    if (!run(w, in->called[k], depth + 1))
      return false;
  return true;
}

static bool run(pg_walk *w, const vmem_hlo_computation *c, unsigned depth) {
  static const pg_path whole = {0, {0}};
  if (depth > PG_MAX_NEST) {
    err_set(w->err, VMEM_ERR_RANGE, c->offset, "calls nested more than %d deep", PG_MAX_NEST);
    return false;
  }
  int64_t span_start = w->t; /* parameters start where their computation does */
  for (uint32_t i = 0; i < c->ninstrs; i++) {
    const vmem_hlo_instruction *in = c->instrs[i];
    if (!inline_called(w, in, depth))
      return false;
    w->mark = w->t;
    /* A call's or while's use of its operands is its callee's use of the
     * parameters (HloLiveRange), already made in the inlined steps. */
    bool through_params = in->kind == HLO_KIND_CALLS && (in->op == HLO_OP_CALL || in->op == HLO_OP_WHILE);
    for (uint32_t k = 0; k < in->noperands && !through_params; k++)
      pg_use_at(w, in->operands[k], &whole, 0);
    size_t x = pg_index(w, in), n = w->base[x] == PG_NONE ? 0 : leaves(in->shape);
    for (size_t v = w->base[x]; n--; v++) {
      if (w->vstart[v] < 0)
        w->vstart[v] = in->kind == HLO_KIND_PARAMETER ? span_start : w->t;
      if (w->vend[v] < w->t)
        w->vend[v] = w->t;
    }
    if (w->err->code != VMEM_OK || !reserve_step(w, in))
      return false;
    w->t++;
  }
  return true;
}

/* Entry parameters and the values at the entry root live to the end. */
static void live_out(pg_walk *w) {
  static const pg_path whole = {0, {0}};
  const vmem_hlo_computation *e = w->m->entry;
  w->mark = w->t;
  if (e->root)
    pg_use_at(w, e->root, &whole, 0);
  for (uint32_t i = 0; i < e->ninstrs; i++)
    if (e->instrs[i]->kind == HLO_KIND_PARAMETER)
      pg_use_at(w, e->instrs[i], &whole, 0);
}

/* Sizes and memory spaces of one scheduled instruction's values. */
static void size_leaves(pg_walk *w, const vmem_shape *s, size_t *v) {
  if (s->tuple) {
    for (size_t k = 0; k < vmem_shape_tuple_count(s); k++)
      size_leaves(w, vmem_shape_tuple_at(s, k), v);
    return;
  }
  vmem_size z;
  vmem_error e;
  bool ok = vmem_shape_size(s, &z, &e) == VMEM_OK; /* not sizeable: an unbounded dimension */
  /* A value in VMEM whose layout splits it (SC(d:i)) has one chunk in each
   * core's VMEM: v5p's buffer assignment sizes an s32[4096] split at 2048
   * at 8 KiB (the oracle's std_gather and std_scatter records). */
  if (ok && vmem_shape_memory_space(s) == 1)
    (void)shape_split_chunk_size(s, &z);
  w->vbytes[*v] = ok ? z.bytes : 0;
  w->vunpadded[*v] = ok ? z.unpadded_bytes : 0;
  w->vspace[*v] = ok ? vmem_shape_memory_space(s) : -1;
  (*v)++;
}

static bool size_values(pg_walk *w) {
  for (size_t i = 0; i < w->n; i++) {
    size_t v = w->base[i];
    if (v == PG_NONE || w->vstart[v] < 0)
      continue; /* not in the schedule (an applied computation's) */
    vmem_shape *laid = vmem_shape_with_tpu_layout(w->by_ptr[i]->shape, w->target, w->alloc, w->err);
    if (!laid)
      return false;
    size_leaves(w, laid, &v);
    vmem_shape_free(laid);
  }
  return true;
}

/* One program buffer per set of joined values with a member in S(1): its
 * size the largest member's, its range their hull, named by the member
 * defined first. */
static bool collect(pg_walk *w, vmem_program *p) {
  size_t *slot = vmem__alloc(w->alloc, (w->nvalues + 1) * sizeof *slot);
  p->buffers = vmem__alloc(w->alloc, (w->nvalues + 1) * sizeof *p->buffers);
  if (!slot || !p->buffers) {
    vmem__free(w->alloc, slot);
    err_set(w->err, VMEM_ERR_NOMEM, 0, "out of memory");
    return false;
  }
  for (size_t v = 0; v < w->nvalues; v++)
    slot[v] = PG_NONE;
  for (size_t i = 0; i < w->n; i++) {
    const vmem_hlo_instruction *in = w->by_ptr[i];
    size_t n = w->base[i] == PG_NONE ? 0 : leaves(in->shape);
    for (size_t leaf = 0; leaf < n; leaf++) {
      size_t v = w->base[i] + leaf, r = pg_find(w, v);
      if (w->vstart[v] < 0 || w->vspace[v] != 1)
        continue;
      vmem_program_buffer *b = slot[r] == PG_NONE ? NULL : &p->buffers[slot[r]];
      if (!b) {
        slot[r] = p->count;
        p->buffers[p->count++] =
            (vmem_program_buffer){in, leaf, w->vbytes[v], w->vunpadded[v], w->vstart[v], w->vend[v], 0, 1};
        continue;
      }
      b->values++;
      b->end = w->vend[v] > b->end ? w->vend[v] : b->end;
      if (w->vbytes[v] > b->bytes)
        b->bytes = w->vbytes[v], b->unpadded_bytes = w->vunpadded[v];
      bool earlier = w->vstart[v] < w->vstart[w->base[pg_index(w, b->instruction)] + b->leaf];
      if (earlier)
        b->instruction = in, b->leaf = leaf, b->start = w->vstart[v];
    }
  }
  vmem__free(w->alloc, slot);
  return true;
}

/* Buffers in schedule order, then by instruction name: stable output. */
static int by_start(const void *x, const void *y) {
  const vmem_program_buffer *a = x, *b = y;
  if (a->start != b->start)
    return a->start < b->start ? -1 : 1;
  return (a->leaf > b->leaf) - (a->leaf < b->leaf);
}

/* The largest reservation over steps [lo, hi]: a max segment tree over
 * the steps (tree[n + t] = r(t)), O(log n) a query. */
static uint64_t range_max(const uint64_t *tree, size_t n, size_t lo, size_t hi) {
  uint64_t m = 0;
  for (lo += n, hi += n + 1; lo < hi; lo >>= 1, hi >>= 1) {
    if (lo & 1)
      m = tree[lo] > m ? tree[lo] : m, lo++;
    if (hi & 1)
      --hi, m = tree[hi] > m ? tree[hi] : m;
  }
  return m;
}

/* 7x's layout (VMEM_FACT_SCOPED_IN_HEAP; libtpu 0.0.42.1: the oracle's
 * S(1) rows, where each instruction's scoped_memory_configs carry an offset
 * and a size inside the VMEM allocation): each step's reservation is a
 * buffer of that step, packed with the values by best fit; used_bytes is
 * the heap, and the values' offsets are theirs in it. */
static vmem_status pack_beside(vmem_program *p, const pg_walk *w, const vmem_heap_options *ho, vmem_error *err) {
  size_t steps = (size_t)w->t, n = p->count;
  vmem_heap_buffer *all = vmem__alloc(w->alloc, (p->count + steps + 1) * sizeof *all);
  if (!all) {
    err_set(err, VMEM_ERR_NOMEM, 0, "out of memory");
    return VMEM_ERR_NOMEM;
  }
  for (size_t i = 0; i < p->count; i++)
    all[i] = (vmem_heap_buffer){p->buffers[i].bytes, p->buffers[i].start, p->buffers[i].end, 0, 0};
  for (size_t t = 0; t < steps; t++)
    if (w->resv[t])
      all[n++] = (vmem_heap_buffer){w->resv[t], (int64_t)t, (int64_t)t, 0, 0};
  vmem_heap_options best = *ho;
  best.best = true; /* both of XLA's orders, the smaller heap */
  vmem_heap_result r;
  vmem_status st = vmem_heap_pack_with(all, n, &best, &r, err);
  if (st == VMEM_OK) {
    p->used_bytes = r.heap_bytes;
    for (size_t i = 0; i < p->count; i++)
      p->buffers[i].offset = all[i].offset;
  }
  vmem__free(w->alloc, all);
  return st;
}

/* Packs the values alone (peak_bytes), then again with each value kept
 * above the scoped reservations at offset 0 during its life (used_bytes;
 * the offsets reported). A reservation spans one step, so the space it
 * takes from a value is [0, the largest over the value's range). */
static vmem_status pack(vmem_program *p, const pg_walk *w, uint64_t alignment, vmem_error *err) {
  size_t steps = (size_t)w->t;
  vmem_heap_buffer *hb = vmem__alloc(w->alloc, (p->count + 1) * sizeof *hb);
  uint64_t *tree = vmem__alloc(w->alloc, (2 * steps + 1) * sizeof *tree);
  if (!hb || !tree) {
    vmem__free(w->alloc, hb);
    vmem__free(w->alloc, tree);
    err_set(err, VMEM_ERR_NOMEM, 0, "out of memory");
    return VMEM_ERR_NOMEM;
  }
  for (size_t t = 0; t < steps; t++) {
    tree[steps + t] = w->resv[t];
    if (w->resv[t] > p->scoped_reservation_bytes) {
      p->scoped_reservation_bytes = w->resv[t];
      p->largest_reservation = w->resv_in[t];
    }
  }
  for (size_t i = steps; i-- > 1;)
    tree[i] = tree[2 * i] > tree[2 * i + 1] ? tree[2 * i] : tree[2 * i + 1];
  for (size_t i = 0; i < p->count; i++)
    hb[i] = (vmem_heap_buffer){p->buffers[i].bytes, p->buffers[i].start, p->buffers[i].end, 0, 0};
  vmem_heap_result r;
  vmem_heap_options ho = {alignment, w->alloc, false, w->m->one_thread ? 1 : 0};
  vmem_status st = vmem_heap_pack_with(hb, p->count, &ho, &r, err);
  p->peak_bytes = r.heap_bytes;
  p->lower_bound_bytes = r.lower_bound_bytes;
  p->peak_time = r.peak_time;
  for (size_t i = 0; i < p->count; i++) {
    const vmem_program_buffer *b = &p->buffers[i];
    size_t hi = (size_t)b->end < steps ? (size_t)b->end : steps - 1; /* live-out values end at `steps` */
    hb[i] = (vmem_heap_buffer){b->bytes, b->start, b->end, 0, steps ? range_max(tree, steps, (size_t)b->start, hi) : 0};
  }
  if (st == VMEM_OK && p->scoped_in_heap)
    st = pack_beside(p, w, &ho, err);
  else if (st == VMEM_OK && (st = vmem_heap_pack_with(hb, p->count, &ho, &r, err)) == VMEM_OK) {
    p->used_bytes = r.heap_bytes > p->scoped_reservation_bytes ? r.heap_bytes : p->scoped_reservation_bytes;
    for (size_t i = 0; i < p->count; i++)
      p->buffers[i].offset = hb[i].offset;
  }
  vmem__free(w->alloc, hb);
  vmem__free(w->alloc, tree);
  return st;
}

/* Values: a first one per defining instruction, one per leaf. */
static bool number_values(pg_walk *w) {
  for (size_t i = 0; i < w->n; i++) {
    w->base[i] = vmem_hlo_instruction_defines_buffer(w->by_ptr[i]) ? w->nvalues : PG_NONE;
    if (w->base[i] != PG_NONE)
      w->nvalues += leaves(w->by_ptr[i]->shape);
  }
  size_t room = w->nvalues + 1;
  w->vstart = vmem__alloc(w->alloc, room * sizeof *w->vstart);
  w->vend = vmem__alloc(w->alloc, room * sizeof *w->vend);
  w->hs = vmem__alloc(w->alloc, room * sizeof *w->hs);
  w->he = vmem__alloc(w->alloc, room * sizeof *w->he);
  w->uf = vmem__alloc(w->alloc, room * sizeof *w->uf);
  w->vbytes = vmem__alloc(w->alloc, room * sizeof *w->vbytes);
  w->vunpadded = vmem__alloc(w->alloc, room * sizeof *w->vunpadded);
  w->vspace = vmem__alloc(w->alloc, room * sizeof *w->vspace);
  if (!w->vstart || !w->vend || !w->hs || !w->he || !w->uf || !w->vbytes || !w->vunpadded || !w->vspace) {
    err_set(w->err, VMEM_ERR_NOMEM, 0, "out of memory");
    return false;
  }
  for (size_t v = 0; v < w->nvalues; v++) {
    w->vstart[v] = w->vend[v] = -1;
    w->uf[v] = v;
    w->vspace[v] = -1;
  }
  return true;
}

static bool setup(pg_walk *w) {
  size_t room = w->n ? w->n : 1, k = 0;
  w->by_ptr = vmem__alloc(w->alloc, room * sizeof *w->by_ptr);
  w->base = vmem__alloc(w->alloc, room * sizeof *w->base);
  w->visited = vmem__alloc(w->alloc, room * sizeof *w->visited);
  if (!w->by_ptr || !w->base || !w->visited) {
    err_set(w->err, VMEM_ERR_NOMEM, 0, "out of memory");
    return false;
  }
  for (uint32_t c = 0; c < w->m->ncomps; c++)
    for (uint32_t i = 0; i < w->m->comps[c]->ninstrs; i++, k++) {
      const vmem_hlo_instruction *in = w->m->comps[c]->instrs[i];
      if (in->id >= w->n || k >= w->n) {
        err_set(w->err, VMEM_ERR_ARGUMENT, 0, "instruction numbers out of range");
        return false;
      }
      w->by_ptr[in->id] = in;
    }
  for (size_t i = 0; i < w->n; i++)
    w->visited[i] = -1;
  if (!w->m->entry) {
    err_set(w->err, VMEM_ERR_SYNTAX, 0, "the module has no entry computation");
    return false;
  }
  return number_values(w);
}

static void walk_free(pg_walk *w) {
  void *blocks[] = {w->by_ptr, w->base,   w->visited,   w->vstart, w->vend, w->hs,   w->he,
                    w->uf,     w->vbytes, w->vunpadded, w->vspace, w->hits, w->resv, w->resv_in};
  for (size_t i = 0; i < sizeof blocks / sizeof *blocks; i++)
    vmem__free(w->alloc, blocks[i]);
}

/* The per-step reservations, run-length encoded, those of 0 bytes left out. */
static bool keep_reservations(vmem_program *p, const pg_walk *w) {
  size_t n = 0;
  for (int64_t t = 0; t < w->t; t++)
    n += w->resv[t] && (t == 0 || w->resv[t] != w->resv[t - 1]);
  if (!n)
    return true;
  p->reservations = vmem__alloc(w->alloc, n * sizeof *p->reservations);
  if (!p->reservations) {
    err_set(w->err, VMEM_ERR_NOMEM, 0, "out of memory");
    return false;
  }
  for (int64_t t = 0; t < w->t; t++) {
    if (!w->resv[t])
      continue;
    vmem_program_reservation *last = p->nreservations ? &p->reservations[p->nreservations - 1] : NULL;
    if (last && last->end == t - 1 && last->bytes == w->resv[t])
      last->end = t;
    else
      p->reservations[p->nreservations++] = (vmem_program_reservation){t, t, w->resv[t], w->resv_in[t]};
  }
  return true;
}

vmem_status vmem_hlo_program_vmem(const vmem_hlo_module *m, const vmem_target *t, const vmem_program_options *opt,
                                  vmem_program *out, const vmem_allocator *alloc, vmem_error *err) {
  if (!m || !t || !out) {
    err_set(err, VMEM_ERR_ARGUMENT, 0, "a module, a target and a result are needed");
    return VMEM_ERR_ARGUMENT;
  }
  static const vmem_program_options none = {0, 0, false, NULL};
  err_clear(err);
  memset(out, 0, sizeof *out);
  if (alloc)
    out->alloc = *alloc;
  out->scheduled = m->is_scheduled;
  out->scoped_in_heap = vmem_target_u64(t, VMEM_FACT_SCOPED_IN_HEAP) != 0;
  out->capacity_bytes = vmem_target_u64(t, VMEM_FACT_VMEM_BYTES);
  pg_walk w = {
      .m = m, .n = m->total_instrs, .err = err, .target = t, .opt = opt ? opt : &none, .alloc = alloc, .next_mark = -1};
  vmem_status st = VMEM_OK;
  if (!setup(&w) || !run(&w, m->entry, 0))
    st = err->code;
  out->schedule_length = w.t;
  if (st == VMEM_OK) {
    live_out(&w);
    for (size_t v = 0; v < w.nvalues; v++)
      w.hs[v] = w.vstart[v], w.he[v] = w.vend[v];
    if (!size_values(&w) || !pg_join(&w) || !collect(&w, out))
      st = err->code;
  }
  if (st == VMEM_OK) {
    if (out->count)
      qsort(out->buffers, out->count, sizeof *out->buffers, by_start);
    st = pack(out, &w, w.opt->alignment ? w.opt->alignment : 1, err);
  }
  if (st == VMEM_OK && !keep_reservations(out, &w))
    st = err->code;
#ifdef VMEM_VERIFY /* debug builds: every plan holds to its invariants (src/verify/verify.c) */
  if (st == VMEM_OK)
    st = vmem_program_check(out, w.opt->alignment, err);
#endif
  walk_free(&w);
  if (st != VMEM_OK)
    vmem_program_free(out);
  return st;
}

void vmem_program_free(vmem_program *p) {
  if (!p)
    return;
  vmem__free(&p->alloc, p->buffers);
  vmem__free(&p->alloc, p->reservations);
  p->buffers = NULL, p->count = 0;
  p->reservations = NULL, p->nreservations = 0;
}
