/*
 * kernel.c — the kernel model's constructor and public accessors.
 */
#include <string.h>

#include "kernel.h"

vmem_kernel *kernel_new(const vmem_allocator *alloc) {
  arena a;
  arena_init(&a, alloc);
  vmem_kernel *k = arena_calloc(&a, 1, sizeof *k);
  if (!k) {
    arena_destroy(&a);
    return NULL;
  }
  k->a = a;
  k->vmem_limit = k->internal_scratch = -1;
  k->flops = -1;
  for (size_t i = 0; i < VMEM_KERNEL_MAX_RANK; i++)
    k->grid_param[i] = -1;
  k->name = "kernel";
  return k;
}

/* A window whose block index never changes over the whole grid (each of
 * its indices is a constant or follows an axis of extent 1) is fetched
 * once, and the compiler gives it one buffer, not two. The TPU compiler
 * (libtpu 0.0.42.1, v2-v6e; 7x charges less still, docs/fidelity.md) does
 * so for inputs and outputs alike: the oracle's rows_f32_one_step_* and
 * rows_*_bm8192 records, whose used_scoped_memory_configs are half the
 * double-buffered figure. A window whose buffer count is given (a
 * pipeline_mode, a spec's "buffers") keeps what it was given. A rule of the
 * kernel, not of a reader: every reader's kernel gets it here, and fit's
 * template applies it to each candidate's grid (template.c, never_moving). */
bool kernel_window_never_moves(const int *index_axis, size_t rank, const int64_t *grid, size_t grid_rank) {
  for (size_t d = 0; d < rank; d++) {
    int a = index_axis[d];
    if (!(a == VMEM_INDEX_CONSTANT || (a >= 0 && (size_t)a < grid_rank && grid[a] == 1)))
      return false;
  }
  return true;
}

static void single_buffer_fixed_windows(vmem_kernel *k) {
  for (size_t i = 0; i < k->nops; i++) {
    vmem_operand *o = &k->ops[i].pub;
    if (o->buffers == 2 && !o->buffers_given && o->role != VMEM_ROLE_SCRATCH &&
        kernel_window_never_moves(o->index_axis, o->rank, k->grid, k->grid_rank))
      o->buffers = 1;
  }
}

vmem_kernel *kernel_finish(vmem_kernel *k, bool ok, const vmem_error *local, vmem_error *err) {
  if (!ok) {
    if (err)
      *err = *local;
    vmem_kernel_free(k);
    return NULL;
  }
  single_buffer_fixed_windows(k);
  err_clear(err);
  return k;
}

vmem_shape *kernel_shape(vmem_kernel *k, vmem_dtype t, const int64_t *dims, size_t rank) {
  vmem_shape *s = arena_calloc(&k->a, 1, sizeof *s);
  if (!s)
    return NULL;
  s->dtype = t;
  s->rank = rank;
  s->dims = arena_alloc(&k->a, (rank ? rank : 1) * sizeof *s->dims);
  s->dyn = arena_calloc(&k->a, rank ? rank : 1, 1);
  s->dim_offset = arena_calloc(&k->a, rank ? rank : 1, sizeof *s->dim_offset);
  if (!s->dims || !s->dyn || !s->dim_offset)
    return NULL;
  memcpy(s->dims, dims, rank * sizeof *dims);
  s->lay.tail_align = 1;
  s->lay.index_type = s->lay.pointer_type = -1;
  return s;
}

void vmem_kernel_free(vmem_kernel *k) {
  if (!k)
    return;
  arena a = k->a;
  arena_destroy(&a);
}

const char *vmem_kernel_name(const vmem_kernel *k) { return k ? k->name : NULL; }
size_t vmem_kernel_grid_rank(const vmem_kernel *k) { return k ? k->grid_rank : 0; }
int64_t vmem_kernel_grid_bound(const vmem_kernel *k, size_t axis) {
  return k && axis < k->grid_rank ? k->grid[axis] : 0;
}
const char *vmem_kernel_grid_axis_name(const vmem_kernel *k, size_t axis) {
  if (!k)
    return NULL;
  static const char *const names[VMEM_KERNEL_MAX_RANK] = {"g0", "g1", "g2",  "g3",  "g4",  "g5",  "g6",  "g7",
                                                          "g8", "g9", "g10", "g11", "g12", "g13", "g14", "g15"};
  if (axis >= k->grid_rank)
    return "";
  return k->grid_axis_name[axis] ? k->grid_axis_name[axis] : names[axis];
}

