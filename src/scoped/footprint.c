/*
 * footprint.c — a kernel's instruction-scoped VMEM, allocation by
 * allocation, placed by a stack allocator.
 *
 * The Pallas rules (docs/kernels.md): each blocked VMEM input and output
 * takes buffers x its padded window (2 by default; 1 for Buffered(1),
 * pipeline_mode<synchronous>, or a trivial window); ANY/HBM operands,
 * SMEM operands and semaphores take no VMEM; scratch is allocated once.
 * Windows are padded with the tiling XLA gives kernel arguments on the
 * target; scratch with the tiling Mosaic gives its own buffers. The sum of
 * windows and scratch is the exact figure the compiler prints as
 * "Scoped allocation with size X"; internal scratch and modelled values
 * follow as separate lines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scoped.h"

enum { DEFAULT_ALIGNMENT = 512 };

/* Padded and unpadded bytes of one buffer of `block` on `t`. */
static vmem_status buffer_size(arena *scratch, const vmem_shape *block, const vmem_target *t, bool internal,
                               vmem_size *out, vmem_error *err) {
  vmem_shape *c = shape_clone(scratch, block);
  if (!c) {
    err_set(err, VMEM_ERR_NOMEM, 0, "out of memory");
    return VMEM_ERR_NOMEM;
  }
  vmem_status st = tiling_apply(scratch, c, t, internal, err);
  return st != VMEM_OK ? st : shape_array_size(c, out, err);
}

static bool push(vmem_footprint *f, size_t cap, vmem_allocation a) {
  if (f->count == cap)
    return false;
  f->allocs[f->count++] = a;
  return true;
}

static bool add_mul(uint64_t *acc, uint64_t a, uint64_t b) {
  uint64_t p;
  return ck_mul(a, b, &p) && ck_add(*acc, p, acc);
}

/* The operands read or written in place (in_place[i]): in VMEM whole by
 * prefetch.c's rule, with a block that is one contiguous run of the array. */
static vmem_status prefetch_plan(arena *scratch, const vmem_kernel *k, const vmem_target *t,
                                 const vmem_plan_options *opt, bool *in_place, vmem_error *err) {
  uint64_t *bytes = arena_calloc(scratch, k->nops ? k->nops : 1, sizeof *bytes);
  bool *copied = arena_calloc(scratch, k->nops ? k->nops : 1, sizeof *copied);
  if (!bytes || !copied) {
    err_set(err, VMEM_ERR_NOMEM, 0, "out of memory");
    return VMEM_ERR_NOMEM;
  }
  for (size_t i = 0; i < k->nops; i++) {
    const vmem_operand *o = &k->ops[i].pub;
    vmem_size z;
    if (!scoped_io(o->role) || !o->block || !o->array || vmem_shape_rank(o->block) != vmem_shape_rank(o->array))
      continue;
    vmem_status st = buffer_size(scratch, o->array, t, false, &z, err);
    if (st != VMEM_OK)
      return st;
    bytes[i] = z.bytes;
  }
  scoped_prefetch(k, t, scoped_limit(k, t, opt), bytes, copied);
  for (size_t i = 0; i < k->nops; i++)
    in_place[i] = copied[i] && scoped_contiguous(k->ops[i].pub.block->dims, k->ops[i].pub.array->dims,
                                                 vmem_shape_rank(k->ops[i].pub.block));
  return VMEM_OK;
}

