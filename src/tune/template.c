/*
 * template.c — a kernel compiled for fast evaluation of block-size
 * assignments: exact scoped bytes and a roofline time, with no allocation
 * per evaluation (docs/cost-model.md).
 *
 * The padded size of a block is computed here from its dims directly, by
 * the same rules as tiling.c + shape_size.c for default layouts (the rows
 * of the second-minor tile come from tiling_rows_for, the one rule); a
 * test checks every evaluation against vmem_kernel_footprint.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../scoped/scoped.h"

enum { MAX_OPS = 64, MAX_PARAMS = 16, MAX_TERMS = 8, MAX_VALUES = 16, MAX_LIVE = 64 };
#define DEFAULT_STEP_OVERHEAD_S 0.35e-6

typedef struct tpl_operand {
  vmem_operand_role role;
  vmem_memory_space space;
  int buffers;
  bool internal;   /* scratch: Mosaic lays it out */
  int tile_bits;   /* tiling_storage_bits */
  int elem_bytes;  /* byte width when not packed */
  int packed_bits; /* sub-byte types: stored packed, E(bits) */
  size_t rank;
  int64_t dims[VMEM_KERNEL_MAX_RANK];
  int param[VMEM_KERNEL_MAX_RANK];
  int index_axis[VMEM_KERNEL_MAX_RANK];
  bool has_array;
  int64_t array[VMEM_KERNEL_MAX_RANK];
  int elem_bytes_hbm;    /* for transfers: unpadded bytes per element */
  bool auto_buffers;     /* one buffer when its block never moves over the candidate's grid (MLIR's rule) */
  bool prefetch;         /* copied whole into VMEM before the kernel (footprint.c's prefetch_plan) */
  bool forward;          /* scratch written whole before it is read, every step (src/mosaic/forward.c) ... */
  unsigned forward_axes; /* ... while these grid axes have extent 1: then no buffer, its bytes in the ceiling */
} tpl_operand;

/* flops_per_step ::= term ('+' term)*    term ::= factor ('*' factor)*
 * factor ::= integer | parameter name */
typedef struct tpl_term {
  double coef;
  int nparams;
  int params[MAX_PARAMS];
} tpl_term;

struct vmem_template {
  vmem_allocator alloc;
  const vmem_target *t;
  size_t nops, nparams, grid_rank;
  tpl_operand ops[MAX_OPS];
  const char *param_names[MAX_PARAMS];
  int64_t grid[VMEM_KERNEL_MAX_RANK];
  int grid_param[VMEM_KERNEL_MAX_RANK];
  bool parallel[VMEM_KERNEL_MAX_RANK];
  uint64_t internal_scratch;
  double bw_per_core, peak_per_core, overhead, flops_total;
  vmem_flops_source flops_source;
  bool megacore;
  int cores;
  size_t nterms;
  tpl_term terms[MAX_TERMS];
  size_t nchoices;
  size_t choice_op[MAX_OPS];        /* operands whose buffer count may be 1 or 2 */
  int64_t param_values[MAX_PARAMS]; /* as the kernel gives them */
  bool any_auto;                    /* some operand's buffers follow the candidate's grid */
  size_t nvalues;
  tpl_operand values[MAX_VALUES]; /* the body's values at their peak, laid out as scratch is */
  const kernel_modelled *value_src[MAX_VALUES];
  size_t nhighs; /* the values at the peak of their ceilings (src/scoped/body_model.c) */
  tpl_operand highs[MAX_VALUES];
  const kernel_modelled *high_src[MAX_VALUES];
  size_t nlives; /* the computed values live at once (VALUE_LIVE): the ceiling of unrolled copies */
  tpl_operand lives[MAX_LIVE];
  kernel_body_facts facts;       /* the kernel's, for the estimate's copies and the ceiling */
  uint64_t array_bytes[MAX_OPS]; /* whole array in VMEM, when colored; 0 = cannot */
};

static bool padded_bytes(const vmem_template *tpl, const tpl_operand *o, const int64_t *dims, uint64_t *out);
static int64_t dim_of(const tpl_operand *o, size_t d, const int64_t *values);

static vmem_status tpl_fail(vmem_error *err, vmem_status code, const char *msg) {
  err_set(err, code, 0, "%s", msg);
  return code;
}

/* Parses flops_per_step into terms. */
static vmem_status parse_flops(vmem_template *t, const vmem_kernel *k, const char *e, vmem_error *err) {
  tpl_term *cur = &t->terms[0];
  t->nterms = 1;
  cur->coef = 1;
  for (const char *p = e; *p;) {
    while (*p == ' ')
      p++;
    if (ch_is_digit(*p)) {
      double v = 0;
      while (ch_is_digit(*p))
        v = v * 10 + (*p++ - '0');
      cur->coef *= v;
    } else {
      const char *b = p;
      while (*p && *p != '*' && *p != '+' && *p != ' ')
        p++;
      int found = -1;
      for (size_t i = 0; i < k->nparams && found < 0; i++)
        if (strlen(k->params[i].name) == (size_t)(p - b) && !memcmp(k->params[i].name, b, (size_t)(p - b)))
          found = (int)i;
      if (found < 0 || cur->nparams == MAX_PARAMS)
        return tpl_fail(err, VMEM_ERR_UNKNOWN, "flops_per_step: a name that is not a parameter");
      cur->params[cur->nparams++] = found;
    }
    while (*p == ' ')
      p++;
    if (*p == '*') {
      p++;
    } else if (*p == '+') {
      p++;
      if (t->nterms == MAX_TERMS)
        return tpl_fail(err, VMEM_ERR_RANGE, "flops_per_step: more than 8 terms");
      cur = &t->terms[t->nterms++];
      cur->coef = 1;
    } else if (*p) {
      return tpl_fail(err, VMEM_ERR_SYNTAX, "flops_per_step: expected '*' or '+'");
    }
  }
  return VMEM_OK;
}

