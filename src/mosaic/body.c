/*
 * body.c — the work a Mosaic kernel body does per grid step, read from its
 * ops (docs/cost-model.md, "FLOPs from the body"). MLIR prints one op per
 * line, generic or custom form:
 *   op     ::= (results '=')? ('"' name '"' | name) operands attrs ':' types
 *   types  ::= '(' type (',' type)* ')' '->' type | type
 *   vector ::= 'vector<' (dim 'x')* elem '>'
 * Only vector-typed ops count: scalar index arithmetic is not the kernel's
 * work. A matmul is 2·M·N·K with K the product of the lhs's contracting
 * dimensions (tpu.dot_dimension_numbers' first list; else its last
 * dimension, or its first with transpose_lhs). Other vector arith ops are
 * one per result element; math ops are transcendentals, counted apart.
 * Casts, constants, compares and selects move or relabel data: not counted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "body.h"

#define BODY_MAX_RANK 16

typedef struct vtype {
  size_t rank;
  int64_t dims[BODY_MAX_RANK];
  double elems;
} vtype;

static bool starts(const char *p, const char *end, const char *s) {
  size_t n = strlen(s);
  return (size_t)(end - p) >= n && !memcmp(p, s, n);
}

static const char *find(const char *p, const char *end, const char *s) {
  size_t n = strlen(s);
  for (; p + n <= end; p++)
    if (!memcmp(p, s, n))
      return p;
  return NULL;
}

/* vector ::= 'vector<' (dim 'x')* elem '>'   (p at "vector<") */
static bool read_vector(const char *p, const char *end, vtype *v) {
  p += 7;
  v->rank = 0;
  v->elems = 1;
  while (p < end && ch_is_digit(*p) && v->rank < BODY_MAX_RANK) {
    int64_t d = 0;
    while (p < end && ch_is_digit(*p) && d < ((int64_t)1 << 40))
      d = d * 10 + (*p++ - '0');
    if (p >= end || *p != 'x')
      return false;
    p++;
    v->dims[v->rank++] = d;
    v->elems *= (double)d;
  }
  return p < end && *p != '>';
}

