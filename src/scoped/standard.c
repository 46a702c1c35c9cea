/*
 * standard.c — a model of the scoped VMEM a standard HLO op needs at the
 * least: the compiler streams its operands and result through VMEM in
 * windows, double-buffered, and some ops need whole extents in one window.
 * The figure is a lower bound from this model, not the compiler's choice
 * (which is larger and not modelled); where it already exceeds the limit,
 * the op cannot compile as this model sees it — likely a compiler-side
 * problem to report with the HLO.
 *
 * A window is a shape like the array's, with each dimension cut to the
 * extent the rule gives (1 by default) and padded by the array's own
 * tiling, so "1" in every dimension is exactly one tile. Rules:
 *  - elementwise and data movement (the default): a tile of each operand
 *    and of the result;
 *  - reduce: a tile of each, and one f32 accumulator tile;
 *  - reduce-window: the operand window spans the window's size in each
 *    dimension (a cumulative sum over n elements spans n);
 *  - sort: a tile of each operand, sorted in place (the compiler sorts in
 *    pieces: docs/fidelity.md);
 *  - dot: contracting dimensions and the rhs's non-contracting ones cut to
 *    the MXU width, with an f32 accumulator tile;
 *  - convolution: as dot, with the kernel's spatial window whole;
 *  - gather: the operand window is one slice (slice_sizes); scatter: one
 *    update slice (update_window_dims whole), for the operand too;
 *  - fusion: the heaviest rule among the ops of its body, plus a tile of
 *    each fusion operand and result.
 * Inputs and outputs take two buffers, accumulators one.
 */
#include <string.h>

#include "../hlo/hlo.h"
#include "../shape/shape.h"

enum { MAX_RANK = 64 };

typedef struct rule_ctx {
  const vmem_target *t;
  const vmem_allocator *alloc;
  vmem_error *err;
  vmem_std_scoped *out;
  bool whole;   /* every window its whole array: the op in one step */
  bool unsized; /* an array with an unbounded dimension: not modelled */
  /* Inside a fusion's body: the fusion, which of its operands the body op
   * reads (so they are not counted again), and whether the body op's result
   * is the fusion's. */
  const vmem_hlo_instruction *fusion;
  bool *param_read, result_is_fusion;
} rule_ctx;

/* ---- windows ---------------------------------------------------------------- */

/* The padded bytes of a window of array shape s, *part, and of the whole
 * array, *whole (either may be NULL): dims cut to ext[i] (0: 1), capped at
 * the array's own, tiled as the array is on the target; with c->whole the
 * window is the whole array. One layout for both: the model sizes every
 * window of every op, and the layout was most of its time. */
/* A window's layout lives for one call: its arena's first (and usually
 * only) chunk is this buffer on the stack, not a malloc — a malloc and a
 * free for every window were a quarter of the model's instructions. */
typedef struct window_buf {
  const vmem_allocator *next; /* a larger layout's chunks */
  bool used;
  _Alignas(16) char bytes[1536];
} window_buf;

static void *window_alloc(void *ctx, size_t n) {
  window_buf *w = ctx;
  if (!w->used && n <= sizeof w->bytes) {
    w->used = true;
    return w->bytes;
  }
  return vmem__alloc(w->next, n);
}

static void window_free(void *ctx, void *p) {
  window_buf *w = ctx;
  if (p == w->bytes)
    w->used = false;
  else
    vmem__free(w->next, p);
}

static bool window_bytes2(rule_ctx *c, const vmem_shape *s, const int64_t *ext, uint64_t *part, uint64_t *whole) {
  uint64_t dummy;
  part = part ? part : &dummy, whole = whole ? whole : &dummy;
  *part = *whole = 0;
  if (s->tuple || s->rank > MAX_RANK)
    return true;
  vmem_error e;
  window_buf wb; /* its bytes are the arena's to write first */
  wb.next = c->alloc, wb.used = false;
  const vmem_allocator on_stack = {window_alloc, window_free, &wb};
  vmem_shape *laid = vmem_shape_with_tpu_layout(s, c->t, &on_stack, &e);
  vmem_size zw = {0}, zp = {0};
  bool sized = laid != NULL && shape_array_size(laid, &zw, &e) == VMEM_OK;
  for (size_t i = 0; sized && !c->whole && i < laid->rank; i++) {
    int64_t want = ext && ext[i] > 0 ? ext[i] : 1;
    laid->dims[i] = laid->dims[i] < want ? laid->dims[i] : want;
  }
  sized = sized && (c->whole ? (zp = zw, true) : shape_array_size(laid, &zp, &e) == VMEM_OK);
  vmem_shape_free(laid);
  if (!sized && e.code == VMEM_ERR_NOMEM) {
    *c->err = e;
    return false;
  }
  c->unsized = c->unsized || !sized; /* an unbounded dimension, say */
  *part = zp.bytes, *whole = zw.bytes;
  return true;
}