static void compile_operand(tpl_operand *o, const kernel_operand *ko) {
  const vmem_operand *p = &ko->pub;
  memset(o, 0, sizeof *o);
  o->role = p->role;
  o->space = p->space;
  o->buffers = p->role == VMEM_ROLE_SCRATCH ? 1 : p->buffers;
  o->internal = p->role == VMEM_ROLE_SCRATCH;
  o->forward = p->role == VMEM_ROLE_SCRATCH && ko->written_first;
  o->forward_axes = ko->written_axes;
  if (!p->block)
    return;
  vmem_dtype dt = p->block->dtype;
  o->tile_bits = tiling_storage_bits(dt);
  o->elem_bytes = vmem_dtype_bytes(dt);
  o->packed_bits = vmem_dtype_bits(dt) < 8 && dt != VMEM_PRED ? vmem_dtype_bits(dt) : 0;
  o->elem_bytes_hbm = o->elem_bytes;
  o->rank = p->rank;
  for (size_t d = 0; d < p->rank; d++) {
    o->dims[d] = p->block->dims[d];
    o->param[d] = ko->pub.block_param[d];
    o->index_axis[d] = p->index_axis[d];
  }
  o->has_array = p->array != NULL;
  for (size_t d = 0; o->has_array && d < p->rank; d++)
    o->array[d] = p->array->dims[d];
}

/* A body value laid out as Mosaic lays out its own buffers (as scratch),
 * each dim following the parameter it follows. */
static void compile_value(tpl_operand *o, const kernel_modelled *m) {
  kernel_operand ko = {
      .pub = {.role = VMEM_ROLE_SCRATCH, .space = VMEM_SPACE_VMEM, .block = m->shape, .rank = m->shape->rank}};
  for (size_t d = 0; d < ko.pub.rank && d < VMEM_KERNEL_MAX_RANK; d++)
    ko.pub.block_param[d] = m->param[d];
  compile_operand(o, &ko);
}

/* The body's values that the planner charges at the kernel's own blocks
 * (its peak), compiled so that each dim that follows a parameter scales
 * with it; the set is kept as the blocks change (modelled: the peak could
 * move to other lines). */
static vmem_status compile_values(vmem_template *tpl, const vmem_kernel *k, const vmem_target *t, vmem_error *err) {
  tpl->facts = k->facts; /* a body with no values still reduces (the spill margin) or has some it cannot size */
  if (!k->nmodelled)
    return VMEM_OK;
  uint64_t *charge = vmem__alloc(&tpl->alloc, k->nmodelled * sizeof *charge);
  size_t *members = vmem__alloc(&tpl->alloc, k->nmodelled * sizeof *members);
  tpl_operand *all = vmem__alloc(&tpl->alloc, k->nmodelled * sizeof *all);
  size_t n = 0;
  bool ok = charge && members && all, sized = true;
  for (size_t m = 0; ok && sized && m < k->nmodelled; m++) {
    const kernel_modelled *v = &k->modelled[m];
    compile_value(&all[m], v);
    uint64_t b;
    sized = padded_bytes(tpl, &all[m], all[m].dims, &b); /* false: past 64 bits, as check's footprint refuses */
    charge[m] = sized ? scoped_body_charge(v, t, v->contracted, v->columns, b) : 0;
  }
  if (!sized) {
    vmem__free(&tpl->alloc, charge);
    vmem__free(&tpl->alloc, members);
    vmem__free(&tpl->alloc, all);
    return tpl_fail(err, VMEM_ERR_OVERFLOW, "a body value's size does not fit in 64 bits");
  }
  ok = ok && scoped_body_peak(k, charge, false, members, MAX_VALUES, &n);
  for (size_t i = 0; ok && i < n; i++) {
    tpl->values[tpl->nvalues] = all[members[i]];
    tpl->value_src[tpl->nvalues++] = &k->modelled[members[i]];
  }
  /* the ceiling's: its own peak's values at their ceilings, and the live ones */
  for (size_t m = 0; ok && m < k->nmodelled; m++) {
    uint64_t b;
    charge[m] = padded_bytes(tpl, &all[m], all[m].dims, &b) ? scoped_body_ceiling(&k->modelled[m], t, b, charge[m]) : 0;
    if (k->modelled[m].kind == VALUE_LIVE && tpl->nlives < MAX_LIVE)
      tpl->lives[tpl->nlives++] = all[m];
  }
  ok = ok && scoped_body_peak(k, charge, true, members, MAX_VALUES, &n);
  for (size_t i = 0; ok && i < n; i++) {
    tpl->highs[tpl->nhighs] = all[members[i]];
    tpl->high_src[tpl->nhighs++] = &k->modelled[members[i]];
  }
  vmem__free(&tpl->alloc, charge);
  vmem__free(&tpl->alloc, members);
  vmem__free(&tpl->alloc, all);
  return ok ? VMEM_OK : tpl_fail(err, VMEM_ERR_NOMEM, "out of memory");
}

/* One body value at these parameter values: its estimate (or, `high`, its
 * ceiling); a value with no src (a live one) at its padded bytes. */
static uint64_t value_bytes(const vmem_template *tpl, const tpl_operand *o, const kernel_modelled *m,
                            const int64_t *values, bool high) {
  int64_t dims[VMEM_KERNEL_MAX_RANK];
  uint64_t b;
  for (size_t d = 0; d < o->rank; d++)
    dims[d] = dim_of(o, d, values);
  if (!padded_bytes(tpl, o, dims, &b))
    return 0;
  if (!m)
    return b;
  int64_t kk = m->contracted_param >= 0 ? values[m->contracted_param] : m->contracted;
  int64_t nn = m->columns_param >= 0 ? values[m->columns_param] : m->columns;
  uint64_t charge = scoped_body_charge(m, tpl->t, kk, nn, b);
  return high ? scoped_body_ceiling(m, tpl->t, b, charge) : charge;
}

