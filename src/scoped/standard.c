/*
 * standard.c — a model of the scoped VMEM a standard HLO op needs at the
 * least: the compiler streams its operands and result through VMEM in
 * windows, double-buffered, and some ops need whole extents in one window.
 * The figure is a lower bound from this model, not the compiler's choice
 * (which is larger and not modelled); where it already exceeds the limit,
 * the op cannot compile as this model sees it — per the seed, likely a
 * compiler-side problem to report with the HLO.
 *
 * A window is a shape like the array's, with each dimension cut to the
 * extent the rule gives (1 by default) and padded by the array's own
 * tiling, so "1" in every dimension is exactly one tile. Rules:
 *  - elementwise and data movement (the default): a tile of each operand
 *    and of the result;
 *  - reduce: a tile of each, and one f32 accumulator tile;
 *  - reduce-window: the operand window spans the window's size in each
 *    dimension (a cumulative sum over n elements spans n);
 *  - sort: every operand whole along the sorted dimension;
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
  bool unsized; /* an array with an unbounded dimension: not modelled */
} rule_ctx;

static bool op_is(const vmem_hlo_instruction *in, const char *name) {
  return sv_eq(*in->opcode, name, strlen(name));
}

/* ---- windows ---------------------------------------------------------------- */

/* The padded bytes of a window of array shape s: dims cut to ext[i]
 * (0: 1), capped at the array's own, tiled as the array is on the target. */
static bool window_bytes(rule_ctx *c, const vmem_shape *s, const int64_t *ext, uint64_t *bytes) {
  *bytes = 0;
  if (s->tuple || s->rank > MAX_RANK)
    return true;
  vmem_error e;
  vmem_shape *laid = vmem_shape_with_tpu_layout(s, c->t, c->alloc, &e);
  vmem_size z = {0};
  bool sized = laid != NULL;
  for (size_t i = 0; sized && i < laid->rank; i++) {
    int64_t want = ext && ext[i] > 0 ? ext[i] : 1;
    laid->dims[i] = laid->dims[i] < want ? laid->dims[i] : want;
  }
  sized = sized && shape_array_size(laid, &z, &e) == VMEM_OK;
  vmem_shape_free(laid);
  if (!sized && e.code == VMEM_ERR_NOMEM) {
    *c->err = e;
    return false;
  }
  c->unsized = c->unsized || !sized; /* an unbounded dimension, say */
  *bytes = z.bytes;
  return true;
}

/* Adds a window with its buffers; the largest names the dominant one. */
static bool add(rule_ctx *c, const vmem_shape *s, const int64_t *ext, int buffers, int64_t who) {
  uint64_t b;
  if (!window_bytes(c, s, ext, &b))
    return false;
  uint64_t total = b * (uint64_t)buffers;
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

/* ---- rules ---------------------------------------------------------------------- */

static bool rule_default(rule_ctx *c, const vmem_hlo_instruction *in) {
  for (uint32_t k = 0; k < in->noperands; k++)
    if (!add_leaves(c, in->operands[k]->shape, 2, k))
      return false;
  return add_leaves(c, in->shape, 2, -1);
}

static bool rule_reduce(rule_ctx *c, const vmem_hlo_instruction *in) {
  return rule_default(c, in) && accumulator(c, in->shape);
}

static bool rule_reduce_window(rule_ctx *c, const vmem_hlo_instruction *in) {
  int64_t ext[MAX_RANK] = {0};
  size_t n = window_sizes(in, ext, MAX_RANK);
  for (uint32_t k = 0; k < in->noperands; k++) {
    const vmem_shape *s = in->operands[k]->shape;
    bool windowed = !s->tuple && n == s->rank && k < (in->noperands + 1) / 2; /* inputs, not init values */
    if (!(windowed ? add(c, s, ext, 2, k) : add_leaves(c, s, 2, k)))
      return false;
  }
  return add_leaves(c, in->shape, 2, -1);
}

static bool rule_sort(rule_ctx *c, const vmem_hlo_instruction *in) {
  int64_t d[1];
  if (ints(attr(in, "dimensions"), d, 1) != 1)
    return rule_default(c, in);
  for (uint32_t k = 0; k < in->noperands; k++) {
    const vmem_shape *s = in->operands[k]->shape;
    int64_t ext[MAX_RANK] = {0};
    if (!s->tuple && (size_t)d[0] < s->rank && s->rank <= MAX_RANK)
      ext[d[0]] = s->dims[d[0]];
    if (!add(c, s, ext, 2, k))
      return false;
  }
  return true; /* sorted in place: the result is the operands' buffers */
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
  cut(in->operands[0]->shape, attr(in, "lhs_contracting_dims"), mxu, 1, lhs);
  cut(in->operands[1]->shape, attr(in, "rhs_contracting_dims"), mxu, 1, rhs);
  const vmem_shape *r = in->operands[1]->shape;
  int64_t minor = r->rank ? (int64_t)shape_minor(r, 0) : -1; /* the rhs's lanes: an MXU width of outputs */
  if (minor >= 0 && minor < MAX_RANK && rhs[minor] == 1)
    rhs[minor] = mxu;
  return add(c, in->operands[0]->shape, lhs, 2, 0) && add(c, r, rhs, 2, 1) && add_leaves(c, in->shape, 2, -1) &&
         accumulator(c, in->shape);
}

/* dim_labels=b01f_01io->b01f: the kernel's spatial window whole in the
 * input and the kernel, features cut to the MXU width. */
static bool rule_convolution(rule_ctx *c, const vmem_hlo_instruction *in) {
  sv labels = attr(in, "dim_labels");
  if (in->noperands < 2 || in->operands[0]->shape->tuple || in->operands[1]->shape->tuple || !labels.len)
    return rule_default(c, in);
  int64_t size[MAX_RANK] = {0}, lhs[MAX_RANK] = {0}, rhs[MAX_RANK] = {0};
  size_t nw = window_sizes(in, size, MAX_RANK);
  int64_t mxu = (int64_t)vmem_target_u64(c->t, VMEM_FACT_MXU_DIM);
  mxu = mxu > 0 ? mxu : 128;
  size_t part = 0, pos = 0;
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
    }
    pos++;
  }
  return add(c, in->operands[0]->shape, lhs, 2, 0) && add(c, in->operands[1]->shape, rhs, 2, 1) &&
         add_leaves(c, in->shape, 2, -1) && accumulator(c, in->shape);
}