/* The op's name: after "%r = " (or at the line's start), quoted or not. */
static bool op_name(const char *p, const char *end, const char **name, size_t *len) {
  while (p < end && (*p == ' ' || *p == '\t'))
    p++;
  if (p < end && *p == '%') {
    const char *eq = find(p, end, " = ");
    if (!eq)
      return false;
    p = eq + 3;
  }
  if (p < end && *p == '"')
    p++;
  const char *s = p;
  while (p < end && ((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '.' || *p == '_'))
    p++;
  *name = s;
  *len = (size_t)(p - s);
  return *len > 0;
}

/* Where the result type starts ("vector<"): the last "-> vector<" on the
 * line, else the line's last ": vector<" (custom forms print one type). */
static const char *result_at(const char *p, const char *end) {
  const char *last = NULL;
  for (const char *q = p; (q = find(q, end, "-> vector<")); q++)
    last = q + 3;
  if (!last)
    for (const char *q = p; (q = find(q, end, ": vector<")); q++)
      last = q + 2;
  return last;
}

static bool op_is(const char *name, size_t len, const char *const *set, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (strlen(set[i]) == len && !memcmp(set[i], name, len))
      return true;
  return false;
}

static bool named(const char *name, size_t len, const char *op) { return op_is(name, len, &op, 1); }

/* K: the lhs's contracting dims' product. */
static double contracted(const char *p, const char *end, const vtype *lhs) {
  const char *dn = find(p, end, "dot_dimension_numbers<[");
  if (dn) {
    double k = 1;
    for (const char *q = dn + 23; q < end && *q != ']'; q++)
      if (ch_is_digit(*q)) {
        size_t i = 0;
        while (q < end && ch_is_digit(*q))
          i = i * 10 + (size_t)(*q++ - '0');
        q--;
        if (i < lhs->rank)
          k *= (double)lhs->dims[i];
      }
    return k;
  }
  if (!lhs->rank)
    return 1;
  return find(p, end, "transpose_lhs = true") ? (double)lhs->dims[0] : (double)lhs->dims[lhs->rank - 1];
}

static void matmul(const char *p, const char *end, const vtype *res, body_cost *out) {
  const char *types = find(p, end, ": (vector<");
  vtype lhs;
  if (!types || !read_vector(types + 3, end, &lhs))
    return;
  out->flops += 2 * res->elems * contracted(p, end, &lhs);
  out->matmuls++;
}

/* Ops that relabel, move or compare data: no arithmetic. */
static bool is_data_op(const char *name, size_t len) {
  static const char *const ops[] = {"arith.constant", "arith.bitcast",    "arith.select", "arith.cmpf",
                                    "arith.cmpi",     "arith.index_cast", "arith.extf",   "arith.truncf",
                                    "arith.extsi",    "arith.extui",      "arith.trunci", "arith.sitofp",
                                    "arith.uitofp",   "arith.fptosi",     "arith.fptoui"};
  return op_is(name, len, ops, sizeof ops / sizeof *ops);
}

static bool is_loop(const char *name, size_t len) {
  return named(name, len, "scf.for") || named(name, len, "scf.while");
}

static bool is_matmul(const char *name, size_t len) {
  return named(name, len, "tpu.matmul") || named(name, len, "vector.contract");
}

/* The op's work (name, its line p..end, its result type at vt or NULL). */
static void count_work(const char *name, size_t len, const char *p, const char *end, const char *vt, body_cost *out) {
  vtype res;
  out->loops |= is_loop(name, len);
  if (!vt || !read_vector(vt, end, &res))
    return;
  if (is_matmul(name, len))
    matmul(p, end, &res, out);
  else if (starts(name, name + len, "math."))
    out->transcendentals += res.elems;
  else if (starts(name, name + len, "arith.") && !is_data_op(name, len))
    out->flops += res.elems;
}

/* ---- values: what the body model may charge ------------------------------
 *
 * Each vector value is followed from its definition to its last use. A
 * load (from a window or scratch) and a view of one (shape_cast,
 * broadcast, a splat constant) live in VMEM already; a computed value
 * streams through the vector registers from producer to consumer unless it
 * is used again after a use that needs all of it at once (a reduction, a
 * matmul operand, a transpose): then it is kept whole (VALUE_KEPT). A
 * tpu.concatenate writes a new whole value and is kept too (flash
 * attention's row-max broadcast across the kv block, in the records). A use
 * inside a loop keeps a value defined before the loop live to the loop's
 * end. Each matmul's lhs is recorded for the MXU's staging
 * (VALUE_MXU_LHS), each bf16 arithmetic result for the f32 copy older
 * VPUs make (VALUE_BF16_F32). Which of these are charged, and how, is the
 * model's (src/scoped/body_model.c), not the reader's. */

enum { MAX_VALUES = 4096, MAX_DEPTH = 64 };

typedef struct bval {
  const char *name;
  size_t nlen;
  int root;        /* the value it is a view of (itself if none) */
  int src;         /* the value of its first operand, -1 if none known */
  bool computed;   /* not a load, a view of one or a splat */
  bool whole_use;  /* used by an op that needs all of it */
  bool row_tiles;  /* 32-bit, in one-row tiles, more than one tile ("one-row tiles" below) */
  bool lane_bcast; /* a 32-bit broadcast along the lanes ((m, 1) to (m, n)), or a shape_cast of one */
  size_t uses, start, end;
  size_t reads;     /* ops that compute from it (not views of it, not stores), each op once */
  size_t read_line; /* the line of the last op counted in reads: y * y reads y once */
  vmem_dtype dt;
  vtype t;
  const char *op;
  size_t oplen;
} bval;

typedef struct bscan {
  vmem_kernel *k;
  bval *v;
  size_t n, cap;
  int *hash; /* open addressing over v, -1 empty */
  size_t hcap;
  struct {
    bool loop;
    size_t start;
  } stack[MAX_DEPTH];
  size_t depth;
  struct {
    size_t start, end;
  } * loops;
  size_t nloops, lcap;
  size_t mcap;  /* k->modelled's room */
  int relayout; /* k->modelled's one-row-tile relayout, -1 until one is seen */
  bool ok;
} bscan;

static size_t hash_name(const char *s, size_t n) {
  size_t h = 2166136261u;
  for (size_t i = 0; i < n; i++)
    h = (h ^ (unsigned char)s[i]) * 16777619u;
  return h;
}

static int lookup(const bscan *b, const char *s, size_t n) {
  for (size_t h = hash_name(s, n) & (b->hcap - 1);; h = (h + 1) & (b->hcap - 1)) {
    int i = b->hash[h];
    if (i < 0)
      return -1;
    if (b->v[i].nlen == n && !memcmp(b->v[i].name, s, n))
      return i;
  }
}

static void insert(bscan *b, int i) {
  size_t h = hash_name(b->v[i].name, b->v[i].nlen) & (b->hcap - 1);
  while (b->hash[h] >= 0 && lookup(b, b->v[i].name, b->v[i].nlen) != b->hash[h])
    h = (h + 1) & (b->hcap - 1);
  b->hash[h] = i; /* a redefinition (another region's %0) shadows the old one */
}

static bool is_ident(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || ch_is_digit(c) || c == '_'; }

static const char *const loads[] = {"vector.load", "tpu.load", "tpu.strided_load", "vector.transfer_read"};
static const char *const views[] = {"vector.shape_cast", "vector.broadcast", "vector.extract_strided_slice",
                                    "arith.constant", "tpu.iota"};
static const char *const wholes[] = {"vector.multi_reduction", "tpu.matmul",    "vector.contract",
                                     "vector.transpose",       "tpu.transpose", "tpu.all_reduce"};

/* The element type of the vector at p ("vector<" ...). */
static bool vector_dtype(const char *p, const char *end, vmem_dtype *dt) {
  const char *q = p + 7;
  while (q < end && (ch_is_digit(*q) || *q == 'x'))
    q++;
  const char *e = q;
  while (e < end && *e != '>' && *e != ',')
    e++;
  return mlir_elem_type(q, (size_t)(e - q), dt);
}

static bool record(bscan *b, kernel_value_kind kind, const vtype *t, vmem_dtype dt, size_t start, size_t end,
                   const char *note) {
  vmem_kernel *k = b->k;
  if (k->nmodelled >= b->mcap) {
    k->facts.unread++; /* a body this large is charged by its first values; the rest are said to be left out */
    return true;
  }
  int64_t dims[VMEM_KERNEL_MAX_RANK];
  size_t rank = t->rank < VMEM_KERNEL_MAX_RANK ? t->rank : VMEM_KERNEL_MAX_RANK;
  for (size_t i = 0; i < rank; i++)
    dims[i] = t->dims[t->rank - rank + i];
  kernel_modelled *m = &k->modelled[k->nmodelled];
  char full[256];
  size_t n = (size_t)snprintf(full, sizeof full, "%s: %s[", note, vmem_dtype_name(dt));
  for (size_t i = 0; i < rank && n < sizeof full; i++)
    n += (size_t)snprintf(full + n, sizeof full - n, "%s%lld", i ? "," : "", (long long)dims[i]);
  if (n < sizeof full)
    snprintf(full + n, sizeof full - n, "]");
  m->shape = kernel_shape(k, dt, dims, rank);
  m->note = arena_strndup(&k->a, full, strlen(full));
  m->kind = kind;
  m->start = start;
  m->end = end;
  m->contracted_param = m->columns_param = -1;
  for (size_t i = 0; i < VMEM_KERNEL_MAX_RANK; i++)
    m->param[i] = -1;
  if (!m->shape || !m->note)
    return false;
  k->nmodelled++;
  return true;
}

/* Uses: every known %name after the results (the first one is a matmul's
 * lhs); *tiled whether any is in one-row tiles. */
static void uses(bscan *b, const char *p, const char *end, size_t ln, bool whole, bool computes, int *first,
                 int *second, bool *tiled) {
  *first = *second = -1;
  *tiled = false;
  for (; p < end; p++) {
    if (*p != '%')
      continue;
    const char *s = ++p;
    while (p < end && is_ident(*p))
      p++;
    int i = lookup(b, s, (size_t)(p - s));
    if (i < 0)
      continue;
    int r = b->v[i].root;
    if (*first < 0)
      *first = i;
    else if (*second < 0)
      *second = i;
    b->v[r].uses++;
    if (computes && b->v[r].read_line != ln)
      b->v[r].reads++, b->v[r].read_line = ln;
    b->v[r].end = ln;
    b->v[r].whole_use |= whole;
    *tiled |= b->v[r].row_tiles;
  }
}

static void regions(bscan *b, const char *p, const char *end, size_t ln, bool loop) {
  while (p < end && (*p == ' ' || *p == '\t'))
    p++;
  if (starts(p, end, "})") && b->depth) {
    b->depth--;
    if (b->stack[b->depth].loop && b->nloops < b->lcap) {
      b->loops[b->nloops].start = b->stack[b->depth].start;
      b->loops[b->nloops++].end = ln;
    }
  }
  const char *e = end;
  while (e > p && (e[-1] == ' ' || e[-1] == '\r'))
    e--;
  if (e - p >= 2 && e[-2] == '(' && e[-1] == '{' && b->depth < MAX_DEPTH) {
    b->stack[b->depth].loop = loop;
    b->stack[b->depth++].start = ln;
  }
}

/* Whether the op makes a bf16 value that a VPU without bf16 holds in f32:
 * bf16 arithmetic, a transpose of bf16, and the widening of bf16 to f32
 * (its f32 result is that copy). The records on v2 and v3 show each. */
static bool bf16_in_f32(const char *name, size_t len, const char *p, const char *end, vmem_dtype result) {
  static const char *const transposes[] = {"vector.transpose", "tpu.transpose"};
  bool arith = (starts(name, name + len, "arith.") && !is_data_op(name, len)) || starts(name, name + len, "math.");
  if ((arith || op_is(name, len, transposes, 2)) && result == VMEM_BF16)
    return true;
  vmem_dtype src;
  const char *in = find(p, end, ": (vector<");
  return named(name, len, "arith.extf") && result == VMEM_F32 && in && vector_dtype(in + 3, end, &src) &&
         src == VMEM_BF16;
}

/* A bf16 block as loaded (a load, or a view of one with its type): not a
 * value computed, broadcast or sliced. */
static bool loaded_bf16(const bscan *b, int i) {
  const bval *v = &b->v[i], *r = &b->v[v->root];
  return v->dt == VMEM_BF16 && !r->computed && op_is(r->op, r->oplen, loads, sizeof loads / sizeof *loads) &&
         v->t.rank == r->t.rank && !memcmp(v->t.dims, r->t.dims, v->t.rank * sizeof *v->t.dims);
}

/* The f32 copies a bf16 op makes on a VPU without bf16, at its line: one
 * for each distinct bf16 block it reads as loaded (x + y over two loaded
 * blocks holds two, as the records of share_add2 and constant_window show),
 * else one of its result (x * 2 over a value already computed, a widening,
 * a transpose). Copies past the first at a line are marked `beside`: the
 * registers spare only one (src/scoped/body_model.c). */
static void record_f32_copies(bscan *b, const char *name, size_t len, const char *end, size_t ln, const vtype *t,
                              const char *res, size_t rlen) {
  char note[160];
  int seen[4];
  size_t n = 0;
  bool arith =
      !named(name, len, "arith.extf") && !named(name, len, "vector.transpose") && !named(name, len, "tpu.transpose");
  for (const char *p = name + len; arith && p < end && n < 4; p++) {
    if (*p != '%')
      continue;
    const char *s = ++p;
    while (p < end && is_ident(*p))
      p++;
    int i = lookup(b, s, (size_t)(p - s));
    bool dup = false;
    for (size_t j = 0; j < n; j++)
      dup |= b->v[seen[j]].root == (i >= 0 ? b->v[i].root : -1);
    if (i < 0 || dup || !loaded_bf16(b, i))
      continue;
    seen[n++] = i;
    snprintf(note, sizeof note, "f32 copy of %%%.*s read by %.*s, line %zu", (int)b->v[i].nlen, b->v[i].name, (int)len,
             name, ln);
    size_t at = b->k->nmodelled;
    b->ok = b->ok && record(b, VALUE_BF16_F32, &b->v[i].t, VMEM_F32, ln, ln, note);
    if (b->ok && b->k->nmodelled > at)
      b->k->modelled[at].beside = n > 1;
  }
  if (n)
    return;
  snprintf(note, sizeof note, "f32 copy of %%%.*s = %.*s, line %zu", (int)rlen, res, (int)len, name, ln);
  b->ok = b->ok && record(b, VALUE_BF16_F32, t, VMEM_F32, ln, ln, note);
}

/* A broadcast of a row down the sublanes: the source's second-minor dim
 * is 1 (or it has rank 1), the result's is more, the lanes are the same.
 * A broadcast along the lanes ((m, 1) to (m, n)) is not one: the records
 * charge nothing for it on any target. */
static bool row_broadcast(const char *name, size_t len, const vtype *src, const vtype *res) {
  if (!named(name, len, "vector.broadcast") || res->rank < 2 || !src->rank)
    return false;
  int64_t rows = src->rank >= 2 ? src->dims[src->rank - 2] : 1;
  return rows == 1 && res->dims[res->rank - 2] > 1 && src->dims[src->rank - 1] == res->dims[res->rank - 1];
}

/* On v2-v4 the compiler charges a row broadcast about one tile of rows of
 * the result, to the body's end (probes of x + b[0:1, :] on libtpu 0.0.42.1;
 * that the broadcast is materialised there is our reading): recorded as
 * that tile, [tile rows, lanes]. */
static void record_row_broadcast(bscan *b, const vtype *res, vmem_dtype dt, size_t ln, const char *res_name,
                                 size_t rlen) {
  int bits = vmem_dtype_bits(dt);
  vtype rows = {.rank = 2, .dims = {bits >= 8 && bits <= 32 ? 256 / bits : 8, res->dims[res->rank - 1]}};
  char note[160];
  snprintf(note, sizeof note, "row broadcast %%%.*s = vector.broadcast, line %zu", (int)rlen, res_name, ln);
  b->ok = b->ok && record(b, VALUE_ROW_BCAST, &rows, dt, ln, ln, note);
}

/* A transpose of a 16-bit block of more than 128 rows: recorded as one
 * 128-lane column strip of its result, [result rows, 128] (the input's
 * minor dim by 128 of its rows), which the footprint model charges less what
 * the vector registers hold. Probes of o_ref[...] = x_ref[...].T on libtpu
 * 0.0.42.1 (bf16, 128 to 2048 rows by 256 to 4096 lanes; v4, v5e, v5p, v6e,
 * 7x) grow with the input's lanes and hardly with its rows, and charge
 * nothing at 128 rows or for f32. An 8-bit transpose is recorded whole: v2-v4
 * transpose it in a wider type (the footprint model says which). A batched
 * transpose (leading dims past 1) is not recorded: no probe has one. */
static void record_transpose(bscan *b, const char *name, size_t len, const vtype *t, vmem_dtype dt, size_t ln,
                             const char *res, size_t rlen) {
  static const char *const transposes[] = {"vector.transpose", "tpu.transpose"};
  int bits = vmem_dtype_bits(dt);
  if (!op_is(name, len, transposes, 2) || (bits != 16 && bits != 8) || t->rank < 2)
    return;
  for (size_t i = 0; i + 2 < t->rank; i++)
    if (t->dims[i] != 1)
      return;
  vtype strip = {.rank = 2, .dims = {t->dims[t->rank - 2], bits == 8 ? t->dims[t->rank - 1] : 128}};
  if (bits == 16 && t->dims[t->rank - 1] <= 128)
    return;
  char note[160];
  snprintf(note, sizeof note, "transpose %s of %%%.*s = %.*s, line %zu", bits == 8 ? "widened" : "strip", (int)rlen,
           res, (int)len, name, ln);
  b->ok = b->ok && record(b, bits == 8 ? VALUE_TRANSPOSE8 : VALUE_TRANSPOSE, &strip, dt, ln, ln, note);
}

/* An 8-bit value widened to 32 bits (arith.extsi, arith.sitofp, ...): one
 * 8-bit vreg unpacks into four, and the compiler holds part of a row strip
 * of the result: 45-90 KiB at 6144 and 8192 lanes on v5e, v6e, v5p and 7x
 * in the generated kernels (oracle/gen, the fitting split), nothing that
 * narrow rows show. Recorded as a strip of 4 rows of the result (16 bytes
 * a lane), the ceiling's alone. */
static void record_widen8(bscan *b, const char *name, size_t len, const vtype *t, vmem_dtype dt, int first, size_t ln,
                          const char *res, size_t rlen) {
  static const char *const widens[] = {"arith.extsi", "arith.extui", "arith.sitofp", "arith.uitofp"};
  if (!op_is(name, len, widens, 4) || first < 0 || vmem_dtype_bits(b->v[first].dt) != 8 || vmem_dtype_bits(dt) != 32 ||
      !t->rank)
    return;
  vtype strip = {.rank = 2, .dims = {4, t->dims[t->rank - 1]}};
  char note[160];
  snprintf(note, sizeof note, "a strip of the 8-bit widening %%%.*s = %.*s, line %zu", (int)rlen, res, (int)len, name,
           ln);
  b->ok = b->ok && record(b, VALUE_WIDEN8, &strip, dt, ln, ln, note);
}

/* ---- one-row tiles ---------------------------------------------------------
 *
 * Mosaic tiles a 32-bit ref whose second-minor dim is 1 as (1, 128), and a
 * value loaded from it keeps those tiles: one row to a vreg. Elementwise ops
 * and stores into such a ref keep them; an op that needs the native (8, 128)
 * tiles (a reduction, a matmul, a transpose, a store into a ref tiled so)
 * relays the value out. When it is more than one tile, libtpu 0.0.42.1
 * charges 36 KiB more for that, once per kernel, on v2 to v5p and not on
 * v6e or 7x (probes of [1, G, 1, D] f32 blocks, G 2 to 64, D 128 to 512, one
 * to three such blocks, reductions along either axis, matmuls, transposes,
 * stores; JAX's paged attention at 2 and 4 q heads per kv head). On v2-v4 a
 * row broadcast down the sublanes of a 32-bit row loaded as one row
 * (b_ref[0:1, :]) wider than one tile charges the same 36 KiB, and so does
 * narrowing one-row tiles to bf16 (none on v5); one of each in a kernel
 * charges it once; a row sliced from a block loaded whole charges none
 * (oracle/cases/own.py one_row_*, bcast_sliced_*; docs/fidelity.md). The
 * relayout is recorded once, with what made it (RELAYOUT_OPS,
 * RELAYOUT_BROADCAST): which targets charge each is a fact of theirs. */
enum { TILE_LANES = 128 }; /* the lanes of a tile, the same on every target */

/* Whether the first memref on the line has a second-minor dim of 1. */
static bool ref_one_row(const char *p, const char *end) {
  const char *m = find(p, end, "memref<");
  vtype r;
  return m && read_vector(m, end, &r) && r.rank >= 2 && r.dims[r.rank - 2] == 1;
}

static bool is_load(const char *name, size_t len) { return op_is(name, len, loads, sizeof loads / sizeof *loads); }

static bool is_store(const char *name, size_t len) {
  static const char *const stores[] = {"tpu.vector_store", "vector.store", "tpu.store", "vector.transfer_write"};
  return op_is(name, len, stores, sizeof stores / sizeof *stores);
}

/* A value loaded in one-row tiles, more than one tile of it. */
static bool loads_row_tiles(const char *name, size_t len, const char *end, const vtype *t, vmem_dtype dt) {
  return is_load(name, len) && vmem_dtype_bits(dt) == 32 && t->elems > TILE_LANES && ref_one_row(name + len, end);
}

/* A row broadcast whose row was loaded as one row (not sliced from a
 * block), 32-bit and wider than a tile: v2-v4's relayout. */
static bool loaded_wide_row(const bscan *b, int src) {
  const bval *v = &b->v[src], *r = &b->v[v->root];
  bool one_row = r->t.rank < 2 || r->t.dims[r->t.rank - 2] == 1;
  return !r->computed && is_load(r->op, r->oplen) && one_row && vmem_dtype_bits(v->dt) == 32 && v->t.rank &&
         v->t.dims[v->t.rank - 1] > TILE_LANES;
}

static void record_relayout(bscan *b, unsigned by, const bval *v, size_t ln, const char *op, size_t oplen) {
  if (b->relayout >= 0) {
    b->k->modelled[b->relayout].relayout |= by;
    return;
  }
  char note[160];
  snprintf(note, sizeof note, "one-row tiles of %%%.*s relaid out for %.*s, line %zu", (int)v->nlen, v->name,
           (int)oplen, op, ln);
  size_t at = b->k->nmodelled;
  b->ok = b->ok && record(b, VALUE_RELAYOUT, &v->t, v->dt, 1, ln, note);
  if (b->ok && b->k->nmodelled > at) {
    b->relayout = (int)at;
    b->k->modelled[at].relayout = by;
  }
}

/* The relayout an op makes of a value it reads in one-row tiles (tiled;
 * `whole`: the op needs all of it): see above. Row broadcasts are
 * value_line's, beside the tile of rows they hold. */
static void relayouts(bscan *b, const char *name, size_t len, const char *end, size_t ln, int first, bool tiled,
                      bool whole) {
  if (first < 0 || !tiled)
    return;
  if (whole || (is_store(name, len) && !ref_one_row(name + len, end)))
    record_relayout(b, RELAYOUT_OPS, &b->v[first], ln, name, len);
  else if (named(name, len, "arith.truncf"))
    record_relayout(b, RELAYOUT_BROADCAST, &b->v[first], ln, name, len);
}

/* A 32-bit broadcast along the lanes, (m, 1) to (m, n). */
static bool lane_broadcast(const char *name, size_t len, const vtype *src, const vtype *res, vmem_dtype dt) {
  return named(name, len, "vector.broadcast") && vmem_dtype_bits(dt) == 32 && src->rank >= 2 && res->rank >= 2 &&
         src->dims[src->rank - 1] == 1 && res->dims[res->rank - 1] > 1;
}

/* A lane broadcast stored into a ref in one-row tiles: on v2-v4 the
 * compiler charges 4 KiB, a vreg, for each row of it (one_row_sum: G x 4
 * KiB for G = 2 to 64 q rows, whatever their lanes; v5e and later nothing).
 * Recorded as that many 8-row f32 tiles. Paged attention's store of its
 * matmul's result into the same tiles costs nothing: not a broadcast. */
static void record_lane_store(bscan *b, const char *name, size_t len, const char *end, size_t ln, int first) {
  if (first < 0 || !b->v[first].lane_bcast || !is_store(name, len) || !ref_one_row(name + len, end))
    return;
  const bval *v = &b->v[first];
  int64_t lanes = v->t.rank ? v->t.dims[v->t.rank - 1] : 1, rows = 1;
  for (size_t i = 0; i + 1 < v->t.rank; i++)
    if (v->t.dims[i] < 1 || rows > INT64_MAX / 8 / v->t.dims[i])
      return;
    else
      rows *= v->t.dims[i];
  if (lanes < 1)
    return;
  vtype tiles = {.rank = 2, .dims = {rows * 8, TILE_LANES}};
  char note[160];
  snprintf(note, sizeof note, "lane broadcast %%%.*s stored into one-row tiles, line %zu", (int)v->nlen, v->name, ln);
  b->ok = b->ok && record(b, VALUE_LANE_BCAST, &tiles, VMEM_F32, ln, ln, note);
}

/* An elementwise 32-bit op keeps one-row tiles as it finds them. */
static bool keeps_row_tiles(const char *name, size_t len, bool tiled, vmem_dtype dt) {
  bool elementwise =
      (starts(name, name + len, "arith.") && !is_data_op(name, len)) || starts(name, name + len, "math.");
  return tiled && elementwise && vmem_dtype_bits(dt) == 32;
}

/* MLIR folds truncf(extf(x)) to x when x has the result's type (arith's
 * TruncFOp folder, mlir/lib/Dialect/Arith/IR/ArithOps.cpp), and Mosaic
 * canonicalizes before it lays out vectors: JAX's paged attention widens
 * and narrows each bf16 kv block so, and libtpu charges nothing for it. The
 * index of x, or -1. */
static int round_trip(const bscan *b, const char *name, size_t len, int first, const vtype *t, vmem_dtype dt) {
  if (!named(name, len, "arith.truncf") || first < 0)
    return -1;
  const bval *e = &b->v[first];
  if (!named(e->op, e->oplen, "arith.extf") || e->src < 0)
    return -1;
  const bval *x = &b->v[e->src];
  bool same = x->dt == dt && x->t.rank == t->rank && !memcmp(x->t.dims, t->dims, t->rank * sizeof *t->dims);
  return same ? e->src : -1;
}

/* A folded extf whose only use was the truncf makes no f32 copy: drop the
 * one record_f32_copies made at its line (no kept value, whose group
 * indices would move, is recorded before finish). */
static void drop_folded_copy(bscan *b, const bval *e) {
  vmem_kernel *k = b->k;
  if (e->uses != 1)
    return;
  for (size_t m = k->nmodelled; m-- > 0;)
    if (k->modelled[m].kind == VALUE_BF16_F32 && k->modelled[m].start == e->start) {
      memmove(&k->modelled[m], &k->modelled[m + 1], (k->nmodelled - m - 1) * sizeof *k->modelled);
      k->nmodelled--;
      b->relayout -= b->relayout > (int)m;
      return;
    }
}

/* One line: its op's work, its regions, the uses it makes, the value it
 * defines; one pass over the body gives the cost and the values. */
static void value_line(bscan *b, const char *p, const char *end, size_t ln, body_cost *cost) {
  const char *name, *q = p;
  size_t len;
  if (!op_name(p, end, &name, &len))
    return regions(b, p, end, ln, false);
  const char *vt = result_at(p, end);
  count_work(name, len, p, end, vt, cost);
  regions(b, p, end, ln, is_loop(name, len));
  while (q < end && (*q == ' ' || *q == '\t'))
    q++;
  const char *res = NULL;
  size_t rlen = 0;
  if (q < end && *q == '%') {
    res = q + 1;
    while (res + rlen < end && is_ident(res[rlen]))
      rlen++;
  }
  int first, second;
  bool matmul = is_matmul(name, len), whole = op_is(name, len, wholes, sizeof wholes / sizeof *wholes), tiled;
  b->k->facts.reduces |= named(name, len, "vector.multi_reduction");
  bool computes = !op_is(name, len, views, sizeof views / sizeof *views) && !is_store(name, len);
  uses(b, name + len, end, ln, whole, computes, &first, &second, &tiled);
  char note[160];
  if (matmul && first >= 0) { /* an f32 lhs too: charged nothing, but it bounds the model's ceiling */
    const bval *l = &b->v[first];
    snprintf(note, sizeof note, "lhs %%%.*s of the %.*s at line %zu", (int)l->nlen, l->name, (int)len, name, ln);
    b->ok = b->ok && record(b, VALUE_MXU_LHS, &l->t, l->dt, ln, ln, note);
    vtype out;
    if (b->ok && b->k->nmodelled) {
      kernel_modelled *m = &b->k->modelled[b->k->nmodelled - 1];
      m->contracted = (int64_t)contracted(name, end, &l->t);
      m->columns = vt && read_vector(vt, end, &out) && out.rank ? out.dims[out.rank - 1] : 0;
    }
  }
  if (matmul && second >= 0 && !b->v[b->v[second].root].computed && vmem_dtype_bits(b->v[second].dt) == 32) {
    const bval *r = &b->v[second]; /* an f32 rhs: split into bf16 parts for the MXU (the ceiling's) */
    snprintf(note, sizeof note, "rhs %%%.*s of the %.*s at line %zu, 32-bit: its bf16 parts for the MXU", (int)r->nlen,
             r->name, (int)len, name, ln);
    b->ok = b->ok && record(b, VALUE_MXU_RHS32, &r->t, r->dt, ln, ln, note);
  }
  if (matmul && second >= 0 && b->v[b->v[second].root].computed) { /* a rhs made in the body: whole, for the MXU */
    const bval *r = &b->v[second];
    snprintf(note, sizeof note, "rhs %%%.*s of the %.*s at line %zu, made in the body", (int)r->nlen, r->name, (int)len,
             name, ln);
    b->ok = b->ok && record(b, VALUE_MXU_RHS, &r->t, r->dt, ln, ln, note);
  }
  vtype t;
  vmem_dtype dt;
  relayouts(b, name, len, end, ln, first, tiled, whole);
  record_lane_store(b, name, len, end, ln, first);
  if (!res || !vt)
    return;
  if (!read_vector(vt, end, &t) || !vector_dtype(vt, end, &dt) || b->n == b->cap) {
    b->k->facts.unread++; /* a vector the model cannot size: counted, so that check can say what it left out */
    return;
  }
  if (first >= 0 && row_broadcast(name, len, &b->v[first].t, &t)) {
    if (loaded_wide_row(b, first))
      record_relayout(b, RELAYOUT_BROADCAST, &b->v[first], ln, name, len);
    record_row_broadcast(b, &t, dt, ln, res, rlen);
  }
  if (bf16_in_f32(name, len, p, end, dt))
    record_f32_copies(b, name, len, end, ln, &t, res, rlen);
  record_transpose(b, name, len, &t, dt, ln, res, rlen);
  record_widen8(b, name, len, &t, dt, first, ln, res, rlen);
  bval *v = &b->v[b->n];
  memset(v, 0, sizeof *v);
  v->name = res;
  v->nlen = rlen;
  v->root = (int)b->n;
  v->start = v->end = ln;
  v->t = t;
  v->dt = dt;
  v->op = name;
  v->oplen = len;
  v->src = first;
  int x = round_trip(b, name, len, first, &t, dt);
  bool is_view = x >= 0 || op_is(name, len, views, sizeof views / sizeof *views);
  v->computed = !is_view && !is_load(name, len);
  v->row_tiles = loads_row_tiles(name, len, end, &t, dt) || (v->computed && keeps_row_tiles(name, len, tiled, dt));
  v->lane_bcast = first >= 0 && (lane_broadcast(name, len, &b->v[first].t, &t, dt) ||
                                 (named(name, len, "vector.shape_cast") && b->v[first].lane_bcast));
  if (x >= 0) {
    drop_folded_copy(b, &b->v[first]);
    v->root = b->v[x].root;
  } else if (is_view && first >= 0)
    v->root = b->v[first].root;
  insert(b, (int)b->n++);
}

static bool kept(const bscan *b, size_t i) {
  const bval *v = &b->v[i];
  bool gathered = v->oplen == 15 && !memcmp(v->op, "tpu.concatenate", 15);
  return v->root == (int)i && v->computed && (gathered || (v->whole_use && v->uses >= 2));
}

/* Two kept values are alike when the same op makes the same vector type:
 * the copies a Python loop unrolls in the body (one per head). */
static bool alike(const bval *x, const bval *y) {
  return x->oplen == y->oplen && !memcmp(x->op, y->op, x->oplen) && x->dt == y->dt && x->t.rank == y->t.rank &&
         !memcmp(x->t.dims, y->t.dims, x->t.rank * sizeof *x->t.dims);
}

/* lead[i]: the first kept value alike with kept value i (itself if none
 * before it); count[j] for each first one: how many are alike with it.
 * Quadratic in the kept values only, which are few next to the body's. */
static void group_kept(const bscan *b, size_t *lead, size_t *count) {
  for (size_t i = 0; i < b->n; i++) {
    lead[i] = i, count[i] = 0;
    if (!kept(b, i))
      continue;
    for (size_t j = 0; j < i; j++)
      if (lead[j] == j && count[j] && alike(&b->v[j], &b->v[i])) {
        lead[i] = j;
        break;
      }
    count[lead[i]]++;
  }
}

/* A value's bytes laid out in vreg tiles: 8 sublanes of 32 bits (16 rows of
 * 16-bit values, 32 of 8-bit; masks as 32-bit) by 128 lanes, leading dims
 * whole. Saturates: a body this large is over any limit anyway. */
static uint64_t tile_bytes(const bval *v) {
  int bits = vmem_dtype_bits(v->dt);
  uint64_t width = bits >= 8 && bits <= 32 ? (uint64_t)bits / 8 : 4, rows = 32 / width, n = width;
  for (size_t i = 0; i < v->t.rank; i++) {
    uint64_t d = (uint64_t)(v->t.dims[i] > 0 ? v->t.dims[i] : 0), step = i + 1 == v->t.rank   ? TILE_LANES
                                                                         : i + 2 == v->t.rank ? rows
                                                                                              : 1;
    if (!ck_round_up(d, step, &d) || !ck_mul(n, d, &n))
      return UINT64_MAX;
  }
  if (v->t.rank == 1 && !ck_mul(n, rows, &n))
    return UINT64_MAX;
  return n;
}

/* The line where the body's computed values hold the most at once in
 * program order, as if none streamed through the registers (each from its
 * line to its last use, loops extended), and each of them recorded there as
 * VALUE_LIVE: the footprint model's ceiling takes their sum for each copy of
 * an unrolled body, and on v2/v3 beside the rest (src/scoped/body_model.c).
 * Recorded as values so that their dims follow the blocks in fit as the
 * others do. Values start in line order; their ends are sorted, and one
 * sweep adds each value at its start after dropping those ended before it:
 * O(n log n) in the values, whatever the body's length. */
typedef struct live_end {
  size_t end;
  uint64_t bytes;
} live_end;

static int by_end(const void *a, const void *b) {
  const live_end *x = a, *y = b;
  return x->end < y->end ? -1 : x->end > y->end;
}

/* A value past 1 PiB counts as 1 PiB, so that MAX_VALUES of them sum in 64
 * bits; such a body is over any limit anyway. */
static const uint64_t LIVE_MAX = (uint64_t)1 << 50;

static bool live_counts(const bval *v, int i) { return v->root == i && v->computed && v->end > v->start; }

/* A computed value that cannot stream through the registers: read by two
 * or more ops, or by one that needs all of it (a reduction, a matmul). A
 * matmul's result streams into what reads it (the matmul_acc records charge
 * the windows and the lhs alone). A chain of single reads streams:
 * the records of elementwise chains are exact with windows and scratch
 * alone. */
static bool holds(const bval *v, int i) { return live_counts(v, i) && (v->reads >= 2 || v->whole_use); }

static bool record_live(bscan *b) {
  live_end *ends = vmem__alloc(&b->k->a.alloc, (b->n ? b->n : 1) * sizeof *ends);
  if (!ends)
    return false;
  size_t n = 0;
  for (size_t i = 0; i < b->n; i++)
    if (live_counts(&b->v[i], (int)i)) {
      uint64_t bytes = tile_bytes(&b->v[i]);
      ends[n++] = (live_end){b->v[i].end, bytes < LIVE_MAX ? bytes : LIVE_MAX};
    }
  qsort(ends, n, sizeof *ends, by_end);
  uint64_t live = 0, peak = 0;
  size_t at = 0, e = 0;
  for (size_t i = 0; i < b->n; i++) {
    const bval *v = &b->v[i];
    if (!live_counts(v, (int)i))
      continue;
    while (e < n && ends[e].end < v->start)
      live -= ends[e++].bytes;
    uint64_t bytes = tile_bytes(v);
    live += bytes < LIVE_MAX ? bytes : LIVE_MAX;
    if (live > peak)
      peak = live, at = v->start;
  }
  vmem__free(&b->k->a.alloc, ends);
  for (size_t i = 0; at && i < b->n && b->ok; i++) {
    const bval *v = &b->v[i];
    if (!live_counts(v, (int)i) || v->start > at || v->end < at)
      continue;
    char note[160];
    snprintf(note, sizeof note, "%%%.*s = %.*s, live at line %zu", (int)v->nlen, v->name, (int)v->oplen, v->op, at);
    b->ok = record(b, VALUE_LIVE, &v->t, v->dt, at, at, note);
  }
  return b->ok;
}

/* A value that two or more ops read, none of which needs all of it, of 64
 * KiB or more in vreg tiles (VALUE_SHARED's, below). */
static bool shared(const bscan *b, size_t i) {
  const bval *v = &b->v[i];
  return v->root == (int)i && v->computed && v->reads >= 2 && !kept(b, i) && v->end > v->start;
}

/* The copies the ceiling counts: the most kept values alike (`kept_copies`),
 * or the most shared values of 64 KiB or more alike, whichever is more. A
 * body that unrolls a loop whose copies keep nothing whole (held-out
 * experts' MLPs: gelu's x read three times) shows its copies by these.
 * The shared values are gathered once, then compared pairwise: they are
 * few next to the body's. */
static size_t shared_copies(const bscan *b, size_t kept_copies) {
  size_t most = kept_copies, n = 0;
  int *big = vmem__alloc(&b->k->a.alloc, (b->n ? b->n : 1) * sizeof *big);
  if (!big)
    return most; /* the ceiling then counts the kept copies alone */
  for (size_t i = 0; i < b->n; i++)
    if (shared(b, i))
      big[n++] = (int)i;
  for (size_t i = 0; i < n; i++) {
    if (tile_bytes(&b->v[big[i]]) < 65536)
      continue;
    size_t c = 0;
    for (size_t j = 0; j < n; j++)
      c += alike(&b->v[big[i]], &b->v[big[j]]);
    most = c > most ? c : most;
  }
  vmem__free(&b->k->a.alloc, big);
  return most;
}

/* The root of the value an op's first operand is, or -1. */
static int first_operand_root(const bscan *b, int j) {
  int s = j >= 0 ? b->v[j].src : -1;
  return s >= 0 ? b->v[s].root : -1;
}

/* The line of a vector reduction between lines `from` and `to` that
 * reduces an op of value i (z * z), or 0. Value i, read on both sides of
 * it, is read across it: the reduction needs every row of what it reduces
 * before any row of its result exists, so the value (a layer norm's
 * centred rows z, read by z * z and again by z * rsqrt(var)) is held whole
 * while it completes. Records: layer and RMS norms over computed rows, and
 * the RMS norm of a residual sum (oracle/cases/own.py held_resrms_*). Only
 * the reduced op's first operand is looked at; a value met elsewhere stays
 * a shared value. */
static size_t reduction_within(const bscan *b, int i, size_t from, size_t to) {
  for (size_t j = 0; j < b->n; j++) {
    const bval *r = &b->v[j];
    if (r->start > from && r->start < to && r->oplen == strlen("vector.multi_reduction") &&
        !memcmp(r->op, "vector.multi_reduction", r->oplen) && first_operand_root(b, r->src) == i)
      return r->start;
  }
  return 0;
}

/* A computed value that two or more ops read, none of which needs all of it
 * (gelu's x, read by x*x*x and by 0.5*x): the estimate streams it, as the
 * records of single-use chains show, but the compiler may hold it whole
 * between its uses, and the ceiling counts it so (VALUE_SHARED, over its
 * lines). Held-out megablox-like experts (oracle/cases/own.py
 * held_experts_*) charge up to 3.6 MiB for such values, which no other
 * rule sees. */
static bool record_shared(bscan *b) {
  for (size_t i = 0; i < b->n && b->ok; i++) {
    const bval *v = &b->v[i];
    if (!shared(b, i))
      continue;
    char note[192];
    size_t across = reduction_within(b, (int)i, v->start, v->end);
    if (across)
      snprintf(note, sizeof note, "%%%.*s = %.*s, read across the reduction at line %zu, over lines %zu-%zu",
               (int)v->nlen, v->name, (int)v->oplen, v->op, across, v->start, v->end);
    else
      snprintf(note, sizeof note, "%%%.*s = %.*s, read by %zu ops over lines %zu-%zu", (int)v->nlen, v->name,
               (int)v->oplen, v->op, v->reads, v->start, v->end);
    /* Read across a reduction, it is held from the line after its own: an
     * elementwise op makes it tile by tile from what dies there (z = x - mean
     * takes the tiles of a widened x), so the two are not held at once. */
    size_t from = across && v->start < v->end ? v->start + 1 : v->start;
    b->ok = record(b, across ? VALUE_ACROSS : VALUE_SHARED, &v->t, v->dt, from, v->end, note);
  }
  return b->ok;
}

/* Loops extend a value used inside them to their end; then every computed
 * value used again after a use that needs all of it is kept, with the
 * values alike with it counted (the model charges unrolled copies as held
 * at once: src/scoped/body_model.c). */
static bool finish(bscan *b) {
  for (size_t l = 0; l < b->nloops; l++)
    for (size_t i = 0; i < b->n; i++) {
      bval *v = &b->v[i];
      if (v->root == (int)i && v->start < b->loops[l].start && v->end >= b->loops[l].start && v->end < b->loops[l].end)
        v->end = b->loops[l].end;
    }
  if (!b->n)
    return b->ok;
  size_t *lead = arena_alloc(&b->k->a, b->n * sizeof *lead), *count = arena_alloc(&b->k->a, b->n * sizeof *count);
  size_t *recorded = arena_alloc(&b->k->a, b->n * sizeof *recorded);
  if (!lead || !count || !recorded)
    return b->ok = false;
  group_kept(b, lead, count);
  kernel_body_facts *f = &b->k->facts;
  size_t lead_most = 0;
  f->unrolled = 0;
  for (size_t i = 0; i < b->n; i++)
    if (count[i] > f->unrolled)
      f->unrolled = count[i], lead_most = i;
  if (f->unrolled > 1) {
    const bval *v = &b->v[lead_most];
    char note[192];
    int len = snprintf(note, sizeof note, "%zu unrolled copies (alike %%%.*s = %.*s, line %zu: %s[", f->unrolled,
                       (int)v->nlen, v->name, (int)v->oplen, v->op, v->start, vmem_dtype_name(v->dt));
    for (size_t d = 0; d < v->t.rank && len > 0 && (size_t)len < sizeof note; d++)
      len += snprintf(note + len, sizeof note - (size_t)len, "%s%lld", d ? "," : "", (long long)v->t.dims[d]);
    if (len > 0 && (size_t)len < sizeof note)
      snprintf(note + len, sizeof note - (size_t)len, "]) held at once");
    f->unrolled_dt = v->dt;
    if (!(f->unrolled_op = arena_strndup(&b->k->a, v->op, v->oplen)))
      return b->ok = false;
    f->unrolled_rank = v->t.rank < VMEM_KERNEL_MAX_RANK ? v->t.rank : VMEM_KERNEL_MAX_RANK;
    for (size_t d = 0; d < f->unrolled_rank; d++)
      f->unrolled_dims[d] = v->t.dims[v->t.rank - f->unrolled_rank + d];
    if (!(f->unrolled_note = arena_strndup(&b->k->a, note, strlen(note))))
      return b->ok = false;
  }
  f->copies = shared_copies(b, f->unrolled);
  if (!record_live(b))
    return b->ok = false;
  for (size_t i = 0; i < b->n && !f->holds; i++)
    f->holds = holds(&b->v[i], (int)i);
  for (size_t i = 0; i < b->n && b->ok; i++) {
    const bval *v = &b->v[i];
    char note[192];
    if (!kept(b, i))
      continue;
    size_t alike_n = count[lead[i]];
    int len = snprintf(note, sizeof note, "%%%.*s = %.*s, kept whole over lines %zu-%zu", (int)v->nlen, v->name,
                       (int)v->oplen, v->op, v->start, v->end);
    if (alike_n > 1 && len > 0 && (size_t)len < sizeof note)
      snprintf(note + len, sizeof note - (size_t)len, ", 1 of %zu alike (unrolled)", alike_n);
    size_t at = b->k->nmodelled;
    b->ok = record(b, VALUE_KEPT, &v->t, v->dt, v->start, v->end, note);
    recorded[i] = b->k->nmodelled > at ? at : SIZE_MAX;
    if (b->ok && recorded[i] != SIZE_MAX) {
      b->k->modelled[at].gathered = !(v->whole_use && v->uses >= 2);
      b->ok = (b->k->modelled[at].op = arena_strndup(&b->k->a, v->op, v->oplen)) != NULL;
    }
    if (b->ok && recorded[i] != SIZE_MAX && alike_n > 1) {
      kernel_modelled *m = &b->k->modelled[at];
      m->repeats = alike_n;
      if (recorded[lead[i]] == SIZE_MAX) /* the first was past the model's room: this one leads */
        recorded[lead[i]] = at;
      m->group = recorded[lead[i]] + 1;
    }
  }
  if (!record_shared(b))
    return false;
  for (size_t m = 0; m < b->k->nmodelled; m++)
    f->rules |= b->k->modelled[m].kind != VALUE_LIVE && b->k->modelled[m].kind != VALUE_SHARED &&
                b->k->modelled[m].kind != VALUE_MXU_RHS32 && b->k->modelled[m].kind != VALUE_WIDEN8;
  return true;
}

bool body_read(vmem_kernel *k, const char *body, size_t len, body_cost *cost) {
  memset(cost, 0, sizeof *cost);
  size_t lines = 1;
  for (size_t i = 0; i < len; i++)
    lines += body[i] == '\n';
  bscan b = {.k = k, .ok = true, .relayout = -1};
  b.cap = lines < MAX_VALUES ? lines : MAX_VALUES;
  for (b.hcap = 16; b.hcap < 2 * b.cap; b.hcap *= 2) {
  }
  b.lcap = b.cap;
  /* per line at most an lhs, a broadcast, four f32 copies, a transpose, a lane store; per value one kept; a relayout */
  b.mcap = 8 * b.cap + 1;
  b.v = arena_alloc(&k->a, b.cap * sizeof *b.v);
  b.hash = arena_alloc(&k->a, b.hcap * sizeof *b.hash);
  b.loops = arena_alloc(&k->a, b.lcap * sizeof *b.loops);
  k->modelled = arena_calloc(&k->a, b.mcap, sizeof *k->modelled);
  if (!b.v || !b.hash || !b.loops || !k->modelled)
    return false;
  memset(b.hash, 0xff, b.hcap * sizeof *b.hash);
  k->nmodelled = 0;
  const char *p = body, *end = body + len;
  for (size_t ln = 1; p < end; ln++) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *le = nl ? nl : end;
    value_line(&b, p, le, ln, cost);
    p = le + 1;
  }
  for (size_t m = 0; m < k->nmodelled; m++)
    if (k->modelled[m].kind == VALUE_ROW_BCAST || k->modelled[m].kind == VALUE_RELAYOUT)
      k->modelled[m].end = lines;
  return finish(&b);
}