/* The sum of n body values at these parameter values (saturating). */
static uint64_t sum_values(const vmem_template *tpl, const tpl_operand *o, const kernel_modelled *const *src, size_t n,
                           const int64_t *values, bool high) {
  uint64_t sum = 0;
  for (size_t i = 0; i < n; i++)
    if (!ck_add(sum, value_bytes(tpl, &o[i], src ? src[i] : NULL, values, high), &sum))
      return UINT64_MAX;
  return sum;
}

/* The body's values at these parameter values (`live`: the bytes of its
 * live values there): the swept peak's, or an unrolled body's copies,
 * whichever is more (as check's footprint). */
static uint64_t values_bytes(const vmem_template *tpl, const int64_t *values, uint64_t live) {
  uint64_t swept = sum_values(tpl, tpl->values, tpl->value_src, tpl->nvalues, values, false);
  uint64_t unrolled = scoped_unrolled_estimate(tpl->facts.unrolled, live, tpl->t);
  return unrolled > swept ? unrolled : swept;
}

/* Their ceiling at these parameter values, as check's footprint takes it. */
static uint64_t ceiling_bytes(const vmem_template *tpl, const int64_t *values, uint64_t live, uint64_t estimate) {
  uint64_t peak = sum_values(tpl, tpl->highs, tpl->high_src, tpl->nhighs, values, true);
  return scoped_ceiling_total(&tpl->facts, tpl->t, peak, live, estimate);
}

static double fact(const vmem_target *t, vmem_fact_id id) {
  const vmem_fact *f = vmem_target_fact(t, id);
  return f ? f->value : 0;
}

/* Peak FLOP/s per chip for the kernel's compute dtype (its first input's). */
static double peak_for(const vmem_kernel *k, const vmem_target *t) {
  vmem_dtype dt = VMEM_BF16;
  for (size_t i = 0; i < k->nops; i++)
    if (k->ops[i].pub.role == VMEM_ROLE_INPUT && k->ops[i].pub.block) {
      dt = k->ops[i].pub.block->dtype;
      break;
    }
  double bf16 = fact(t, VMEM_FACT_BF16_FLOPS);
  if ((dt == VMEM_S8 || dt == VMEM_U8 || dt == VMEM_S4 || dt == VMEM_U4) && fact(t, VMEM_FACT_INT8_OPS) > 0)
    return fact(t, VMEM_FACT_INT8_OPS);
  if (vmem_dtype_bits(dt) == 8 && fact(t, VMEM_FACT_FP8_FLOPS) > 0)
    return fact(t, VMEM_FACT_FP8_FLOPS);
  return bf16; /* f32 runs on the MXU in several passes: no public figure, bf16's is used */
}

/* The product of the kernel's own grid bounds (a dynamic bound counts 1). */
static double own_steps(const vmem_kernel *k) {
  double s = 1;
  for (size_t g = 0; g < k->grid_rank; g++)
    s *= k->grid[g] > 0 ? (double)k->grid[g] : 1;
  return s;
}

/* The total FLOPs, first found of: the caller's option, the spec's "flops"
 * or the custom call's cost_estimate, the spec's flops_per_step (-1: the
 * terms are summed per evaluation), and the body's per-step count over the
 * kernel's own grid. The last is kept as a total when fit changes blocks:
 * for a kernel whose work is its iteration space (a matmul's 2·M·N·K) the
 * total does not depend on how it is tiled. */
static double kernel_total_flops(const vmem_kernel *k, const vmem_cost_options *cost, vmem_flops_source *src) {
  if (cost && cost->flops > 0)
    return *src = VMEM_FLOPS_OPTION, cost->flops;
  if (k->flops >= 0 || k->flops_per_step)
    return *src = VMEM_FLOPS_GIVEN, k->flops_per_step ? -1 : k->flops;
  if (k->body_known)
    return *src = VMEM_FLOPS_BODY, k->body_flops * own_steps(k);
  return *src = VMEM_FLOPS_NONE, -1;
}

/* Which operands are in VMEM whole (prefetch.c's rule: 7x's copies of the
 * inputs, or S(1) in a compiled module), on the template's arrays, which no
 * candidate changes. */
static void plan_prefetch(vmem_template *tpl, const vmem_kernel *k, const vmem_plan_options *plan) {
  uint64_t bytes[MAX_OPS] = {0}, b;
  bool copied[MAX_OPS];
  for (size_t i = 0; i < tpl->nops; i++) {
    const tpl_operand *o = &tpl->ops[i];
    if (scoped_io(o->role) && o->has_array && o->tile_bits && padded_bytes(tpl, o, o->array, &b))
      bytes[i] = b;
  }
  scoped_prefetch(k, tpl->t, scoped_limit(k, tpl->t, plan), bytes, copied);
  for (size_t i = 0; i < tpl->nops; i++)
    tpl->ops[i].prefetch = copied[i];
}

