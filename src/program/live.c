/*
 * live.c — program-scoped VMEM of an HLO module: the values in memory
 * space 1 (shapes laid out with S(1)), their live ranges over the
 * flattened schedule, and their packing by the heap simulator (heap.c).
 *
 * Following XLA's HloLiveRange (../shared/reference/hlo_format.md §2.3):
 *  - the schedule is the entry computation's order with the computations
 *    of call and conditional, and a while's condition then body, inserted
 *    before the instruction that calls them; fusion bodies and the
 *    computations other ops apply (reduce, sort, custom calls) are black
 *    boxes, not inlined;
 *  - tuple, get-tuple-element, bitcast, while, call, conditional, domain,
 *    add-dependency and opt-barrier define no buffer, nor do the
 *    parameters of a called computation: a use of them is a use of the
 *    values they forward;
 *  - a value lives from its definition (a parameter: from the start of
 *    its computation) to its last use; entry parameters and the entry
 *    root's values to the end of the schedule.
 * Not yet modelled: in-place reuse of an operand's buffer, aliasing
 * (while state, output_to_operand_aliasing, input_output_alias) joining
 * values into one buffer, async copies' split definitions. The packing is
 * exact for the ranges given; the ranges are this model of XLA's.
 */
#include <stdlib.h>
#include <string.h>

#include "../hlo/hlo.h"

enum { MAX_NEST = 64 };

typedef struct walk {
  const vmem_hlo_module *m;
  const vmem_hlo_instruction **by_ptr; /* every instruction, sorted by address */
  size_t n;
  int64_t *start, *end;                /* per instruction (by_ptr index); -1 unset */
  int64_t *visited;                    /* the step a use last reached it: each once per step */
  int64_t t;
  vmem_error *err;
  const vmem_target *target;
  const vmem_program_options *opt;
  const vmem_allocator *alloc;
  uint64_t *resv;                      /* per step: the scoped reservation */
  const vmem_hlo_instruction **resv_in; /* per step: the instruction reserving it */
  size_t resv_cap;
} walk;

static int by_address(const void *x, const void *y) {
  uintptr_t a = (uintptr_t)*(const vmem_hlo_instruction *const *)x;
  uintptr_t b = (uintptr_t)*(const vmem_hlo_instruction *const *)y;
  return (a > b) - (a < b);
}