/* One operand's allocation, or none (ANY, semaphores, SMEM). */
static vmem_status operand_alloc(arena *scratch, const vmem_kernel *k, size_t i, bool in_place, const vmem_target *t,
                                 vmem_footprint *f, size_t cap, vmem_error *err) {
  const kernel_operand *op = &k->ops[i];
  const vmem_operand *o = &op->pub;
  if (!o->block)
    return VMEM_OK;
  vmem_size z;
  bool scratch_buf = o->role == VMEM_ROLE_SCRATCH;
  vmem_status st = buffer_size(scratch, o->block, t, scratch_buf, &z, err);
  if (st != VMEM_OK)
    return st;
  if (o->space == VMEM_SPACE_SMEM || o->role == VMEM_ROLE_SCALAR_PREFETCH) {
    if (!ck_add(f->smem_bytes, z.bytes, &f->smem_bytes))
      goto overflow;
    return VMEM_OK;
  }
  if (o->space != VMEM_SPACE_VMEM)
    return VMEM_OK;
  int n = scratch_buf ? 1 : o->buffers;
  if (n <= 0)
    return VMEM_OK;
  if (scratch_buf && scoped_forwarded(k, op)) { /* no buffer: the ceiling holds its values whole */
    vmem_allocation a = {.kind = VMEM_ALLOC_MODELLED, .operand = i, .buffers = 0, .note = op->forward_note};
    if (!ck_add(f->forwarded_bytes, z.bytes, &f->forwarded_bytes))
      goto overflow;
    push(f, cap, a);
    return VMEM_OK;
  }
  if (in_place) { /* the whole array, in VMEM before or after the kernel (prefetch_plan) */
    vmem_size whole;
    if ((st = buffer_size(scratch, o->array, t, false, &whole, err)) != VMEM_OK)
      return st;
    vmem_allocation p = {.kind = VMEM_ALLOC_PREFETCHED,
                         .operand = i,
                         .buffers = 1,
                         .bytes = whole.bytes,
                         .unpadded_bytes = whole.unpadded_bytes};
    if (!ck_add(f->prefetched_bytes, p.bytes, &f->prefetched_bytes))
      goto overflow;
    push(f, cap, p);
    return VMEM_OK;
  }
  vmem_allocation a = {.kind = scratch_buf ? VMEM_ALLOC_SCRATCH : VMEM_ALLOC_WINDOW, .operand = i, .buffers = n};
  if (!add_mul(&a.bytes, z.bytes, (uint64_t)n) || !add_mul(&a.unpadded_bytes, z.unpadded_bytes, (uint64_t)n) ||
      !ck_add(f->scoped_bytes, a.bytes, &f->scoped_bytes))
    goto overflow;
  push(f, cap, a);
  return VMEM_OK;
overflow:
  err_set(err, VMEM_ERR_OVERFLOW, op->offset, "the footprint of %s does not fit in 64 bits", o->name);
  return VMEM_ERR_OVERFLOW;
}

/* A scratch the compiler forwards (src/mosaic/forward.c): the body
 * writes it whole before any read, on every step, given the grid axes
 * whose program ids its conditions read keep extent 1. libtpu 0.0.42.1
 * allocated none for the f32 accumulator of every generated matmul with
 * one reduction step (oracle/gen, the fitting split: 68 records on v5e,
 * v6e, v5p and 7x, the figure then the windows alone or the windows and
 * the body's own values). */
bool scoped_forwarded(const vmem_kernel *k, const kernel_operand *op) {
  if (!op->written_first || op->pub.role != VMEM_ROLE_SCRATCH)
    return false;
  for (size_t a = 0; a < k->grid_rank && a < 32; a++)
    if ((op->written_axes >> a & 1u) && k->grid[a] != 1)
      return false;
  return true;
}

/* Places every allocation on the stack at an aligned offset, in order
 * (prefetched inputs are not on it: offset 0). */
static vmem_status place(vmem_footprint *f, vmem_error *err) {
  uint64_t top = 0;
  for (size_t i = 0; i < f->count; i++) {
    if (f->allocs[i].kind == VMEM_ALLOC_PREFETCHED)
      continue;
    if (!ck_round_up(top, f->alignment, &top) || !ck_add(top, f->allocs[i].bytes, &top) || top > (uint64_t)INT64_MAX) {
      err_set(err, VMEM_ERR_OVERFLOW, 0, "the stack does not fit in 64 bits");
      return VMEM_ERR_OVERFLOW;
    }
    f->allocs[i].offset = top - f->allocs[i].bytes;
  }
  f->stack_bytes = top;
  return VMEM_OK;
}