vmem_template *vmem_template_new(const vmem_kernel *k, const vmem_target *t, const vmem_plan_options *plan,
                                 const vmem_cost_options *cost, const vmem_allocator *alloc, vmem_error *err) {
  err_clear(err);
  if (!k || !t) {
    err_set(err, VMEM_ERR_ARGUMENT, 0, "no kernel or no target");
    return NULL;
  }
  if (k->nops > MAX_OPS || k->nparams > MAX_PARAMS) {
    err_set(err, VMEM_ERR_RANGE, 0, "a template holds at most 64 operands and 16 parameters");
    return NULL;
  }
  vmem_template *tpl = vmem__alloc(alloc, sizeof *tpl);
  if (!tpl) {
    err_set(err, VMEM_ERR_NOMEM, 0, "out of memory");
    return NULL;
  }
  memset(tpl, 0, sizeof *tpl);
  if (alloc)
    tpl->alloc = *alloc;
  tpl->t = t;
  tpl->nops = k->nops;
  for (size_t i = 0; i < k->nops; i++) {
    compile_operand(&tpl->ops[i], &k->ops[i]);
    const vmem_operand *o = &k->ops[i].pub;
    if (o->block && o->space == VMEM_SPACE_VMEM && !o->buffers_given && o->buffers > 0 && scoped_io(o->role)) {
      tpl->ops[i].auto_buffers = tpl->any_auto = true; /* the rule decides per candidate grid (never_moving) */
      tpl->ops[i].buffers = 2;
    }
  }
  for (size_t i = 0; i < k->nops; i++) {
    const vmem_operand *o = &k->ops[i].pub;
    if (o->role == VMEM_ROLE_INPUT && o->space == VMEM_SPACE_VMEM && o->buffers == 2 && !o->buffers_given)
      tpl->choice_op[tpl->nchoices++] = i;
  }
  for (size_t j = 0; j < tpl->nchoices; j++) {
    const tpl_operand *o = &tpl->ops[tpl->choice_op[j]];
    uint64_t b;
    tpl->array_bytes[j] = o->has_array && o->tile_bits && padded_bytes(tpl, o, o->array, &b) ? b : 0;
  }
  plan_prefetch(tpl, k, plan);
  tpl->nparams = k->nparams;
  for (size_t i = 0; i < k->nparams; i++) {
    tpl->param_names[i] = k->params[i].name;
    tpl->param_values[i] = k->params[i].value;
  }
  tpl->grid_rank = k->grid_rank;
  for (size_t g = 0; g < k->grid_rank; g++) {
    tpl->grid[g] = k->grid_derived[g] ? 0 : k->grid[g];
    tpl->grid_param[g] = k->grid_param[g];
    tpl->parallel[g] = k->semantics[g] && !strcmp(k->semantics[g], "parallel");
  }
  int64_t is = plan && plan->internal_scratch >= 0 ? plan->internal_scratch
               : k->internal_scratch >= 0          ? k->internal_scratch
                                                   : (int64_t)vmem_target_u64(t, VMEM_FACT_INTERNAL_SCRATCH_BYTES);
  tpl->internal_scratch = (uint64_t)is;
  tpl->cores = (int)fact(t, VMEM_FACT_CORES_PER_CHIP);
  if (tpl->cores < 1)
    tpl->cores = 1;
  tpl->megacore = fact(t, VMEM_FACT_MEGACORE) != 0;
  tpl->bw_per_core = fact(t, VMEM_FACT_HBM_BYTES_PER_S) / tpl->cores;
  tpl->peak_per_core = peak_for(k, t) / tpl->cores;
  tpl->overhead = cost && cost->step_overhead_s >= 0 ? cost->step_overhead_s : DEFAULT_STEP_OVERHEAD_S;
  tpl->flops_total = kernel_total_flops(k, cost, &tpl->flops_source);
  if ((k->flops_per_step && parse_flops(tpl, k, k->flops_per_step, err) != VMEM_OK) ||
      compile_values(tpl, k, t, err) != VMEM_OK) {
    vmem_template_free(tpl);
    return NULL;
  }
  return tpl;
}

void vmem_template_free(vmem_template *tpl) {
  if (tpl)
    vmem__free(&tpl->alloc, tpl);
}

size_t vmem_template_param_count(const vmem_template *tpl) { return tpl ? tpl->nparams : 0; }
const char *vmem_template_param_name(const vmem_template *tpl, size_t i) {
  return tpl && i < tpl->nparams ? tpl->param_names[i] : NULL;
}

/* ---- evaluation --------------------------------------------------------- */

static int64_t dim_of(const tpl_operand *o, size_t d, const int64_t *values) {
  return o->param[d] >= 0 ? values[o->param[d]] : o->dims[d];
}

/* The padded bytes of one buffer, as tiling.c + ArraySize give them;
 * false when they do not fit in 63 bits (the candidate is then not legal). */
static bool padded_bytes(const vmem_template *tpl, const tpl_operand *o, const int64_t *dims, uint64_t *out) {
  uint64_t n;
  int b = o->tile_bits;
  if (o->rank == 0) {
    n = (uint64_t)(4096 / b);
  } else if (o->rank == 1) {
    uint64_t N = (uint64_t)dims[0];
    uint64_t t = (uint64_t)tiling_rows_for((N + 127) / 128, b, tpl->t, true, o->internal) * 128;
    if (!ck_round_up(N, t, &n))
      return false;
  } else {
    uint64_t R = (uint64_t)dims[o->rank - 2], r, c;
    if (!ck_round_up(R, (uint64_t)tiling_rows_for(R, b, tpl->t, false, o->internal), &r) ||
        !ck_round_up((uint64_t)dims[o->rank - 1], 128, &c) || !ck_mul(r, c, &n))
      return false;
    for (size_t d = 0; d + 2 < o->rank; d++)
      if (!ck_mul(n, (uint64_t)dims[d], &n))
        return false;
  }
  if (o->packed_bits) {
    if (!ck_mul(n, (uint64_t)o->packed_bits, &n))
      return false;
    n = (n + 7) / 8;
  } else if (!ck_mul(n, (uint64_t)o->elem_bytes, &n)) {
    return false;
  }
  *out = n;
  return n <= (uint64_t)INT64_MAX;
}