static bool window_bytes(rule_ctx *c, const vmem_shape *s, const int64_t *ext, uint64_t *bytes) {
  return window_bytes2(c, s, ext, bytes, NULL);
}

/* A value already on the chip: in VMEM (S(1)), or in v4's CMEM (S(3)),
 * which the oracle's records show read and written in place as VMEM is
 * (slices, selects, a pad and an iota with every operand and the result in
 * S(3) use no scoped VMEM on v4; libtpu 0.0.42.1). */
static bool on_chip(const vmem_shape *s) { return s->lay.memory_space == 1 || s->lay.memory_space == 3; }

/* Adds a window with its buffers; the largest names the dominant one. A
 * window as large as its whole array is fetched once, not streamed: one
 * buffer. */
static bool add(rule_ctx *c, const vmem_shape *s, const int64_t *ext, int buffers, int64_t who) {
  if (!s->tuple && (on_chip(s) || (who >= 0 && s->rank == 0)))
    return true; /* read or written in place, no span; a scalar operand is a register's */
  uint64_t b, whole;
  if (!window_bytes2(c, s, ext, &b, &whole))
    return false;
  uint64_t total = b * (uint64_t)(b >= whole ? 1 : buffers);
  c->out->min_bytes += total;
  if (total > c->out->dominant_bytes)
    c->out->dominant_bytes = total, c->out->dominant = who;
  return true;
}

static bool add_leaves(rule_ctx *c, const vmem_shape *s, int buffers, int64_t who) {
  if (!s->tuple)
    return add(c, s, NULL, buffers, who);
  for (size_t k = 0; k < s->count; k++)
    if (!add_leaves(c, s->elems[k], buffers, who))
      return false;
  return true;
}

/* An f32 accumulator tile beside an output of shape s. */
static bool accumulator(rule_ctx *c, const vmem_shape *s) {
  if (s->tuple)
    return true;
  vmem_shape f = *s;
  f.dtype = VMEM_F32;
  f.lay.present = false; /* the target's tiling for f32 */
  return add(c, &f, NULL, 1, -2);
}

/* ---- attributes ----------------------------------------------------------------- */

/* The integers of a list attribute `{1,2}` or `1x2` (window sizes), into
 * v; returns how many. */
static size_t ints(sv text, int64_t *v, size_t cap) {
  size_t n = 0;
  for (size_t i = 0; i < text.len && n < cap;) {
    if (text.ptr[i] < '0' || text.ptr[i] > '9') {
      i++;
      continue;
    }
    int64_t x = 0;
    for (; i < text.len && text.ptr[i] >= '0' && text.ptr[i] <= '9'; i++)
      x = x < INT64_MAX / 10 ? x * 10 + (text.ptr[i] - '0') : INT64_MAX;
    v[n++] = x;
  }
  return n;
}

static sv attr(const vmem_hlo_instruction *in, const char *name) { return vmem_hlo_instruction_attr(in, name); }

/* window={size=AxB stride=... pad=...}: the sizes. */
static size_t window_sizes(const vmem_hlo_instruction *in, int64_t *v, size_t cap) {
  sv w = attr(in, "window");
  for (size_t i = 0; i + 5 <= w.len; i++)
    if (!memcmp(w.ptr + i, "size=", 5)) {
      size_t e = i + 5;
      while (e < w.len && w.ptr[e] != ' ' && w.ptr[e] != '}')
        e++;
      sv sizes = {w.ptr + i + 5, e - i - 5};
      return ints(sizes, v, cap);
    }
  return 0;
}

/* ---- operands inside a fusion ------------------------------------------------------
 * A fused op reads the fusion's operands through its parameters, and its
 * result may be the fusion's: those windows are the fusion's arrays (their
 * layout, their memory space), counted once. Values computed inside the
 * body keep their own shape. */

