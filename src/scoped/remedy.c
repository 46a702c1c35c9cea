/*
 * remedy.c — what to change when a kernel does not fit, with numbers, in
 * the order the E1001 page gives: smaller blocks, a per-kernel limit,
 * Buffered(1), coloring, and (in the CLI) the global flag.
 */
#include <string.h>

#include "scoped.h"

/* The block dims of every operand, as a variant can change them. */
typedef struct variant {
  int64_t dims[64][VMEM_KERNEL_MAX_RANK];
} variant;

static void variant_init(const vmem_kernel *k, variant *v) {
  for (size_t i = 0; i < k->nops && i < 64; i++)
    if (k->ops[i].pub.block)
      memcpy(v->dims[i], k->ops[i].pub.block->dims, k->ops[i].pub.rank * sizeof(int64_t));
}

/* Windows + scratch of the kernel with the variant's block dims. */
static bool variant_scoped(const vmem_kernel *k, const vmem_target *t, const variant *v, uint64_t *out) {
  arena a;
  arena_init(&a, &k->a.alloc);
  uint64_t total = 0;
  bool ok = true;
  for (size_t i = 0; i < k->nops && i < 64 && ok; i++) {
    const vmem_operand *o = &k->ops[i].pub;
    bool scratch = o->role == VMEM_ROLE_SCRATCH;
    int n = scratch ? 1 : o->buffers;
    if (!o->block || o->space != VMEM_SPACE_VMEM || n <= 0 || o->role == VMEM_ROLE_SCALAR_PREFETCH)
      continue;
    vmem_shape *s = shape_clone(&a, o->block);
    vmem_size z;
    vmem_error e;
    ok = s != NULL;
    if (ok) {
      memcpy(s->dims, v->dims[i], o->rank * sizeof(int64_t));
      ok = tiling_apply(&a, s, t, scratch, &e) == VMEM_OK && shape_array_size(s, &z, &e) == VMEM_OK;
    }
    uint64_t p;
    ok = ok && ck_mul(z.bytes, (uint64_t)n, &p) && ck_add(total, p, &total);
  }
  arena_destroy(&a);
  *out = total;
  return ok;
}

/* Is `value` a legal size for block dim d of operand i (the Pallas block
 * rules for the last two dims; leading dims take any positive size)? */
static bool legal(const vmem_operand *o, size_t d, int64_t value) {
  if (value < 1)
    return false;
  int64_t whole = o->array ? o->array->dims[d] : -1;
  if (value == whole)
    return true;
  if (o->rank >= 2 && d == o->rank - 1)
    return value % 128 == 0;
  if (o->rank >= 2 && d == o->rank - 2)
    return value % 8 == 0;
  if (o->rank == 1)
    return value % 1024 == 0;
  return true;
}

/* Halves a spec parameter until the kernel fits; every block using it must
 * stay legal. */
static void shrink_param(const vmem_kernel *k, const vmem_target *t, int p, uint64_t budget, vmem_remedies *out) {
  variant v;
  variant_init(k, &v);
  int64_t value = k->params[p].value;
  size_t first_op = SIZE_MAX, first_dim = 0;
  while (value % 2 == 0 && value > 1) {
    int64_t next = value / 2;
    bool ok = true;
    for (size_t i = 0; i < k->nops && i < 64 && ok; i++)
      for (size_t d = 0; d < k->ops[i].pub.rank && ok; d++)
        if (k->ops[i].pub.block_param[d] == p) {
          ok = legal(&k->ops[i].pub, d, next);
          v.dims[i][d] = next;
          if (first_op == SIZE_MAX)
            first_op = i, first_dim = d;
        }
    uint64_t scoped;
    if (!ok || first_op == SIZE_MAX || !variant_scoped(k, t, &v, &scoped))
      return;
    value = next;
    if (scoped <= budget) {
      if (out->nshrink < VMEM_REMEDY_MAX)
        out->shrink[out->nshrink++] =
            (vmem_shrink){first_op, first_dim, p, k->params[p].name, k->params[p].value, value, scoped};
      return;
    }
  }
}