static bool legal_dim(const tpl_operand *o, size_t d, int64_t v) {
  if (v < 1 || (o->has_array && v > o->array[d]))
    return false;
  if (o->space != VMEM_SPACE_VMEM || o->role == VMEM_ROLE_SCRATCH || !o->has_array)
    return true;
  if (v == o->array[d])
    return true;
  if (o->rank == 1) {
    int64_t min = 128 * 32 / (o->tile_bits ? o->tile_bits : 32);
    return v % 1024 == 0 || ((v & (v - 1)) == 0 && v >= min);
  }
  if (d == o->rank - 1)
    return v % 128 == 0;
  if (d == o->rank - 2)
    return v % 8 == 0;
  return true;
}

/* Blocks fetched over the grid run in order pos (pos[a]: axis a's
 * position, outermost 0): a block moves when an axis it follows changes, so
 * the count is the product of the bounds of the axes up to the innermost
 * followed one that takes more than one value. */
static double fetches(const vmem_template *tpl, const tpl_operand *o, const int64_t *grid, const int *pos,
                      double steps) {
  int inner = -1;
  for (size_t d = 0; d < o->rank; d++) {
    int a = o->index_axis[d];
    if (a == VMEM_INDEX_UNKNOWN)
      return steps;
    if (a >= 0 && grid[a] > 1 && pos[a] > inner)
      inner = pos[a];
  }
  double f = 1;
  for (size_t a = 0; a < tpl->grid_rank; a++)
    if (pos[a] <= inner)
      f *= (double)grid[a];
  return f;
}

size_t vmem_template_grid_rank(const vmem_template *tpl) { return tpl ? tpl->grid_rank : 0; }

bool vmem_template_axis_reorderable(const vmem_template *tpl, size_t g) {
  if (!tpl || g >= tpl->grid_rank)
    return false;
  bool any = false;
  for (size_t i = 0; i < tpl->nops; i++) {
    const tpl_operand *o = &tpl->ops[i];
    if (o->role != VMEM_ROLE_OUTPUT)
      continue;
    bool follows = false;
    for (size_t d = 0; d < o->rank; d++)
      follows = follows || o->index_axis[d] == (int)g;
    if (!follows)
      return false;
    any = true;
  }
  return any;
}

/* pos[a] for the order (the kernel's when NULL); false when the order is no
 * permutation or moves an axis that must keep its place. */
static bool order_positions(const vmem_template *tpl, const int *order, int *pos) {
  for (size_t a = 0; a < tpl->grid_rank; a++)
    pos[a] = order ? -1 : (int)a;
  for (size_t p = 0; order && p < tpl->grid_rank; p++) {
    int a = order[p];
    if (a < 0 || (size_t)a >= tpl->grid_rank || pos[a] >= 0)
      return false;
    if ((size_t)a != p && !vmem_template_axis_reorderable(tpl, (size_t)a))
      return false;
    pos[a] = (int)p;
  }
  return true;
}

/* covered / valid iteration space: over each grid axis, grid · block
 * against the array dim of the first operand dim the axis drives. */
static double overhang(const vmem_template *tpl, const int64_t *grid, const int64_t (*dims)[VMEM_KERNEL_MAX_RANK]) {
  double r = 1;
  for (size_t g = 0; g < tpl->grid_rank; g++) {
    bool done = false;
    for (size_t i = 0; i < tpl->nops && !done; i++)
      for (size_t d = 0; d < tpl->ops[i].rank && !done; d++)
        if (tpl->ops[i].index_axis[d] == (int)g && tpl->ops[i].has_array && tpl->ops[i].array[d] > 0) {
          double covered = (double)grid[g] * (double)dims[i][d];
          if (covered > (double)tpl->ops[i].array[d])
            r *= covered / (double)tpl->ops[i].array[d];
          done = true;
        }
  }
  return r;
}

int64_t vmem_template_param_value(const vmem_template *tpl, size_t i) {
  return tpl && i < tpl->nparams ? tpl->param_values[i] : 0;
}

size_t vmem_template_buffer_choices(const vmem_template *tpl) { return tpl ? tpl->nchoices : 0; }
size_t vmem_template_buffer_choice_operand(const vmem_template *tpl, size_t j) {
  if (!tpl)
    return 0;
  return j < tpl->nchoices ? tpl->choice_op[j] : SIZE_MAX;
}

void vmem_template_eval(const vmem_template *tpl, const int64_t *values, vmem_eval *out) {
  if (!tpl)
    return;
  vmem_template_eval_buffers(tpl, values, NULL, out);
}

/* One evaluation's working state, on the caller's stack. */
typedef struct eval_ctx {
  int nbuf[MAX_OPS]; /* buffers per operand, as chosen */
  int64_t grid[VMEM_KERNEL_MAX_RANK];
  int64_t dims[MAX_OPS][VMEM_KERNEL_MAX_RANK]; /* each operand's block */
  double steps;
  double single_bytes;           /* transfers a single buffer cannot overlap */
  uint64_t forwarded;            /* scratch the compiler forwards at this candidate: in the ceiling only */
  int pos[VMEM_KERNEL_MAX_RANK]; /* each axis's position in the grid's order */
} eval_ctx;

/* Buffer counts: the kernel's, then the choices. 0 buffers: the input is
 * colored to VMEM, a program-scoped value the kernel reads in place ("no
 * buffer is allocated when the source already lives in the target memory
 * space"), so no window and no transfer. */