static size_t index_of(const walk *w, const vmem_hlo_instruction *in) {
  size_t lo = 0, hi = w->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if ((uintptr_t)w->by_ptr[mid] < (uintptr_t)in)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static bool opcode_in(const vmem_hlo_instruction *in, const char *const *names) {
  for (; *names; names++)
    if (sv_eq(*in->opcode, *names, strlen(*names)))
      return true;
  return false;
}

static const char *const forwarding[] = {"tuple", "get-tuple-element", "bitcast", "while", "call", "conditional",
                                         "domain", "add-dependency", "opt-barrier", NULL};

/* True when the instruction defines buffers of its own. */
static bool defines(const vmem_hlo_instruction *in) {
  if (in->parent->is_fusion || opcode_in(in, forwarding))
    return false;
  return !(in->kind == HLO_KIND_PARAMETER && !in->parent->is_entry);
}

static void use(walk *w, const vmem_hlo_instruction *in, unsigned depth);

/* A called computation's parameter N stands for its caller's operand: a
 * call's N-th, a while's state (operand 0), a conditional branch k's
 * operand k + 1. */
static void use_parameter(walk *w, const vmem_hlo_instruction *in, unsigned depth) {
  const vmem_hlo_computation *c = in->parent;
  for (uint32_t i = 0; i < c->ncallers; i++) {
    const vmem_hlo_instruction *caller = c->callers[i];
    size_t op = SIZE_MAX;
    if (sv_eq(*caller->opcode, "call", 4))
      op = (size_t)in->parameter;
    else if (sv_eq(*caller->opcode, "while", 5))
      op = 0;
    else if (sv_eq(*caller->opcode, "conditional", 11))
      for (uint32_t k = 0; k < caller->ncalled && op == SIZE_MAX; k++)
        if (caller->called[k] == c)
          op = k + 1;
    if (op < caller->noperands)
      use(w, caller->operands[op], depth + 1);
  }
}

/* A use at time t of `in`: of its own values, or of what it forwards —
 * its operands (tuple, get-tuple-element, bitcast, ...), its callee's root
 * (call, conditional; while also its state), or its caller's operand (a
 * called computation's parameter). */
static void use(walk *w, const vmem_hlo_instruction *in, unsigned depth) {
  size_t i = index_of(w, in);
  if (depth > MAX_NEST || w->visited[i] == w->t)
    return; /* tuples of tuples fan out: without this, exponentially */
  w->visited[i] = w->t;
  if (defines(in)) {
    if (w->end[i] < w->t)
      w->end[i] = w->t;
    return;
  }
  if (in->kind == HLO_KIND_PARAMETER) {
    use_parameter(w, in, depth);
    return;
  }
  bool calls = in->kind == HLO_KIND_CALLS && in->ncalled &&
               (sv_eq(*in->opcode, "call", 4) || sv_eq(*in->opcode, "while", 5) ||
                sv_eq(*in->opcode, "conditional", 11));
  for (uint32_t k = 0; calls && k < in->ncalled; k++)
    if (in->called[k]->root)
      use(w, in->called[k]->root, depth + 1);
  if (calls && !sv_eq(*in->opcode, "while", 5))
    return; /* a call's or conditional's value is its callee's root, not its operands */
  for (uint32_t k = 0; k < in->noperands; k++)
    use(w, in->operands[k], depth + 1);
}

/* An instruction's scoped reservation: the compiler's own figure
 * (used_scoped_memory_configs) where the text has it; a Pallas kernel's
 * limit (--tight: its computed footprint with internal scratch); the
 * limit of its scoped_memory_configs; else the global scoped limit. The
 * last three are upper bounds. Parameters and constants reserve nothing. */
static uint64_t reservation(const walk *w, const vmem_hlo_instruction *in) {
  if (in->kind == HLO_KIND_PARAMETER || in->kind == HLO_KIND_CONSTANT || !defines(in))
    return 0;
  vmem_hlo_scoped sc;
  vmem_error e;
  if (vmem_hlo_instruction_scoped(in, &sc, &e) != VMEM_OK)
    return w->opt->scoped_limit_bytes;
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
  vmem_kernel_free(k);
  return limit;
}

/* Records step t's reservation, growing the per-step arrays. */
static bool reserve_step(walk *w, const vmem_hlo_instruction *in) {
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

static bool run(walk *w, const vmem_hlo_computation *c, unsigned depth);

/* The computations an instruction's schedule inlines before it. */
static bool inline_called(walk *w, const vmem_hlo_instruction *in, unsigned depth) {
  static const char *const inlining[] = {"call", "conditional", "while", NULL};
  if (in->kind != HLO_KIND_CALLS || !opcode_in(in, inlining))
    return true;
  for (uint32_t k = 0; k < in->ncalled; k++) /* while: condition=, body= in text order */
    if (!run(w, in->called[k], depth + 1))
      return false;
  return true;
}

static bool run(walk *w, const vmem_hlo_computation *c, unsigned depth) {
  if (depth > MAX_NEST) {
    err_set(w->err, VMEM_ERR_RANGE, c->offset, "calls nested more than %d deep", MAX_NEST);
    return false;
  }
  int64_t span_start = w->t; /* parameters start where their computation does */
  for (uint32_t i = 0; i < c->ninstrs; i++) {
    const vmem_hlo_instruction *in = c->instrs[i];
    if (!inline_called(w, in, depth))
      return false;
    for (uint32_t k = 0; k < in->noperands; k++)
      use(w, in->operands[k], 0);
    size_t x = index_of(w, in);
    if (w->start[x] < 0)
      w->start[x] = in->kind == HLO_KIND_PARAMETER ? span_start : w->t;
    if (w->end[x] < w->t)
      w->end[x] = w->t;
    if (!reserve_step(w, in))
      return false;
    w->t++;
  }
  return true;
}

/* Appends the S(1) leaves of one instruction's laid-out shape. */
static bool add_leaves(vmem_program *p, size_t *cap, const vmem_hlo_instruction *in, const vmem_shape *s,
                       size_t *leaf, int64_t start, int64_t end, const vmem_allocator *alloc, vmem_error *err) {
  if (s->tuple) {
    for (size_t k = 0; k < vmem_shape_tuple_count(s); k++)
      if (!add_leaves(p, cap, in, vmem_shape_tuple_at(s, k), leaf, start, end, alloc, err))
        return false;
    return true;
  }
  size_t here = (*leaf)++;
  vmem_size z;
  vmem_error serr;
  if (vmem_shape_memory_space(s) != 1 || vmem_shape_size(s, &z, &serr) != VMEM_OK)
    return true; /* not in VMEM, or not sizeable (an unbounded dimension) */
  if (p->count == *cap) {
    size_t ncap = *cap ? 2 * *cap : 16;
    vmem_program_buffer *grown = vmem__alloc(alloc, ncap * sizeof *grown);
    if (!grown) {
      err_set(err, VMEM_ERR_NOMEM, 0, "out of memory");
      return false;
    }
    if (p->count)
      memcpy(grown, p->buffers, p->count * sizeof *grown);
    vmem__free(alloc, p->buffers);
    p->buffers = grown;
    *cap = ncap;
  }
  p->buffers[p->count++] = (vmem_program_buffer){in, here, z.bytes, z.unpadded_bytes, start, end, 0};
  return true;
}

/* The values: each defining instruction's S(1) leaves with its range;
 * entry parameters and the entry root's values live to the end. */
static bool collect(walk *w, const vmem_target *t, vmem_program *p, const vmem_allocator *alloc) {
  size_t cap = 0;
  for (size_t i = 0; i < w->n; i++) {
    const vmem_hlo_instruction *in = w->by_ptr[i];
    if (w->start[i] < 0 || !defines(in))
      continue; /* not in the schedule (a fusion body, an applied computation), or forwarding */
    int64_t end = w->end[i];
    bool live_out = in->parent->is_entry && (in->kind == HLO_KIND_PARAMETER || in == in->parent->root);
    if (live_out)
      end = w->t;
    vmem_shape *laid = vmem_shape_with_tpu_layout(in->shape, t, alloc, w->err);
    if (!laid)
      return false;
    size_t leaf = 0;
    bool ok = add_leaves(p, &cap, in, laid, &leaf, w->start[i], end, alloc, w->err);
    vmem_shape_free(laid);
    if (!ok)
      return false;
  }
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

/* Packs the values alone (peak_bytes), then again with each value kept
 * above the scoped reservations at offset 0 during its life (used_bytes;
 * the offsets reported). A reservation spans one step, so the space it
 * takes from a value is [0, the largest over the value's range). */
static vmem_status pack(vmem_program *p, const walk *w, uint64_t alignment, vmem_error *err) {
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
  vmem_status st = vmem_heap_pack(hb, p->count, alignment, &r, w->alloc, err);
  p->peak_bytes = r.heap_bytes;
  p->lower_bound_bytes = r.lower_bound_bytes;
  p->peak_time = r.peak_time;
  for (size_t i = 0; i < p->count; i++) {
    const vmem_program_buffer *b = &p->buffers[i];
    size_t hi = (size_t)b->end < steps ? (size_t)b->end : steps - 1; /* live-out values end at `steps` */
    hb[i] = (vmem_heap_buffer){b->bytes, b->start, b->end, 0,
                               steps ? range_max(tree, steps, (size_t)b->start, hi) : 0};
  }
  if (st == VMEM_OK && (st = vmem_heap_pack(hb, p->count, alignment, &r, w->alloc, err)) == VMEM_OK) {
    p->used_bytes = r.heap_bytes > p->scoped_reservation_bytes ? r.heap_bytes : p->scoped_reservation_bytes;
    for (size_t i = 0; i < p->count; i++)
      p->buffers[i].offset = hb[i].offset;
  }
  vmem__free(w->alloc, hb);
  vmem__free(w->alloc, tree);
  return st;
}

vmem_status vmem_hlo_program_vmem(const vmem_hlo_module *m, const vmem_target *t, const vmem_program_options *opt,
                                  vmem_program *out, const vmem_allocator *alloc, vmem_error *err) {
  static const vmem_program_options none = {0, 0, false};
  err_clear(err);
  memset(out, 0, sizeof *out);
  out->alloc = alloc;
  out->scheduled = m->is_scheduled;
  out->capacity_bytes = vmem_target_u64(t, VMEM_FACT_VMEM_BYTES);
  walk w = {m, NULL, m->total_instrs, NULL, NULL, NULL, 0, err, t, opt ? opt : &none, alloc, NULL, NULL, 0};
  size_t room = w.n ? w.n : 1;
  w.by_ptr = vmem__alloc(alloc, room * sizeof *w.by_ptr);
  w.start = vmem__alloc(alloc, room * sizeof *w.start);
  w.end = vmem__alloc(alloc, room * sizeof *w.end);
  w.visited = vmem__alloc(alloc, room * sizeof *w.visited);
  vmem_status st = VMEM_OK;
  if (!w.by_ptr || !w.start || !w.end || !w.visited) {
    err_set(err, VMEM_ERR_NOMEM, 0, "out of memory");
    st = VMEM_ERR_NOMEM;
  } else {
    size_t k = 0;
    for (uint32_t c = 0; c < m->ncomps; c++)
      for (uint32_t i = 0; i < m->comps[c]->ninstrs && k < w.n; i++)
        w.by_ptr[k++] = m->comps[c]->instrs[i];
    w.n = k;
    qsort(w.by_ptr, w.n, sizeof *w.by_ptr, by_address);
    for (size_t i = 0; i < w.n; i++)
      w.start[i] = w.end[i] = w.visited[i] = -1;
    if (!m->entry)
      err_set(err, VMEM_ERR_SYNTAX, 0, "the module has no entry computation");
    if (!m->entry || !run(&w, m->entry, 0) || !collect(&w, t, out, alloc))
      st = err->code;
  }
  out->schedule_length = w.t;
  if (st == VMEM_OK) {
    if (out->count) /* buffers is NULL when no value is in S(1) */
      qsort(out->buffers, out->count, sizeof *out->buffers, by_start);
    st = pack(out, &w, w.opt->alignment ? w.opt->alignment : 1, err);
  }
  vmem__free(alloc, w.by_ptr);
  vmem__free(alloc, w.start);
  vmem__free(alloc, w.end);
  vmem__free(alloc, w.visited);
  vmem__free(alloc, w.resv);
  vmem__free(alloc, w.resv_in);
  if (st != VMEM_OK)
    vmem_program_free(out);
  return st;
}

void vmem_program_free(vmem_program *p) {
  if (p && p->buffers) {
    vmem__free(p->alloc, p->buffers);
    p->buffers = NULL;
    p->count = 0;
  }
}