static vmem_status body_model(arena *scratch, const vmem_kernel *k, const vmem_target *t, vmem_footprint *f, size_t cap,
                              vmem_error *err) {
  f->body_values_unread = k->facts.unread;
  if (!k->nmodelled) { /* nothing to estimate; a reduction's spill margin still bounds it */
    f->modelled_high_bytes = f->modelled_rules_high_bytes = scoped_ceiling_total(&k->facts, t, 0, 0, 0);
    return VMEM_OK;
  }
  uint64_t *charge = arena_calloc(scratch, k->nmodelled, sizeof *charge);
  uint64_t *high = arena_calloc(scratch, k->nmodelled, sizeof *high), live = 0;
  uint64_t *firm = arena_calloc(scratch, k->nmodelled, sizeof *firm);
  size_t *members = arena_calloc(scratch, k->nmodelled, sizeof *members);
  if (!charge || !high || !members || !firm) {
    err_set(err, VMEM_ERR_NOMEM, 0, "out of memory");
    return VMEM_ERR_NOMEM;
  }
  for (size_t m = 0; m < k->nmodelled; m++) {
    vmem_size z;
    vmem_status st = buffer_size(scratch, k->modelled[m].shape, t, true, &z, err);
    if (st != VMEM_OK && err) { /* name the value: its note gives the body's line */
      char why[sizeof err->message];
      snprintf(why, sizeof why, "%s", err->message);
      err_set(err, st, err->offset, "body value %s: %s", k->modelled[m].note, why);
    }
    if (st != VMEM_OK)
      return st;
    charge[m] = scoped_body_charge(&k->modelled[m], t, k->modelled[m].contracted, k->modelled[m].columns, z.bytes);
    high[m] = scoped_body_ceiling(&k->modelled[m], t, z.bytes, charge[m]);
    firm[m] = scoped_rule_firm(&k->modelled[m], charge[m]) ? charge[m] : 0;
    if (k->modelled[m].kind == VALUE_LIVE && !ck_add(live, z.bytes, &live))
      live = UINT64_MAX;
  }
  size_t n;
  if (!scoped_body_peak(k, charge, false, members, k->nmodelled, &n)) {
    err_set(err, VMEM_ERR_NOMEM, 0, "out of memory");
    return VMEM_ERR_NOMEM;
  }
  uint64_t swept = 0, unrolled = scoped_unrolled_estimate(k->facts.unrolled, live, t);
  for (size_t i = 0; i < n; i++)
    swept = ck_add(swept, charge[members[i]], &swept) ? swept : UINT64_MAX;
  if (unrolled > swept) { /* the copies held at once, one line for them all */
    vmem_allocation a = {.kind = VMEM_ALLOC_MODELLED,
                         .operand = SIZE_MAX,
                         .buffers = 1,
                         .bytes = unrolled,
                         .unpadded_bytes = unrolled,
                         .note = k->facts.unrolled_note,
                         .alike = k->facts.unrolled,
                         .unrolled = true};
    if (!push(f, cap, a)) {
      err_set(err, VMEM_ERR_OVERFLOW, 0, "the body's modelled values do not fit the footprint");
      return VMEM_ERR_OVERFLOW;
    }
    f->modelled_bytes = unrolled;
    f->allocs[f->count - 1].outside_domain = !scoped_unrolled_firm(&k->facts);
    n = 0;
  }
  for (size_t i = 0; i < n; i++) {
    const kernel_modelled *m = &k->modelled[members[i]];
    vmem_allocation a = {.kind = VMEM_ALLOC_MODELLED,
                         .operand = SIZE_MAX,
                         .buffers = 1,
                         .bytes = charge[members[i]],
                         .unpadded_bytes = charge[members[i]],
                         .note = m->note,
                         .alike = m->group ? m->repeats : 1,
                         .outside_domain = charge[members[i]] && !firm[members[i]]};
    if (!push(f, cap, a) || !ck_add(f->modelled_bytes, a.bytes, &f->modelled_bytes)) {
      err_set(err, VMEM_ERR_OVERFLOW, 0, "the body's modelled values do not fit in 64 bits");
      return VMEM_ERR_OVERFLOW;
    }
  }
  uint64_t peak_high = scoped_peak_of(k, high, members);
  f->modelled_high_bytes = scoped_ceiling_total(&k->facts, t, peak_high, live, f->modelled_bytes);
  f->modelled_rules_high_bytes = scoped_ceiling_of(&k->facts, t, peak_high, live, f->modelled_bytes, false);
  uint64_t firm_peak = scoped_peak_of(k, firm, members); /* the most the rules inside their domain hold at once */
  if (unrolled > swept && scoped_unrolled_firm(&k->facts) && unrolled > firm_peak)
    firm_peak = unrolled;
  f->modelled_firm_bytes = firm_peak < f->modelled_bytes ? firm_peak : f->modelled_bytes;
  return VMEM_OK;
}