static void choose_buffers(const vmem_template *tpl, const int *buffers, eval_ctx *cx, vmem_eval *out) {
  for (size_t i = 0; i < tpl->nops; i++)
    cx->nbuf[i] = tpl->ops[i].buffers;
  for (size_t j = 0; buffers && j < tpl->nchoices; j++) {
    cx->nbuf[tpl->choice_op[j]] = buffers[j] == 0 ? 0 : buffers[j] == 1 ? 1 : 2;
    if (buffers[j] == 0 &&
        (!tpl->array_bytes[j] || !ck_add(out->program_bytes, tpl->array_bytes[j], &out->program_bytes)))
      out->legal = false;
  }
}

/* The blocks at these values, whether the rules allow them, and the grid:
 * a derived bound follows the block, ceil(array / block) of the first dim
 * the axis drives. */
static void shape_blocks(const vmem_template *tpl, const int64_t *values, eval_ctx *cx, vmem_eval *out) {
  for (size_t g = 0; g < tpl->grid_rank; g++)
    cx->grid[g] = tpl->grid_param[g] >= 0 ? values[tpl->grid_param[g]] : tpl->grid[g];
  for (size_t i = 0; i < tpl->nops; i++)
    for (size_t d = 0; d < tpl->ops[i].rank; d++) {
      const tpl_operand *o = &tpl->ops[i];
      int64_t b = cx->dims[i][d] = dim_of(o, d, values);
      if (o->param[d] >= 0 && !legal_dim(o, d, b))
        out->legal = false;
      int a = o->index_axis[d];
      if (a >= 0 && cx->grid[a] == 0 && tpl->grid_param[a] < 0 && o->has_array && b > 0)
        cx->grid[a] = o->array[d] / b + (o->array[d] % b != 0); /* ceil, without overflow near INT64_MAX */
    }
  cx->steps = 1;
  for (size_t g = 0; g < tpl->grid_rank; g++)
    cx->steps *= (double)(cx->grid[g] > 0 ? cx->grid[g] : 1);
}

/* An operand whole in VMEM (ops[i].prefetch, as
 * footprint.c's prefetch_plan decides) whose block at this candidate is one
 * contiguous run of it is read in place: no window; its array goes to
 * program_bytes, and its one transfer from HBM to hbm_bytes. */
static bool read_in_place(const vmem_template *tpl, size_t i, const eval_ctx *cx, vmem_eval *out) {
  const tpl_operand *o = &tpl->ops[i];
  if (!o->prefetch || !scoped_contiguous(cx->dims[i], o->array, o->rank))
    return false;
  uint64_t b;
  if (!padded_bytes(tpl, o, o->array, &b) || !ck_add(out->program_bytes, b, &out->program_bytes))
    return false;
  double whole = (double)o->elem_bytes_hbm; /* moved once, before or after the kernel */
  for (size_t d = 0; d < o->rank; d++)
    whole *= (double)o->array[d];
  out->hbm_bytes += whole;
  return true;
}

/* The kernel model's rule (kernel.c, kernel_window_never_moves) at this
 * candidate's grid: a window that never moves has one buffer; then a
 * prefetched input may be read in place (above). */
static void never_moving(const vmem_template *tpl, eval_ctx *cx, vmem_eval *out) {
  for (size_t i = 0; tpl->any_auto && i < tpl->nops; i++) {
    const tpl_operand *o = &tpl->ops[i];
    if (o->auto_buffers && cx->nbuf[i] == 2 &&
        kernel_window_never_moves(o->index_axis, o->rank, cx->grid, tpl->grid_rank))
      cx->nbuf[i] = 1;
  }
  for (size_t i = 0; i < tpl->nops; i++)
    if (cx->nbuf[i] > 0 && read_in_place(tpl, i, cx, out))
      cx->nbuf[i] = 0;
}

/* One operand's windows (exact, overflow-checked) and its HBM traffic. An
 * edge block that overhangs the array moves only its in-bounds part: over
 * a sweep, the valid share per dim is A / (ceil(A/b)·b). */
/* A scratch the compiler forwards at this candidate's grid (footprint.c's scoped_forwarded). */
static bool forwarded(const tpl_operand *o, const eval_ctx *cx) {
  if (!o->forward)
    return false;
  for (size_t a = 0; a < VMEM_KERNEL_MAX_RANK && a < 32; a++)
    if ((o->forward_axes >> a & 1u) && cx->grid[a] != 1)
      return false;
  return true;
}

static void add_operand(const vmem_template *tpl, size_t i, eval_ctx *cx, vmem_eval *out) {
  const tpl_operand *o = &tpl->ops[i];
  if (!o->tile_bits || o->space != VMEM_SPACE_VMEM || o->role == VMEM_ROLE_SCALAR_PREFETCH || cx->nbuf[i] <= 0)
    return;
  uint64_t one, all;
  if (forwarded(o, cx)) {
    if (padded_bytes(tpl, o, cx->dims[i], &one) && !ck_add(cx->forwarded, one, &cx->forwarded))
      cx->forwarded = UINT64_MAX;
    return;
  }
  if (!padded_bytes(tpl, o, cx->dims[i], &one) || !ck_mul(one, (uint64_t)cx->nbuf[i], &all) ||
      !ck_add(out->scoped_bytes, all, &out->scoped_bytes) || out->scoped_bytes > (uint64_t)INT64_MAX) {
    out->legal = false; /* a footprint past 2^63 bytes is no candidate */
    out->scoped_bytes = (uint64_t)INT64_MAX;
    return;
  }
  if (o->role == VMEM_ROLE_SCRATCH)
    return;
  double block = (double)o->elem_bytes_hbm, valid = 1;
  for (size_t d = 0; d < o->rank; d++) {
    int64_t b = cx->dims[i][d];
    block *= (double)b;
    if (o->has_array && b > 0 && o->array[d] % b)
      valid *= (double)o->array[d] / ((double)((o->array[d] + b - 1) / b) * (double)b);
  }
  if (1 - valid > out->edge_waste)
    out->edge_waste = 1 - valid;
  double moved = fetches(tpl, o, cx->grid, cx->pos, cx->steps) * block * valid;
  out->hbm_bytes += moved;
  if (cx->nbuf[i] == 1 && o->role == VMEM_ROLE_INPUT)
    cx->single_bytes += moved;
}