const char *vmem_kernel_dimension_semantics(const vmem_kernel *k, size_t axis) {
  if (!k)
    return NULL;
  return axis < k->grid_rank && k->semantics[axis] ? k->semantics[axis] : "";
}
size_t vmem_kernel_operand_count(const vmem_kernel *k) { return k ? k->nops : 0; }
const vmem_operand *vmem_kernel_operand(const vmem_kernel *k, size_t i) {
  return k && i < k->nops ? &k->ops[i].pub : NULL;
}
int64_t vmem_kernel_vmem_limit_bytes(const vmem_kernel *k) { return k ? k->vmem_limit : 0; }
int64_t vmem_kernel_internal_scratch_bytes(const vmem_kernel *k) { return k ? k->internal_scratch : 0; }
const vmem_shape *vmem_kernel_result_shape(const vmem_kernel *k) { return k ? k->result : NULL; }
bool vmem_kernel_roles_known(const vmem_kernel *k) { return k && k->roles_inferred; }
bool vmem_kernel_body_modelled(const vmem_kernel *k) { return k && k->body_known; }

vmem_status vmem_kernel_set_array(vmem_kernel *k, const char *name, const char *text, vmem_error *err) {
  if (!k || !name || !text) {
    err_set(err, VMEM_ERR_ARGUMENT, 0, "a kernel, an operand name and a shape are needed");
    return VMEM_ERR_ARGUMENT;
  }
  err_clear(err);
  kernel_operand *op = NULL;
  for (size_t i = 0; i < k->nops && !op; i++)
    if (!strcmp(k->ops[i].pub.name, name))
      op = &k->ops[i];
  if (!op || !op->pub.block) {
    err_set(err, VMEM_ERR_UNKNOWN, 0, "no windowed operand named '%s'", name);
    return VMEM_ERR_UNKNOWN;
  }
  size_t pos = 0;
  vmem_shape *a = shape_parse_at(&k->a, text, strlen(text), &pos, err);
  if (!a)
    return err->code;
  if (pos != strlen(text) || a->tuple || a->dtype != op->pub.block->dtype || a->rank != op->pub.rank) {
    err_set(err, VMEM_ERR_RANGE, 0, "%s: the array must be one %s array of rank %zu", name,
            vmem_dtype_name(op->pub.block->dtype), op->pub.rank);
    return VMEM_ERR_RANGE;
  }
  for (size_t d = 0; d < a->rank; d++)
    if (a->dyn[d] != DIM_STATIC || a->dims[d] < op->pub.block->dims[d]) {
      err_set(err, VMEM_ERR_RANGE, 0, "%s: dimension %zu of the array is smaller than the block's", name, d);
      return VMEM_ERR_RANGE;
    }
  op->pub.array = op->array = a;
  return VMEM_OK;
}

/* The array a window implies when every dim of its index map is a grid
 * axis or a constant: block x bound along an axis, the block itself along a
 * constant (the array may be larger there; the block is what is known). */
static bool infer_array(vmem_kernel *k, kernel_operand *op) {
  const vmem_operand *o = &op->pub;
  int64_t dims[VMEM_KERNEL_MAX_RANK];
  for (size_t d = 0; d < o->rank; d++) {
    int a = o->index_axis[d];
    uint64_t n = (uint64_t)o->block->dims[d];
    if (a != VMEM_INDEX_CONSTANT &&
        (a < 0 || (size_t)a >= k->grid_rank || k->grid[a] <= 0 || !ck_mul(n, (uint64_t)k->grid[a], &n)))
      return false; /* not a plain map, a dynamic bound, or past 64 bits */
    if (n > (uint64_t)INT64_MAX)
      return false;
    dims[d] = (int64_t)n;
  }
  vmem_shape *a = kernel_shape(k, o->block->dtype, dims, o->rank);
  if (!a)
    return false;
  op->pub.array = op->array = a;
  op->array_inferred = true;
  return true;
}

/* A block dim whose index map says nothing of the grid (a constant, or an
 * index read from a prefetched ref) but has the size another window's dim
 * at the same position takes from a parameter follows that parameter: in
 * Pallas code such blocks are written with the same block size (a bias
 * block (bm, n) at a constant index beside x's (bm, n); a gathered row
 * block). Modelled: the MLIR only shows the sizes agree; fit says so. */