static vmem_status extras(arena *scratch, const vmem_kernel *k, const vmem_target *t, const vmem_plan_options *opt,
                          vmem_footprint *f, size_t cap, vmem_error *err) {
  int64_t is = opt && opt->internal_scratch >= 0 ? opt->internal_scratch
               : k->internal_scratch >= 0        ? k->internal_scratch
                                                 : (int64_t)vmem_target_u64(t, VMEM_FACT_INTERNAL_SCRATCH_BYTES);
  if (is > 0) {
    const char *note = opt && opt->internal_scratch >= 0 ? "internal scratch given by the caller"
                       : k->internal_scratch >= 0        ? "internal_scratch_in_bytes given by the kernel"
                                                         : "Mosaic internal scratch, the target's default";
    vmem_allocation a = {.kind = VMEM_ALLOC_INTERNAL_SCRATCH,
                         .operand = SIZE_MAX,
                         .buffers = 1,
                         .bytes = (uint64_t)is,
                         .unpadded_bytes = (uint64_t)is,
                         .note = note};
    f->internal_scratch_bytes = (uint64_t)is;
    push(f, cap, a);
  }
  if (opt && !opt->model_intermediates)
    return VMEM_OK;
  vmem_status st = body_model(scratch, k, t, f, cap, err);
  if (st == VMEM_OK && !ck_add(f->modelled_high_bytes, f->forwarded_bytes, &f->modelled_high_bytes))
    f->modelled_high_bytes = UINT64_MAX; /* a forwarded scratch's values, whole, in the ceiling */
  if (st == VMEM_OK && !ck_add(f->modelled_rules_high_bytes, f->forwarded_bytes, &f->modelled_rules_high_bytes))
    f->modelled_rules_high_bytes = UINT64_MAX;
  return st;
}

vmem_status vmem_kernel_footprint(const vmem_kernel *k, const vmem_target *t, const vmem_plan_options *opt,
                                  vmem_footprint *out, vmem_error *err) {
  if (!out) {
    err_set(err, VMEM_ERR_ARGUMENT, 0, "a result is needed");
    return VMEM_ERR_ARGUMENT;
  }
  err_clear(err);
  memset(out, 0, sizeof *out);
  if (!k || !t) {
    err_set(err, VMEM_ERR_ARGUMENT, 0, "no kernel or no target");
    return VMEM_ERR_ARGUMENT;
  }
  out->alloc = k->a.alloc;
  out->alignment = opt && opt->alignment ? opt->alignment : DEFAULT_ALIGNMENT;
  size_t cap = k->nops + k->nmodelled + 1;
  out->allocs = vmem__alloc(&out->alloc, cap * sizeof *out->allocs);
  if (!out->allocs) {
    err_set(err, VMEM_ERR_NOMEM, 0, "out of memory");
    return VMEM_ERR_NOMEM;
  }
  arena scratch;
  arena_init(&scratch, &out->alloc);
  bool *in_place = arena_calloc(&scratch, k->nops ? k->nops : 1, sizeof *in_place);
  vmem_status st = in_place ? prefetch_plan(&scratch, k, t, opt, in_place, err) : VMEM_ERR_NOMEM;
  if (!in_place)
    err_set(err, VMEM_ERR_NOMEM, 0, "out of memory");
  for (size_t i = 0; i < k->nops && st == VMEM_OK; i++)
    st = operand_alloc(&scratch, k, i, in_place[i], t, out, cap, err);
  if (st == VMEM_OK)
    st = extras(&scratch, k, t, opt, out, cap, err);
  if (st == VMEM_OK)
    st = place(out, err);
#ifdef VMEM_VERIFY /* debug builds: every footprint holds to its invariants (src/verify/verify.c) */
  if (st == VMEM_OK)
    st = vmem_footprint_check(out, err);
#endif
  arena_destroy(&scratch);
  if (st != VMEM_OK)
    vmem_footprint_free(out);
  return st;
}

void vmem_footprint_free(vmem_footprint *f) {
  if (f && f->allocs) {
    vmem__free(&f->alloc, f->allocs);
    f->allocs = NULL;
    f->count = 0;
  }
}

const char *vmem_alloc_kind_name(vmem_alloc_kind kind) {
  switch (kind) {
  case VMEM_ALLOC_WINDOW:
    return "window";
  case VMEM_ALLOC_SCRATCH:
    return "scratch";
  case VMEM_ALLOC_INTERNAL_SCRATCH:
    return "internal scratch";
  case VMEM_ALLOC_PREFETCHED:
    return "prefetched";
  default:
    return "modelled";
  }
}