static bool same_dims(const vmem_shape *a, const vmem_shape *b) {
  if (a->tuple || b->tuple || a->rank != b->rank)
    return false;
  for (size_t i = 0; i < a->rank; i++)
    if (a->dims[i] != b->dims[i])
      return false;
  return true;
}

/* The fused computation's parameter that v passes through unchanged in
 * extent (bitcast, convert, copy, a one-operand fusion), else NULL. */
static const vmem_hlo_instruction *param_behind(const vmem_hlo_instruction *v) {
  for (int hops = 0; hops < 16; hops++) {
    if (v->kind == HLO_KIND_PARAMETER)
      return v;
    bool pass = hlo_has(v, HLO_F_EXTENT) || (v->op == HLO_OP_FUSION && v->noperands == 1);
    if (!pass || v->noperands < 1 || !same_dims(v->operands[0]->shape, v->shape))
      return NULL;
    v = v->operands[0];
  }
  return NULL;
}

/* Operand k of in, as a window sees it: inside a fusion, the fusion's
 * operand that it is (marked read), else its own shape. */
static const vmem_shape *opnd(rule_ctx *c, const vmem_hlo_instruction *in, uint32_t k) {
  const vmem_shape *own = in->operands[k]->shape;
  const vmem_hlo_instruction *p = c->fusion ? param_behind(in->operands[k]) : NULL;
  if (!p || p->parameter >= c->fusion->noperands || !same_dims(c->fusion->operands[p->parameter]->shape, own))
    return own;
  c->param_read[p->parameter] = true;
  return c->fusion->operands[p->parameter]->shape;
}

/* The result of in as a window sees it: the fusion's when it is. */
static const vmem_shape *result(const rule_ctx *c, const vmem_hlo_instruction *in) {
  return c->fusion && c->result_is_fusion && same_dims(c->fusion->shape, in->shape) ? c->fusion->shape : in->shape;
}

/* Whether x's result reaches the root of its computation through ops of
 * the root's extent (elementwise epilogues: a bias, a relu): then it
 * leaves the fusion as its result. Visits at most *budget ops. */
static bool reaches(const vmem_hlo_instruction *v, const vmem_hlo_instruction *x, const vmem_shape *dims, int *budget) {
  if (v == x)
    return true;
  if (--*budget < 0 || !same_dims(v->shape, dims) || v->kind == HLO_KIND_PARAMETER)
    return false;
  for (uint32_t k = 0; k < v->noperands; k++)
    if (reaches(v->operands[k], x, dims, budget))
      return true;
  return false;
}

/* ---- rules ---------------------------------------------------------------------- */

static bool rule_default(rule_ctx *c, const vmem_hlo_instruction *in) {
  for (uint32_t k = 0; k < in->noperands; k++)
    if (!add_leaves(c, opnd(c, in, k), 2, k))
      return false;
  return add_leaves(c, result(c, in), 2, -1);
}

/* Whether a window of s cut to ext (one tile when NULL) is less than the
 * whole array: then a reduction over it takes several steps and keeps an
 * accumulator between them. */
static bool split(rule_ctx *c, const vmem_shape *s, const int64_t *ext, bool *out) {
  uint64_t part, whole;
  *out = false;
  if (c->whole || s->tuple)
    return true;
  if (!window_bytes2(c, s, ext, &part, &whole))
    return false;
  *out = part < whole;
  return true;
}

static bool rule_reduce(rule_ctx *c, const vmem_hlo_instruction *in) {
  bool steps = false;
  if (!rule_default(c, in) || (in->noperands && !split(c, in->operands[0]->shape, NULL, &steps)))
    return false;
  return !steps || accumulator(c, in->shape);
}

static bool rule_reduce_window(rule_ctx *c, const vmem_hlo_instruction *in) {
  int64_t ext[MAX_RANK] = {0};
  size_t n = window_sizes(in, ext, MAX_RANK);
  for (uint32_t k = 0; k < in->noperands; k++) {
    const vmem_shape *s = opnd(c, in, k);
    bool windowed = !s->tuple && n == s->rank && k < (in->noperands + 1) / 2; /* inputs, not init values */
    if (!(windowed ? add(c, s, ext, 2, k) : add_leaves(c, s, 2, k)))
      return false;
  }
  return add_leaves(c, result(c, in), 2, -1);
}