/* Halves one grid-driven block dim of one operand until the kernel fits. */
static void shrink_dim(const vmem_kernel *k, const vmem_target *t, size_t i, uint64_t budget, vmem_remedies *out) {
  const vmem_operand *o = &k->ops[i].pub;
  for (size_t d = 0; d < o->rank; d++) {
    if (o->index_axis[d] < 0 || k->ops[i].pub.block_param[d] >= 0)
      continue;
    variant v;
    variant_init(k, &v);
    for (int64_t value = v.dims[i][d]; value % 2 == 0 && legal(o, d, value / 2);) {
      value /= 2;
      v.dims[i][d] = value;
      uint64_t scoped;
      if (!variant_scoped(k, t, &v, &scoped))
        break;
      if (scoped <= budget) {
        if (out->nshrink < VMEM_REMEDY_MAX)
          out->shrink[out->nshrink++] = (vmem_shrink){i, d, -1, NULL, o->block->dims[d], value, scoped};
        return;
      }
    }
  }
}

/* Operands by window bytes, largest first. */
static size_t by_size(const vmem_footprint *f, size_t *order, size_t cap) {
  size_t n = 0;
  for (size_t a = 0; a < f->count && n < cap; a++)
    if (f->allocs[a].kind == VMEM_ALLOC_WINDOW || f->allocs[a].kind == VMEM_ALLOC_SCRATCH)
      order[n++] = a;
  for (size_t x = 1; x < n; x++)
    for (size_t y = x; y > 0 && f->allocs[order[y - 1]].bytes < f->allocs[order[y]].bytes; y--) {
      size_t tmp = order[y];
      order[y] = order[y - 1];
      order[y - 1] = tmp;
    }
  return n;
}

static void shrinks(const vmem_kernel *k, const vmem_target *t, const vmem_footprint *f, uint64_t budget,
                    vmem_remedies *out) {
  size_t order[64];
  size_t n = by_size(f, order, 64);
  bool seen[64] = {false};
  for (size_t j = 0; j < n; j++) {
    size_t i = f->allocs[order[j]].operand;
    if (i >= 64 || f->allocs[order[j]].kind != VMEM_ALLOC_WINDOW)
      continue;
    bool used_param = false;
    for (size_t d = 0; d < k->ops[i].pub.rank; d++) {
      int p = k->ops[i].pub.block_param[d];
      if (p >= 0 && p < 64 && !seen[p]) {
        seen[p] = true;
        used_param = true;
        shrink_param(k, t, p, budget, out);
      }
    }
    if (!used_param)
      shrink_dim(k, t, i, budget, out);
  }
}

/* The grid axis that changes every step: the innermost one with more than
 * one value (a full-K matmul's k of extent 1 is not it); -1 when none. */
static int innermost_moving_axis(const vmem_kernel *k) {
  for (size_t g = k->grid_rank; g-- > 0;)
    if (k->grid[g] > 1 || k->grid[g] == VMEM_GRID_DYNAMIC)
      return (int)g;
  return -1;
}