/* The spec's total, grown by the covered share when blocks overhang (the
 * padding is computed on too), or flops_per_step summed over the steps. */
static double kernel_flops(const vmem_template *tpl, const int64_t *values, const eval_ctx *cx, const vmem_eval *out) {
  double flops = tpl->flops_total > 0 ? tpl->flops_total : 0;
  if (flops > 0 && out->edge_waste > 0)
    flops *= overhang(tpl, cx->grid, cx->dims);
  for (size_t k = 0; tpl->flops_total < 0 && k < tpl->nterms; k++) {
    double v = tpl->terms[k].coef;
    for (int p = 0; p < tpl->terms[k].nparams; p++)
      v *= (double)values[tpl->terms[k].params[p]];
    flops += v * cx->steps;
  }
  return flops;
}

/* max(overlapped transfers, compute) + serial transfers + step overhead;
 * megacore chips split parallel axes over both cores. */
static void roofline(const vmem_template *tpl, const eval_ctx *cx, vmem_eval *out) {
  int cores = 1;
  for (size_t g = 0; g < tpl->grid_rank && tpl->megacore; g++)
    if (tpl->parallel[g] && cx->grid[g] >= 2)
      cores = tpl->cores;
  double bw = tpl->bw_per_core * cores;
  double t_mem = bw > 0 ? (out->hbm_bytes - cx->single_bytes) / bw : 0;
  double t_single = bw > 0 ? cx->single_bytes / bw : 0;
  double t_cmp = tpl->peak_per_core > 0 ? out->flops / (tpl->peak_per_core * cores) : 0;
  out->compute_bound = t_cmp > t_mem;
  out->time_s = fmax(t_mem, t_cmp) + t_single + cx->steps / cores * tpl->overhead;
  out->intensity = out->hbm_bytes > 0 ? out->flops / out->hbm_bytes : 0;
}

void vmem_template_eval_buffers(const vmem_template *tpl, const int64_t *values, const int *buffers, vmem_eval *out) {
  if (!tpl)
    return;
  vmem_template_eval_order(tpl, values, buffers, NULL, out);
}

void vmem_template_eval_order(const vmem_template *tpl, const int64_t *values, const int *buffers, const int *order,
                              vmem_eval *out) {
  if (!tpl)
    return;
  eval_ctx cx;
  cx.single_bytes = 0;
  cx.forwarded = 0;
  memset(out, 0, sizeof *out);
  out->legal = order_positions(tpl, order, cx.pos);
  choose_buffers(tpl, buffers, &cx, out);
  shape_blocks(tpl, values, &cx, out);
  never_moving(tpl, &cx, out);
  for (size_t i = 0; i < tpl->nops; i++)
    add_operand(tpl, i, &cx, out);
  /* What must fit the limit: windows, scratch and the body's values. The
   * internal scratch is not in the compiler's figure (the oracle: kernels
   * that fill the limit exactly compile), so it is left out, as check does. */
  uint64_t live = sum_values(tpl, tpl->lives, NULL, tpl->nlives, values, false); /* the estimate's and the ceiling's */
  out->modelled_bytes = tpl->nvalues || tpl->nlives ? values_bytes(tpl, values, live) : 0;
  if (!ck_add(out->scoped_bytes, out->modelled_bytes, &out->needed_bytes))
    out->needed_bytes = UINT64_MAX;
  out->modelled_high_bytes = tpl->nhighs || tpl->nlives || tpl->facts.reduces
                                 ? ceiling_bytes(tpl, values, live, out->modelled_bytes)
                                 : out->modelled_bytes;
  if (!ck_add(out->modelled_high_bytes, cx.forwarded, &out->modelled_high_bytes))
    out->modelled_high_bytes = UINT64_MAX;
  if (!ck_add(out->scoped_bytes, out->modelled_high_bytes, &out->ceiling_bytes))
    out->ceiling_bytes = UINT64_MAX;
  out->body_unread = tpl->facts.unread > 0;
  out->grid_steps = (uint64_t)cx.steps;
  out->flops = kernel_flops(tpl, values, &cx, out);
  roofline(tpl, &cx, out);
}

static bool value_ok(const vmem_template *tpl, size_t p, int64_t v) {
  for (size_t i = 0; i < tpl->nops; i++)
    for (size_t d = 0; d < tpl->ops[i].rank; d++)
      if (tpl->ops[i].param[d] == (int)p &&
          (!legal_dim(&tpl->ops[i], d, v) || (tpl->ops[i].has_array && tpl->ops[i].array[d] % v != 0)))
        return false;
  return true;
}