static bool rule_gather(rule_ctx *c, const vmem_hlo_instruction *in) {
  int64_t ext[MAX_RANK] = {0};
  if (in->noperands < 2 || in->operands[0]->shape->tuple)
    return rule_default(c, in);
  ints(attr(in, "slice_sizes"), ext, MAX_RANK);
  return add(c, in->operands[0]->shape, ext, 2, 0) && add_leaves(c, in->operands[1]->shape, 2, 1) &&
         add_leaves(c, in->shape, 2, -1);
}

static bool rule_scatter(rule_ctx *c, const vmem_hlo_instruction *in) {
  if (in->noperands < 3 || in->operands[in->noperands - 1]->shape->tuple)
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
  return add_leaves(c, in->operands[1]->shape, 2, 1);
}

typedef bool (*rule_fn)(rule_ctx *c, const vmem_hlo_instruction *in);

/* Each rule once, by opcode (the default for the rest). */
static const struct {
  const char *opcode, *name;
  rule_fn fn;
} rules[] = {
    {"reduce", "reduce", rule_reduce},
    {"reduce-window", "reduce-window", rule_reduce_window},
    {"sort", "sort", rule_sort},
    {"dot", "dot", rule_dot},
    {"convolution", "convolution", rule_convolution},
    {"gather", "gather", rule_gather},
    {"scatter", "scatter", rule_scatter},
};

static int rule_of(const vmem_hlo_instruction *in) {
  for (size_t r = 0; r < sizeof rules / sizeof *rules; r++)
    if (op_is(in, rules[r].opcode))
      return (int)r;
  return -1;
}

/* A fusion: the heaviest rule of its body's ops, then the fusion's own
 * operands and result a tile each. */
static bool rule_fusion(rule_ctx *c, const vmem_hlo_instruction *in) {
  vmem_std_scoped best = {0}, *dst = c->out;
  for (uint32_t k = 0; k < in->ncalled; k++)
    for (uint32_t i = 0; i < in->called[k]->ninstrs; i++) {
      const vmem_hlo_instruction *x = in->called[k]->instrs[i];
      int r = rule_of(x);
      if (r < 0)
        continue;
      vmem_std_scoped one = {.applies = true, .dominant = -1, .rule = rules[r].name};
      c->out = &one;
      bool ok = rules[r].fn(c, x);
      c->out = dst;
      if (!ok)
        return false;
      if (one.min_bytes > best.min_bytes)
        best = one;
    }
  if (!rule_default(c, in))
    return false;
  if (best.min_bytes) {
    dst->min_bytes += best.min_bytes;
    dst->rule = best.rule;
    if (best.dominant_bytes > dst->dominant_bytes)
      dst->dominant_bytes = best.dominant_bytes, dst->dominant = -3; /* inside the body */
  }
  return true;
}

/* Ops that execute no code of their own, or whose scoped need is not this
 * model's to say (a custom call: Pallas kernels are sized exactly). */
static bool modelled(const vmem_hlo_instruction *in) {
  static const char *const skip[] = {"parameter", "constant", "tuple", "get-tuple-element", "bitcast", "while",
                                     "call", "conditional", "custom-call", "domain", "add-dependency",
                                     "opt-barrier", "copy-done", "after-all", "partition-id", "replica-id", NULL};
  if (in->parent->is_fusion)
    return false;
  for (const char *const *s = skip; *s; s++)
    if (op_is(in, *s))
      return false;
  return true;
}

vmem_status vmem_hlo_instruction_min_scoped(const vmem_hlo_instruction *in, const vmem_target *t,
                                            vmem_std_scoped *out, vmem_error *err) {
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
  rule_ctx c = {t, NULL, err, out, false};
  int r = rule_of(in);
  out->rule = r >= 0 ? rules[r].name : op_is(in, "fusion") ? "fusion" : "elementwise or data movement";
  bool ok = r >= 0 ? rules[r].fn(&c, in) : op_is(in, "fusion") ? rule_fusion(&c, in) : rule_default(&c, in);
  if (!ok) {
    out->applies = false;
    return err->code;
  }
  if (c.unsized)
    memset(out, 0, sizeof *out), out->dominant = -1; /* some array cannot be sized: not modelled */
  return VMEM_OK;
}