static void tie_unmapped_dims(vmem_kernel *k) {
  for (size_t i = 0; i < k->nops; i++) {
    vmem_operand *o = &k->ops[i].pub;
    if (!o->block || o->role == VMEM_ROLE_SCRATCH || o->space != VMEM_SPACE_VMEM)
      continue;
    for (size_t d = 0; d < o->rank; d++) {
      if (o->block_param[d] >= 0 || o->index_axis[d] >= 0)
        continue;
      for (size_t w = 0; w < k->nops && o->block_param[d] < 0; w++) {
        const vmem_operand *x = &k->ops[w].pub;
        if (w != i && x->block && x->rank == o->rank && x->role != VMEM_ROLE_SCRATCH && x->index_axis[d] >= 0 &&
            x->block_param[d] >= 0 && x->block->dims[d] == o->block->dims[d]) {
          o->block_param[d] = x->block_param[d];
          k->ops[i].tied |= 1u << d;
        }
      }
    }
  }
}

/* A scratch buffer whose dims equal a window's block dims (after leading
 * dims of 1, as a squeezed batch or head dim leaves them) follows that
 * window's parameters in fit: an accumulator as large as the output block
 * grows with it. Outputs are tried first, as accumulators match them. */
static void follow_scratch(vmem_kernel *k) {
  for (size_t s = 0; s < k->nops; s++) {
    kernel_operand *sc = &k->ops[s];
    if (sc->pub.role != VMEM_ROLE_SCRATCH || !sc->pub.block || sc->fixed)
      continue;
    for (int pass = 0; pass < 2 && !sc->follows; pass++)
      for (size_t w = 0; w < k->nops && !sc->follows; w++) {
        const vmem_operand *o = &k->ops[w].pub;
        bool role = pass == 0 ? o->role == VMEM_ROLE_OUTPUT : o->role == VMEM_ROLE_INPUT;
        bool same = role && o->block && o->rank >= sc->pub.rank && o->space == VMEM_SPACE_VMEM;
        size_t lead = same ? o->rank - sc->pub.rank : 0; /* the window's leading dims of 1 (squeezed) */
        bool moves = false;
        for (size_t d = 0; same && d < o->rank; d++) {
          same = d < lead ? o->block->dims[d] == 1 : o->block->dims[d] == sc->pub.block->dims[d - lead];
          moves = moves || (d >= lead && o->block_param[d] >= 0);
        }
        if (!same || !moves)
          continue;
        for (size_t d = 0; d < sc->pub.rank; d++)
          sc->pub.block_param[d] = o->block_param[d + lead];
        sc->follows = (int)w + 1;
      }
  }
}

/* The parameter whose value is v, when exactly one has it; else -1. */
static int param_of_value(const vmem_kernel *k, int64_t v) {
  int found = -1;
  for (size_t p = 0; p < k->nparams; p++)
    if (k->params[p].value == v) {
      if (found >= 0)
        return -1;
      found = (int)p;
    }
  return found;
}

/* Whether dim d of a body value is set by the hardware, not the blocks:
 * a transpose strip's 128 lanes, a row broadcast's tile of rows, a lane
 * store's tiles. */
static bool fixed_dim(const kernel_modelled *v, size_t d) {
  return (v->kind == VALUE_TRANSPOSE && d == 1) || (v->kind == VALUE_ROW_BCAST && d == 0) ||
         v->kind == VALUE_LANE_BCAST;
}

/* A body value's dim follows the parameter that has its size, when one
 * alone does (the logits [bq, bk] follow bq and bk); else it stays. */
static void follow_values(vmem_kernel *k) {
  for (size_t m = 0; m < k->nmodelled; m++) {
    kernel_modelled *v = &k->modelled[m];
    for (size_t d = 0; d < v->shape->rank && d < VMEM_KERNEL_MAX_RANK; d++)
      if (v->param[d] < 0 && !fixed_dim(v, d))
        v->param[d] = param_of_value(k, v->shape->dims[d]);
    if (v->kind == VALUE_MXU_LHS && v->contracted_param < 0)
      v->contracted_param = param_of_value(k, v->contracted);
    if (v->kind == VALUE_MXU_LHS && v->columns_param < 0)
      v->columns_param = param_of_value(k, v->columns);
  }
}