/* The compiler sorts through VMEM in pieces, not with the sorted dimension
 * whole: f32[1024,8192] sorted along its 8192 used 1 MiB on v4, 2 MiB on
 * v5e and v5p and 4 MiB on v6e, where the dimension whole would take 16 MiB
 * (the oracle's std_sort records, libtpu 0.0.42.1). So the least is a tile of
 * each operand, twice; the result is the operands' buffers, sorted in place. */
static bool rule_sort(rule_ctx *c, const vmem_hlo_instruction *in) {
  for (uint32_t k = 0; k < in->noperands; k++)
    if (!add_leaves(c, opnd(c, in, k), 2, k))
      return false;
  return true;
}

/* Dimensions listed in attribute `name` cut to `to`, the others to `rest`. */
static void cut(const vmem_shape *s, sv dims, int64_t to, int64_t rest, int64_t *ext) {
  int64_t v[MAX_RANK];
  size_t n = ints(dims, v, MAX_RANK);
  for (size_t i = 0; i < s->rank && i < MAX_RANK; i++)
    ext[i] = rest;
  for (size_t i = 0; i < n; i++)
    if (v[i] >= 0 && (size_t)v[i] < s->rank && (size_t)v[i] < MAX_RANK)
      ext[v[i]] = to;
}

static bool rule_dot(rule_ctx *c, const vmem_hlo_instruction *in) {
  if (in->noperands < 2 || in->operands[0]->shape->tuple || in->operands[1]->shape->tuple)
    return rule_default(c, in);
  int64_t mxu = (int64_t)vmem_target_u64(c->t, VMEM_FACT_MXU_DIM), lhs[MAX_RANK], rhs[MAX_RANK];
  mxu = mxu > 0 ? mxu : 128;
  const vmem_shape *l = opnd(c, in, 0), *r = opnd(c, in, 1);
  int64_t contracted[MAX_RANK];
  cut(l, attr(in, "lhs_contracting_dims"), mxu, 1, lhs);
  cut(l, attr(in, "lhs_contracting_dims"), mxu, INT64_MAX, contracted); /* only the contraction cut */
  cut(r, attr(in, "rhs_contracting_dims"), mxu, 1, rhs);
  int64_t minor = r->rank ? (int64_t)shape_minor(r, 0) : -1; /* the rhs's lanes: an MXU width of outputs */
  if (minor >= 0 && minor < MAX_RANK && rhs[minor] == 1)
    rhs[minor] = mxu;
  bool steps; /* a contraction longer than the MXU: partial sums kept in f32 */
  return split(c, l, contracted, &steps) && add(c, l, lhs, 2, 0) && add(c, r, rhs, 2, 1) &&
         add_leaves(c, result(c, in), 2, -1) && (!steps || accumulator(c, in->shape));
}

/* dim_labels=b01f_01io->b01f: the kernel's spatial window whole in the
 * input and the kernel, features cut to the MXU width. */
static bool rule_convolution(rule_ctx *c, const vmem_hlo_instruction *in) {
  sv labels = attr(in, "dim_labels");
  if (in->noperands < 2 || in->operands[0]->shape->tuple || in->operands[1]->shape->tuple || !labels.len)
    return rule_default(c, in);
  int64_t size[MAX_RANK] = {0}, lhs[MAX_RANK] = {0}, rhs[MAX_RANK] = {0}, feat[MAX_RANK];
  size_t nw = window_sizes(in, size, MAX_RANK);
  int64_t mxu = (int64_t)vmem_target_u64(c->t, VMEM_FACT_MXU_DIM);
  mxu = mxu > 0 ? mxu : 128;
  size_t part = 0, pos = 0;
  for (size_t i = 0; i < MAX_RANK; i++)
    feat[i] = INT64_MAX;
  for (size_t i = 0; i < labels.len && part < 2; i++) {
    char ch = labels.ptr[i];
    if (ch == '_' || ch == '-') {
      part++, pos = 0;
      continue;
    }
    int64_t *ext = part ? rhs : lhs;
    if (pos < MAX_RANK) {
      if (ch >= '0' && ch <= '9' && (size_t)(ch - '0') < nw)
        ext[pos] = size[ch - '0'];
      else if (ch == 'f' || ch == 'i' || ch == 'o')
        ext[pos] = mxu;
      if (!part && ch == 'f')
        feat[pos] = mxu; /* the input features: the contraction */
    }
    pos++;
  }
  const vmem_shape *l = opnd(c, in, 0), *r = opnd(c, in, 1);
  bool steps; /* input features beyond the MXU: partial sums kept in f32 */
  return split(c, l, feat, &steps) && add(c, l, lhs, 2, 0) && add(c, r, rhs, 2, 1) &&
         add_leaves(c, result(c, in), 2, -1) && (!steps || accumulator(c, in->shape));
}