/* Legal for every dim it sets, dividing or not: what padding allows. */
static bool pad_ok(const vmem_template *tpl, size_t p, int64_t v) {
  for (size_t i = 0; i < tpl->nops; i++)
    for (size_t d = 0; d < tpl->ops[i].rank; d++)
      if (tpl->ops[i].param[d] == (int)p && !legal_dim(&tpl->ops[i], d, v))
        return false;
  return true;
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* With padding allowed: every size the block rules allow up to the
 * largest array dim the parameter sets, whether it divides or not, in
 * steps of 8 (the finest rule), coarsened to stay within 4096 values. */
size_t vmem_template_padded_values(const vmem_template *tpl, size_t p, int64_t *out, size_t cap) {
  if (!tpl)
    return 0;
  int64_t bound = 0;
  for (size_t i = 0; i < tpl->nops; i++)
    for (size_t d = 0; d < tpl->ops[i].rank; d++)
      if (tpl->ops[i].param[d] == (int)p && tpl->ops[i].has_array && tpl->ops[i].array[d] > bound)
        bound = tpl->ops[i].array[d];
  int64_t step = 8;
  while (bound / step > 4096)
    step *= 2;
  size_t kept = 0;
  for (int64_t v = step; v <= bound + step - 1; v += step) {
    int64_t c = v > bound ? bound : v;
    if (pad_ok(tpl, p, c)) {
      if (kept < cap)
        out[kept] = c;
      kept++;
    }
    if (c == bound)
      break;
  }
  return kept;
}

/* The divisors of the largest array dim the parameter sets, by trial
 * division up to its square root (a dim past 2^52 is tried at its powers
 * of two and itself only), kept when legal for every dim it sets. */
size_t vmem_template_default_values(const vmem_template *tpl, size_t p, int64_t *out, size_t cap) {
  if (!tpl)
    return 0;
  int64_t bound = 0;
  for (size_t i = 0; i < tpl->nops; i++)
    for (size_t d = 0; d < tpl->ops[i].rank; d++)
      if (tpl->ops[i].param[d] == (int)p && tpl->ops[i].has_array && tpl->ops[i].array[d] > bound)
        bound = tpl->ops[i].array[d];
  size_t n = 0, kept = 0;
  int64_t cand[2 * 4096];
  if (bound > ((int64_t)1 << 52)) {
    for (int64_t v = 1; v > 0 && v <= bound && n < sizeof cand / sizeof *cand; v *= 2)
      cand[n++] = v;
    cand[n++] = bound;
  } else {
    for (int64_t i = 1; i * i <= bound && n + 2 <= sizeof cand / sizeof *cand; i++)
      if (bound % i == 0) {
        cand[n++] = i;
        if (i != bound / i)
          cand[n++] = bound / i;
      }
  }
  qsort(cand, n, sizeof *cand, cmp_i64);
  for (size_t i = 0; i < n; i++)
    if ((i == 0 || cand[i] != cand[i - 1]) && value_ok(tpl, p, cand[i])) {
      if (kept < cap)
        out[kept] = cand[i];
      kept++;
    }
  return kept;
}

const char *vmem_flops_source_name(vmem_flops_source s) {
  static const char *const n[] = {"none", "option", "given", "body"};
  return (unsigned)s < sizeof n / sizeof *n ? n[s] : "none";
}

vmem_status vmem_kernel_cost(const vmem_kernel *k, const vmem_target *t, const vmem_plan_options *plan,
                             const vmem_cost_options *cost, vmem_kernel_cost_report *out, vmem_error *err) {
  if (!k || !t || !out) {
    err_set(err, VMEM_ERR_ARGUMENT, 0, "a kernel, a target and a result are needed");
    return VMEM_ERR_ARGUMENT;
  }
  memset(out, 0, sizeof *out);
  vmem_template *tpl = vmem_template_new(k, t, plan, cost, NULL, err);
  if (!tpl)
    return err ? err->code : VMEM_ERR_NOMEM;
  vmem_template_eval(tpl, tpl->param_values, &out->eval);
  out->flops_source = tpl->flops_source;
  out->transcendentals = k->body_known ? k->body_transcendentals * (double)out->eval.grid_steps : 0;
  out->body_loops = k->body_loops;
  vmem_template_free(tpl);
  return VMEM_OK;
}

size_t vmem_template_value_count(const vmem_template *tpl) { return tpl ? tpl->nvalues : 0; }

const char *vmem_template_value_note(const vmem_template *tpl, size_t i) {
  return tpl && i < tpl->nvalues ? tpl->value_src[i]->note : NULL;
}

size_t vmem_template_value_follows(const vmem_template *tpl, size_t i, const char **names, size_t cap) {
  if (!tpl)
    return 0;
  size_t n = 0;
  for (size_t d = 0; i < tpl->nvalues && d < tpl->values[i].rank; d++) {
    int p = tpl->values[i].param[d];
    if (p >= 0 && n < cap)
      names[n++] = tpl->param_names[p];
  }
  return n;
}

/* Why value v of parameter p is not legal, in the words of the Pallas block
 * rules (legal_dim); "" when it is. */
size_t vmem_template_value_rule(const vmem_template *tpl, size_t p, int64_t v, size_t *operand, char *buf, size_t cap) {
  if (!tpl)
    return 0;
  if (cap)
    buf[0] = '\0';
  for (size_t i = 0; i < tpl->nops; i++)
    for (size_t d = 0; d < tpl->ops[i].rank; d++) {
      const tpl_operand *o = &tpl->ops[i];
      if (o->param[d] != (int)p || legal_dim(o, d, v))
        continue;
      long long a = o->has_array ? (long long)o->array[d] : -1;
      *operand = i;
      if (v < 1 || (o->has_array && v > o->array[d]))
        return (size_t)snprintf(buf, cap, "dim %zu: %lld is outside 1..%lld, its array's size", d, (long long)v, a);
      if (o->rank == 1)
        return (size_t)snprintf(buf, cap,
                                "a 1-D block must be the whole array (%lld), a multiple of 1024, or a power "
                                "of two >= %d",
                                a, 128 * 32 / (o->tile_bits ? o->tile_bits : 32));
      return (size_t)snprintf(buf, cap, "dim %zu: a block's %s dim must be a multiple of %d or the whole dim (%lld)", d,
                              d == o->rank - 1 ? "last" : "second-to-last", d == o->rank - 1 ? 128 : 8, a);
    }
  return 0;
}