/* One parameter per grid axis, for the block dims it drives when they
 * agree in size; arrays the grid implies; scratch and body values that
 * follow the blocks. */
vmem_status vmem_kernel_parametrize(vmem_kernel *k, size_t *made, vmem_error *err) {
  if (!k) {
    err_set(err, VMEM_ERR_ARGUMENT, 0, "a kernel is needed");
    return VMEM_ERR_ARGUMENT;
  }
  err_clear(err);
  *made = 0;
  if (k->nparams)
    return VMEM_OK;
  if (!(k->params = arena_calloc(&k->a, k->grid_rank ? k->grid_rank : 1, sizeof *k->params))) {
    err_set(err, VMEM_ERR_NOMEM, 0, "out of memory");
    return VMEM_ERR_NOMEM;
  }
  for (size_t i = 0; i < k->nops; i++) {
    const vmem_operand *o = &k->ops[i].pub;
    if (o->block && o->space == VMEM_SPACE_VMEM && o->buffers > 0 && o->role != VMEM_ROLE_SCRATCH && !o->array &&
        !infer_array(k, &k->ops[i])) {
      err_set(err, VMEM_ERR_ARGUMENT, k->ops[i].offset,
              "%s: its array is not known and its index map is not a plain projection of grid axes, so it cannot be "
              "inferred: give it (--array %s=SHAPE)",
              o->name, o->name);
      return VMEM_ERR_ARGUMENT;
    }
  }
  static const char *const names[] = {"g0", "g1", "g2",  "g3",  "g4",  "g5",  "g6",  "g7",
                                      "g8", "g9", "g10", "g11", "g12", "g13", "g14", "g15"};
  for (size_t g = 0; g < k->grid_rank; g++) {
    int64_t size = -1;
    bool agree = true;
    for (size_t i = 0; i < k->nops; i++)
      for (size_t d = 0; d < k->ops[i].pub.rank; d++)
        if (k->ops[i].pub.index_axis[d] == (int)g && k->ops[i].pub.role != VMEM_ROLE_SCRATCH) {
          int64_t v = k->ops[i].pub.block->dims[d];
          agree = agree && (size < 0 || size == v);
          size = v;
        }
    if (size < 0 || !agree)
      continue;
    kernel_param *p = &k->params[k->nparams];
    p->name = k->grid_axis_name[g] ? k->grid_axis_name[g] : names[g];
    p->value = size;
    for (size_t i = 0; i < k->nops; i++)
      for (size_t d = 0; d < k->ops[i].pub.rank; d++)
        if (k->ops[i].pub.index_axis[d] == (int)g && k->ops[i].pub.role != VMEM_ROLE_SCRATCH)
          k->ops[i].pub.block_param[d] = (int)k->nparams;
    k->grid_derived[g] = true;
    k->nparams++;
  }
  tie_unmapped_dims(k);
  follow_scratch(k);
  follow_values(k);
  *made = k->nparams;
  return VMEM_OK;
}

vmem_status vmem_kernel_fix_scratch(vmem_kernel *k, const char *name, vmem_error *err) {
  if (!k || !name) {
    err_set(err, VMEM_ERR_ARGUMENT, 0, "a kernel and a scratch name are needed");
    return VMEM_ERR_ARGUMENT;
  }
  err_clear(err);
  for (size_t i = 0; i < k->nops; i++)
    if (!strcmp(k->ops[i].pub.name, name) && k->ops[i].pub.role == VMEM_ROLE_SCRATCH) {
      k->ops[i].fixed = true;
      return VMEM_OK;
    }
  err_set(err, VMEM_ERR_UNKNOWN, 0, "no scratch operand named '%s'", name);
  return VMEM_ERR_UNKNOWN;
}

int vmem_kernel_scratch_follows(const vmem_kernel *k, size_t i) {
  if (!k)
    return 0;
  return i < k->nops ? k->ops[i].follows - 1 : -1;
}

bool vmem_kernel_array_inferred(const vmem_kernel *k, size_t i) {
  if (!k)
    return false;
  return i < k->nops && k->ops[i].array_inferred;
}

unsigned vmem_kernel_tied_dims(const vmem_kernel *k, size_t i) { return k && i < k->nops ? k->ops[i].tied : 0; }