static bool rule_gather(rule_ctx *c, const vmem_hlo_instruction *in) {
  int64_t ext[MAX_RANK] = {0};
  if (in->noperands < 2 || in->operands[0]->shape->tuple)
    return rule_default(c, in);
  ints(attr(in, "slice_sizes"), ext, MAX_RANK);
  return add(c, opnd(c, in, 0), ext, 2, 0) && add_leaves(c, opnd(c, in, 1), 2, 1) &&
         add_leaves(c, result(c, in), 2, -1);
}

static bool rule_scatter(rule_ctx *c, const vmem_hlo_instruction *in) {
  if (c->whole || in->noperands < 3 || in->operands[in->noperands - 1]->shape->tuple)
    return rule_default(c, in);
  const vmem_shape *upd = in->operands[in->noperands - 1]->shape;
  int64_t ext[MAX_RANK] = {0}, v[MAX_RANK];
  size_t n = ints(attr(in, "update_window_dims"), v, MAX_RANK);
  for (size_t i = 0; i < n; i++)
    if (v[i] >= 0 && (size_t)v[i] < upd->rank && v[i] < MAX_RANK)
      ext[v[i]] = upd->dims[v[i]];
  uint64_t slice;
  if (!window_bytes(c, upd, ext, &slice))
    return false;
  c->out->min_bytes += 4 * slice; /* the update slice and the operand slice it lands in, each twice */
  c->out->dominant = (int64_t)in->noperands - 1, c->out->dominant_bytes = 2 * slice;
  return add_leaves(c, opnd(c, in, 1), 2, 1);
}

typedef bool (*rule_fn)(rule_ctx *c, const vmem_hlo_instruction *in);

/* Each rule once, indexed by the rule column of hlo_ops.def (the default
 * for the rest). */
static const struct {
  const char *name;
  rule_fn fn;
} rules[HLO_STD_COUNT] = {
    [HLO_STD_REDUCE] = {"reduce", rule_reduce},
    [HLO_STD_REDUCE_WINDOW] = {"reduce-window", rule_reduce_window},
    [HLO_STD_SORT] = {"sort", rule_sort},
    [HLO_STD_DOT] = {"dot", rule_dot},
    [HLO_STD_CONVOLUTION] = {"convolution", rule_convolution},
    [HLO_STD_GATHER] = {"gather", rule_gather},
    [HLO_STD_SCATTER] = {"scatter", rule_scatter},
};

static int rule_of(const vmem_hlo_instruction *in) {
  int r = hlo_op_table[in->op].rule;
  return r == HLO_STD_NONE ? -1 : r;
}

/* One reading of fusion `in`: body op x by its rule (NULL: none), its
 * operands and result seen as the fusion's where they are, then a window
 * of each fusion operand x does not read and of the result unless x's
 * reaches it. */
static bool fusion_as(rule_ctx *c, const vmem_hlo_instruction *in, const vmem_hlo_instruction *x, int r, bool *read,
                      vmem_std_scoped *one) {
  rule_ctx k = *c;
  k.out = one, k.fusion = in, k.param_read = read, k.result_is_fusion = false;
  memset(read, 0, in->noperands * sizeof *read);
  if (x) {
    int budget = 64;
    const vmem_hlo_instruction *root = x->parent->root;
    k.result_is_fusion = root && reaches(root, x, root->shape, &budget);
    if (!rules[r].fn(&k, x))
      return false;
    if (one->dominant >= -1)
      one->dominant = -3; /* inside the body */
  }
  for (uint32_t j = 0; j < in->noperands; j++)
    if (!read[j] && !add_leaves(&k, in->operands[j]->shape, 2, j))
      return false;
  if (!k.result_is_fusion && !add_leaves(&k, in->shape, 2, -1))
    return false;
  c->unsized = c->unsized || k.unsized;
  return true;
}

/* A fusion: the heaviest reading over the body's ops that have a rule;
 * an elementwise body streams the fusion's operands and result alone. */