static void buffering_and_coloring(const vmem_kernel *k, const vmem_target *t, const vmem_footprint *f,
                                   vmem_remedies *out) {
  int inner = innermost_moving_axis(k);
  uint64_t physical = vmem_target_u64(t, VMEM_FACT_VMEM_BYTES);
  for (size_t a = 0; a < f->count; a++) {
    const vmem_allocation *al = &f->allocs[a];
    if (al->kind != VMEM_ALLOC_WINDOW || al->operand >= k->nops)
      continue;
    const vmem_operand *o = &k->ops[al->operand].pub;
    if (o->role != VMEM_ROLE_INPUT)
      continue;
    bool moves = false;
    for (size_t d = 0; d < o->rank && inner >= 0; d++)
      moves = moves || o->index_axis[d] == inner || o->index_axis[d] == VMEM_INDEX_UNKNOWN;
    if (al->buffers == 2 && !moves && inner >= 0 && out->nbuffered1 < VMEM_REMEDY_MAX)
      out->buffered1[out->nbuffered1++] = (vmem_buffered1){al->operand, al->bytes / 2};
    int64_t added = -1;
    if (o->array) {
      arena ar;
      arena_init(&ar, &k->a.alloc);
      vmem_shape *s = shape_clone(&ar, o->array);
      vmem_size z;
      vmem_error e;
      if (s && tiling_apply(&ar, s, t, false, &e) == VMEM_OK && shape_array_size(s, &z, &e) == VMEM_OK)
        added = (int64_t)z.bytes;
      arena_destroy(&ar);
    }
    /* A whole array larger than physical VMEM cannot be colored into it: not a remedy. */
    if (out->ncoloring < VMEM_REMEDY_MAX && !(added >= 0 && physical && (uint64_t)added > physical))
      out->coloring[out->ncoloring++] = (vmem_coloring){al->operand, al->bytes, added};
    else if (added >= 0 && physical && (uint64_t)added > physical)
      out->ncolor_too_big++;
  }
}

vmem_status vmem_kernel_remedies(const vmem_kernel *k, const vmem_target *t, const vmem_plan_options *opt,
                                 uint64_t limit, vmem_remedies *out, vmem_error *err) {
  if (!k || !t || !out) {
    err_set(err, VMEM_ERR_ARGUMENT, 0, "a kernel, a target and a result are needed");
    return VMEM_ERR_ARGUMENT;
  }
  memset(out, 0, sizeof *out);
  vmem_footprint f;
  vmem_status st = vmem_kernel_footprint(k, t, opt, &f, err);
  if (st != VMEM_OK)
    return st;
  out->limit_bytes = limit;
  /* The body's estimated values are held as they are when blocks shrink and
   * come off the budget. Most of them shrink with the blocks (a matmul's
   * lhs with bm and bk), so a shrink that fits with them held fits with room
   * to spare; held at their ceiling as well, the heads and reduction
   * fixtures (tests/golden) found no shrink at all. `fit` sizes the values
   * at each block. The internal scratch lies beside the limit. */
  uint64_t extra = f.modelled_bytes;
  out->needed_bytes = scoped_predicted(&f);
  uint64_t budget = limit > extra ? limit - extra : 0;
  shrinks(k, t, &f, budget, out);
  /* The request holds the body's values at their ceiling: asked at the
   * estimate alone, it fell short of the compiler's figure on 14 of the
   * oracle's 61 refused kernels (flash attention, unrolled heads, layer
   * norm, LoRA), and the user would meet the E1001 again after following it;
   * an at-risk kernel had none. At the ceiling all 78 refused kernels the
   * oracle holds compile (oracle/cases/remedies.py). */
  out->ceiling_bytes = scoped_rules_ceiling(&f);
  uint64_t physical = vmem_target_u64(t, VMEM_FACT_VMEM_BYTES);
  /* Over the limit only through rules outside their domain (verdict.c's
   * estimate_over): the request is the estimate's need, no more. The
   * ceiling there is those rules at their worst, and the generated kernels
   * showed them at three times the compiler's figure. */
  bool heuristic_over = scoped_firm(&f) <= limit && out->needed_bytes > limit;
  out->request_bytes =
      vmem_request_limit(out->needed_bytes, heuristic_over ? out->needed_bytes : out->ceiling_bytes, physical);
  out->request_at_ceiling = out->request_bytes >= out->ceiling_bytes;
  out->request_estimate = heuristic_over;
  out->request_within_physical = out->request_bytes <= physical;
  buffering_and_coloring(k, t, &f, out);
  vmem_footprint_free(&f);
  return VMEM_OK;
}