static bool rule_fusion(rule_ctx *c, const vmem_hlo_instruction *in) {
  bool *read = vmem__alloc(c->alloc, (in->noperands + 1) * sizeof *read);
  if (!read) {
    err_set(c->err, VMEM_ERR_NOMEM, 0, "out of memory");
    return false;
  }
  vmem_std_scoped best = {.applies = true, .dominant = -1, .rule = "fusion"};
  bool ok = fusion_as(c, in, NULL, -1, read, &best);
  for (uint32_t k = 0; ok && k < in->ncalled; k++)
    for (uint32_t i = 0; ok && i < in->called[k]->ninstrs; i++) {
      const vmem_hlo_instruction *x = in->called[k]->instrs[i];
      int r = rule_of(x);
      vmem_std_scoped one = {.applies = true, .dominant = -1, .rule = r >= 0 ? rules[r].name : NULL};
      if (r >= 0 && (ok = fusion_as(c, in, x, r, read, &one)) && one.min_bytes >= best.min_bytes)
        best = one; /* a tie goes to the body's rule: it names what the op needs */
    }
  vmem__free(c->alloc, read);
  if (ok)
    *c->out = best;
  return ok;
}

/* Ops that execute no code of their own, or whose scoped need is not this
 * model's to say (a custom call: Pallas kernels are sized exactly). */
static bool modelled(const vmem_hlo_instruction *in) { return !in->parent->is_fusion && !hlo_has(in, HLO_F_UNSIZED); }

/* The rule for in, into out; c->whole chooses the pass. */
static bool apply(rule_ctx *c, const vmem_hlo_instruction *in) {
  int r = rule_of(in);
  c->out->rule = r >= 0 ? rules[r].name : in->op == HLO_OP_FUSION ? "fusion" : "elementwise or data movement";
  return r >= 0 ? rules[r].fn(c, in) : in->op == HLO_OP_FUSION ? rule_fusion(c, in) : rule_default(c, in);
}

vmem_status vmem_hlo_instruction_min_scoped(const vmem_hlo_instruction *in, const vmem_target *t, vmem_std_scoped *out,
                                            vmem_error *err) {
  if (!out) {
    err_set(err, VMEM_ERR_ARGUMENT, 0, "a result is needed");
    return VMEM_ERR_ARGUMENT;
  }
  err_clear(err);
  memset(out, 0, sizeof *out);
  out->dominant = -1;
  if (!in || !t) {
    err_set(err, VMEM_ERR_ARGUMENT, 0, "an instruction and a target are needed");
    return VMEM_ERR_ARGUMENT;
  }
  if (!modelled(in))
    return VMEM_OK;
  out->applies = true;
  vmem_std_scoped whole = {.dominant = -1};
  rule_ctx c = {.t = t, .err = err, .out = out}, w = {.t = t, .err = err, .out = &whole, .whole = true};
  if (!apply(&c, in) || !apply(&w, in)) {
    out->applies = false;
    return err->code;
  }
  out->whole_bytes = whole.min_bytes;
  if (whole.min_bytes < out->min_bytes) /* windows nearly whole: one step needs less than two buffers */
    out->min_bytes = whole.min_bytes, out->dominant = whole.dominant, out->dominant_bytes = whole.dominant_bytes;
  if (c.unsized || w.unsized)
    memset(out, 0, sizeof *out), out->dominant = -1; /* some array cannot be sized: not modelled */
  return VMEM_OK;
}

/* The modelled choice above the minimum (docs/program.md): the op in one
 * step when its whole arrays fit a quarter of the limit; else windows
 * doubled from the least while they fit that quarter; the least when not
 * even that fits. The quarter is fitted to the one published pipelined
 * case (a 2048x2048 bf16 matmul that took 16 steps and 2.85 MiB under a
 * 16 MiB limit, though its 16 MiB whole would have fit): the compiler
 * keeps large arrays pipelined rather than fill its limit. */
uint64_t vmem_std_scoped_likely(const vmem_std_scoped *m, uint64_t limit) {
  if (!m || !m->applies)
    return 0;
  uint64_t budget = limit / 4;
  if (m->whole_bytes <= budget)
    return m->whole_bytes;
  uint64_t b = m->min_bytes;
  while (b && b <= budget / 2 && 2 * b < m->whole_bytes)
    b *= 2;
  return b;
}
