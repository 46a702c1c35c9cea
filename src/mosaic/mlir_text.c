/*
 * mlir_text.c — reads a Pallas kernel from Mosaic MLIR text: the module
 * pallas_call(debug=True) prints, and the text form of a decoded body.
 *
 * Only the subset that defines the kernel's memory is interpreted; the
 * rest of MLIR (regions, other ops, locations, attribute aliases) is
 * skipped by bracket matching:
 *   func       ::= 'func.func' ('private'|'public')? '@' name '(' args ')'
 *                  ('->' results)? ('attributes' dict)? body
 *   arg        ::= '%' name ':' type dict?
 *   type       ::= 'i32' | 'index' | 'memref<' (dim 'x')* elem (',' layout)* '>'
 *                | '!tpu.dma_semaphore' | '!tpu.semaphore'
 *   dict       ::= '{' (key ('=' value)? (',' key ('=' value)?)*)? '}'
 * The kernel func is the first one with window_params or
 * dimension_semantics; its transform_N funcs give the index maps.
 */
#include <stdio.h>
#include <string.h>

#include "../kernel/kernel.h"
#include "body.h"

typedef vmem_str sv;

typedef struct mfunc {
  sv name;
  size_t at;            /* offset of "func.func" */
  sv args, attrs, body; /* inside the brackets */
} mfunc;

typedef struct mreader {
  const char *s;
  size_t len;
  vmem_error *err;
  vmem_kernel *k;
  mfunc funcs[64];
  size_t nfuncs;
} mreader;

/* The first error is kept (err_first). */
#define fail(r, ...) err_first((r)->err, __VA_ARGS__)

static size_t off(const mreader *r, const char *p) { return (size_t)(p - r->s); }

static bool is_word(int c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || ch_is_digit(c) || c == '_' || c == '.' || c == '$';
}

static const char *skip_ws(const char *p, const char *end) {
  while (p < end) {
    if (ch_is_space(*p))
      p++;
    else if (p + 1 < end && p[0] == '/' && p[1] == '/')
      while (p < end && *p != '\n')
        p++;
    else
      break;
  }
  return p;
}

/* Returns the position of the bracket that closes the one at `open`,
 * skipping strings; NULL when unbalanced. `<`/`>` count only when `angle`. */
static const char *match(const char *open, const char *end, bool angle) {
  int depth = 0;
  for (const char *p = open; p < end; p++) {
    char c = *p;
    if (c == '"') {
      for (p++; p < end && *p != '"'; p++)
        if (*p == '\\')
          p++;
      continue;
    }
    if (c == '(' || c == '[' || c == '{' || (angle && c == '<'))
      depth++;
    else if (c == ')' || c == ']' || c == '}' || (angle && c == '>' && p[-1] != '-')) {
      if (--depth == 0)
        return p;
    }
  }
  return NULL;
}

/* ---- funcs ------------------------------------------------------------- */

/* func ::= 'func.func' visibility? '@' name '(' args ')' ('->' results)? ('attributes' dict)? body */
static bool read_func(mreader *r, const char *p, const char **next) {
  const char *end = r->s + r->len;
  mfunc f = {{NULL, 0}, off(r, p), {NULL, 0}, {NULL, 0}, {NULL, 0}};
  p = skip_ws(p + 9, end);
  for (const char *vis = "private"; vis; vis = vis[1] == 'r' ? "public" : NULL)
    if ((size_t)(end - p) > strlen(vis) && !strncmp(p, vis, strlen(vis)) && !is_word(p[strlen(vis)]))
      p = skip_ws(p + strlen(vis), end);
  if (p >= end || *p != '@')
    return fail(r, VMEM_ERR_SYNTAX, off(r, p), "expected '@name' after func.func");
  const char *n = ++p;
  while (p < end && is_word(*p))
    p++;
  f.name.ptr = n;
  f.name.len = (size_t)(p - n);
  p = skip_ws(p, end);
  if (p >= end || *p != '(')
    return fail(r, VMEM_ERR_SYNTAX, off(r, p), "expected '(' after the func name");
  const char *close = match(p, end, true);
  if (!close)
    return fail(r, VMEM_ERR_SYNTAX, off(r, p), "unterminated '(' in the func signature");
  f.args.ptr = p + 1;
  f.args.len = (size_t)(close - p - 1);
  p = skip_ws(close + 1, end);
  if (p + 1 < end && p[0] == '-' && p[1] == '>') { /* results: up to 'attributes' or '{' */
    p = skip_ws(p + 2, end);
    if (p < end && *p == '(') {
      const char *c = match(p, end, true);
      if (!c)
        return fail(r, VMEM_ERR_SYNTAX, off(r, p), "unterminated '(' in the func results");
      p = c + 1;
    } else {
      while (p < end && !ch_is_space(*p) && *p != '{')
        p++;
    }
    p = skip_ws(p, end);
  }
  if ((size_t)(end - p) > 10 && !strncmp(p, "attributes", 10)) {
    p = skip_ws(p + 10, end);
    const char *c = p < end && *p == '{' ? match(p, end, false) : NULL;
    if (!c)
      return fail(r, VMEM_ERR_SYNTAX, off(r, p), "expected a balanced '{...}' after attributes");
    f.attrs.ptr = p + 1;
    f.attrs.len = (size_t)(c - p - 1);
    p = skip_ws(c + 1, end);
  }
  const char *c = p < end && *p == '{' ? match(p, end, false) : NULL;
  if (!c)
    return fail(r, VMEM_ERR_SYNTAX, off(r, p), "expected the func body '{...}'");
  f.body.ptr = p + 1;
  f.body.len = (size_t)(c - p - 1);
  if (r->nfuncs == sizeof r->funcs / sizeof *r->funcs)
    return fail(r, VMEM_ERR_RANGE, f.at, "more than 64 funcs in the module");
  r->funcs[r->nfuncs++] = f;
  *next = c + 1;
  return true;
}

static bool find_funcs(mreader *r) {
  const char *p = r->s, *end = r->s + r->len;
  while (p < end) {
    const char *f = NULL;
    for (const char *q = p; q + 9 <= end; q++) {
      if (*q == '"') { /* skip strings: payloads quote MLIR inside JSON */
        for (q++; q < end && *q != '"'; q++)
          if (*q == '\\')
            q++;
        continue;
      }
      if (*q == 'f' && !memcmp(q, "func.func", 9) && (q == r->s || !is_word(q[-1]))) {
        f = q;
        break;
      }
    }
    if (!f)
      break;
    if (!read_func(r, f, &p))
      return false;
  }
  if (r->nfuncs == 0)
    return fail(r, VMEM_ERR_SYNTAX, 0, r->len ? "no func.func in the text: not a Mosaic kernel" : "empty input");
  return true;
}

static const mfunc *func_named(const mreader *r, sv name) {
  for (size_t i = 0; i < r->nfuncs; i++)
    if (r->funcs[i].name.len == name.len && !memcmp(r->funcs[i].name.ptr, name.ptr, name.len))
      return &r->funcs[i];
  return NULL;
}

/* ---- attribute dictionaries ------------------------------------------- */

/* The value of `key` in a dict's text (top level only), or an empty view. */
static sv dict_get(const mreader *r, sv dict, const char *key) {
  (void)r;
  sv none = {NULL, 0};
  if (!dict.ptr) /* a func without attributes */
    return none;
  size_t kl = strlen(key);
  const char *p = dict.ptr, *end = dict.ptr + dict.len;
  while (p < end) {
    p = skip_ws(p, end);
    const char *k = p;
    while (p < end && (is_word(*p) || *p == '-'))
      p++;
    size_t klen = (size_t)(p - k);
    p = skip_ws(p, end);
    sv v = {p, 0};
    if (p < end && *p == '=') {
      p = skip_ws(p + 1, end);
      v.ptr = p;
      while (p < end && *p != ',') {
        if (*p == '(' || *p == '[' || *p == '{' || *p == '<' || *p == '"') {
          const char *c = *p == '"' ? NULL : match(p, end, true);
          if (*p == '"') {
            for (c = p + 1; c < end && *c != '"'; c++)
              if (*c == '\\')
                c++;
          }
          p = c ? c + 1 : end;
        } else {
          p++;
        }
      }
      v.len = (size_t)(p - v.ptr);
    }
    if (klen == kl && !memcmp(k, key, kl))
      return v;
    if (p < end && *p == ',')
      p++;
    else if (klen == 0)
      p++;
  }
  return none;
}

/* int ::= '-'? [0-9]+    (at p; advances) */
static bool read_int(const char **p, const char *end, int64_t *out) {
  const char *q = *p;
  bool neg = q < end && *q == '-';
  if (neg)
    q++;
  uint64_t v = 0, most = (uint64_t)INT64_MAX + (neg ? 1 : 0); /* INT64_MIN is MLIR's dynamic size */
  const char *d = q;
  while (q < end && ch_is_digit(*q)) {
    if (!ck_mul(v, 10, &v) || !ck_add(v, (uint64_t)(*q - '0'), &v) || v > most)
      return false;
    q++;
  }
  if (q == d)
    return false;
  *out = !neg ? (int64_t)v : v == most ? INT64_MIN : -(int64_t)v;
  *p = q;
  return true;
}

/* array<i64: a, b, ...> into out; returns the count or -1. */
static long read_i64_array(sv v, int64_t *out, size_t cap) {
  const char *p = v.ptr, *end = v.ptr + v.len;
  const char *colon = v.len ? memchr(p, ':', v.len) : NULL;
  if (!colon || v.len < 6 || memcmp(p, "array<", 6) != 0)
    return -1;
  p = colon + 1;
  size_t n = 0;
  for (;;) {
    p = skip_ws(p, end);
    if (p < end && *p == '>')
      return (long)n;
    if (n == cap || !read_int(&p, end, &out[n++]))
      return -1;
    p = skip_ws(p, end);
    if (p < end && *p == ',')
      p++;
  }
}

/* "N : i64" or "N" */
static bool read_scalar(sv v, int64_t *out) {
  const char *p = v.ptr;
  return v.len && read_int(&p, v.ptr + v.len, out);
}

static bool sv_contains(sv v, const char *word) {
  size_t n = strlen(word);
  for (size_t i = 0; i + n <= v.len; i++)
    if (!memcmp(v.ptr + i, word, n))
      return true;
  return false;
}

/* ---- types ------------------------------------------------------------- */

static const struct {
  const char *mlir;
  vmem_dtype dtype;
} elem_types[] = {
    {"f32", VMEM_F32},
    {"bf16", VMEM_BF16},
    {"f16", VMEM_F16},
    {"f64", VMEM_F64},
    {"i1", VMEM_PRED},
    {"i2", VMEM_S2},
    {"i4", VMEM_S4},
    {"i8", VMEM_S8},
    {"i16", VMEM_S16},
    {"i32", VMEM_S32},
    {"i64", VMEM_S64},
    {"ui2", VMEM_U2},
    {"ui4", VMEM_U4},
    {"ui8", VMEM_U8},
    {"ui16", VMEM_U16},
    {"ui32", VMEM_U32},
    {"ui64", VMEM_U64},
    {"f8E4M3FN", VMEM_F8E4M3FN},
    {"f8E5M2", VMEM_F8E5M2},
    {"f8E4M3", VMEM_F8E4M3},
    {"f8E3M4", VMEM_F8E3M4},
    {"f8E4M3FNUZ", VMEM_F8E4M3FNUZ},
    {"f8E5M2FNUZ", VMEM_F8E5M2FNUZ},
    {"f8E4M3B11FNUZ", VMEM_F8E4M3B11FNUZ},
    {"f8E8M0FNU", VMEM_F8E8M0FNU},
    {"f4E2M1FN", VMEM_F4E2M1FN},
};

bool mlir_elem_type(const char *s, size_t n, vmem_dtype *out) {
  for (size_t i = 0; i < sizeof elem_types / sizeof *elem_types; i++)
    if (strlen(elem_types[i].mlir) == n && !memcmp(elem_types[i].mlir, s, n)) {
      *out = elem_types[i].dtype;
      return true;
    }
  return false;
}

static bool elem_type(sv t, vmem_dtype *out) { return mlir_elem_type(t.ptr, t.len, out); }

typedef struct mtype {
  enum { T_SCALAR, T_MEMREF, T_SEMAPHORE } kind;
  vmem_dtype dtype;
  size_t rank;
  int64_t dims[VMEM_KERNEL_MAX_RANK];
  vmem_memory_space space;
  bool semaphore_elems; /* memref<...x!tpu.dma_semaphore> */
} mtype;

static bool memory_space(mreader *r, sv v, size_t at, vmem_memory_space *out) {
  static const struct {
    const char *name;
    vmem_memory_space space;
  } spaces[] = {{"vmem", VMEM_SPACE_VMEM},
                {"smem", VMEM_SPACE_SMEM},
                {"any", VMEM_SPACE_ANY},
                {"hbm", VMEM_SPACE_ANY},
                {"semaphore_mem", VMEM_SPACE_SEMAPHORE}};
  for (size_t i = 0; i < sizeof spaces / sizeof *spaces; i++)
    if (strlen(spaces[i].name) == v.len && !memcmp(spaces[i].name, v.ptr, v.len)) {
      *out = spaces[i].space;
      return true;
    }
  return fail(r, VMEM_ERR_UNKNOWN, at, "unknown memory space '%.*s'", (int)(v.len > 40 ? 40 : v.len), v.ptr);
}

/* memref ::= 'memref<' (dim 'x')* elem (',' attr)* '>'      dim ::= int | '?' */
static bool read_memref(mreader *r, const char *p, const char *end, mtype *t) {
  const char *close = match(p + 6, end, true);
  if (!close)
    return fail(r, VMEM_ERR_SYNTAX, off(r, p), "unterminated memref<");
  const char *q = p + 7;
  t->kind = T_MEMREF;
  t->space = VMEM_SPACE_VMEM; /* Mosaic's default for kernel refs */
  for (;;) {
    const char *d = q;
    if (q < close && *q == '?')
      return fail(r, VMEM_ERR_UNSUPPORTED, off(r, q), "a memref with a dynamic dimension ('?') has no static size");
    int64_t v;
    if (!read_int(&q, close, &v) || q >= close || *q != 'x') {
      q = d;
      break;
    }
    if (t->rank == VMEM_KERNEL_MAX_RANK)
      return fail(r, VMEM_ERR_RANGE, off(r, d), "memref rank above 16");
    if (v < 0)
      return fail(r, VMEM_ERR_RANGE, off(r, d), "negative memref dimension");
    t->dims[t->rank++] = v;
    q++;
  }
  const char *e = q;
  while (e < close && *e != ',' && *e != '>')
    e++;
  sv elem = {q, (size_t)(e - q)};
  if (elem.len > 4 && elem.ptr[0] == '!') {
    t->semaphore_elems = true;
    t->kind = T_SEMAPHORE;
  } else if (!elem_type(elem, &t->dtype)) {
    return fail(r, VMEM_ERR_UNKNOWN, off(r, q), "unknown element type '%.*s'", (int)(elem.len > 40 ? 40 : elem.len),
                elem.ptr);
  }
  for (const char *m = e; m + 17 < close; m++)
    if (!memcmp(m, "#tpu.memory_space<", 18)) {
      const char *b = m + 18, *c = memchr(b, '>', (size_t)(close - b) + 1);
      sv name = {b, c ? (size_t)(c - b) : 0};
      if (!memory_space(r, name, off(r, b), &t->space))
        return false;
    }
  return true;
}

static bool read_type(mreader *r, const char *p, const char *end, mtype *t) {
  memset(t, 0, sizeof *t);
  if ((size_t)(end - p) > 7 && !memcmp(p, "memref<", 7))
    return read_memref(r, p, end, t);
  if (*p == '!') {
    t->kind = T_SEMAPHORE;
    t->space = VMEM_SPACE_SEMAPHORE;
    return true;
  }
  t->kind = T_SCALAR;
  return true;
}

/* ---- the kernel -------------------------------------------------------- */

/* Splits a func's args at top-level commas into type positions. */
static size_t split_args(mreader *r, sv args, const char **types, size_t cap) {
  size_t n = 0;
  const char *p = args.ptr, *end = args.ptr + args.len;
  while (p < end && n < cap) {
    p = skip_ws(p, end);
    if (p >= end)
      break;
    const char *colon = p;
    while (colon < end && *colon != ':' && *colon != ',')
      colon++;
    if (colon >= end || *colon != ':')
      return fail(r, VMEM_ERR_SYNTAX, off(r, p), "expected '%%name: type' in the func arguments"), 0;
    types[n++] = skip_ws(colon + 1, end);
    for (p = colon + 1; p < end && *p != ','; p++)
      if (*p == '<' || *p == '{' || *p == '(' || *p == '[') {
        const char *c = match(p, end, *p == '<');
        p = c ? c : end;
      }
    if (p < end)
      p++;
  }
  return n;
}

/* Which window operand indices the body writes ("store ... %argN["). */
static bool body_writes(const mreader *r, sv body, size_t arg) {
  (void)r;
  char pat[32];
  int pn = snprintf(pat, sizeof pat, "%%arg%zu[", arg);
  const char *p = body.ptr, *end = body.ptr + body.len;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *le = nl ? nl : end;
    bool store = false;
    for (const char *q = p; q + 5 <= le && !store; q++)
      store = !memcmp(q, "store", 5);
    if (store)
      for (const char *q = p; q + pn <= le; q++)
        if (!memcmp(q, pat, (size_t)pn))
          return true;
    p = le + 1;
  }
  return false;
}

/* transform ::= func with '%c = arith.constant N : i32' lines and
 * 'return v, ... : types'. Maps each returned value to a grid axis, a
 * constant, or unknown. */
static bool read_index_map(mreader *r, const mfunc *f, size_t grid_rank, kernel_operand *op, size_t rank) {
  const char *p = f->body.ptr, *end = f->body.ptr + f->body.len;
  const char *ret = NULL;
  for (const char *q = p; q + 6 <= end; q++)
    if (!memcmp(q, "return", 6) && (q == p || !is_word(q[-1])))
      ret = q;
  if (!ret)
    return fail(r, VMEM_ERR_SYNTAX, f->at, "@%.*s has no return", (int)f->name.len, f->name.ptr);
  const char *colon = memchr(ret, ':', (size_t)(end - ret));
  const char *q = ret + 6, *vend = colon ? colon : end;
  size_t n = 0;
  while (q < vend) {
    q = skip_ws(q, vend);
    if (q >= vend)
      break;
    const char *v = q;
    while (q < vend && *q != ',' && !ch_is_space(*q))
      q++;
    sv val = {v, (size_t)(q - v)};
    if (n == rank)
      return fail(r, VMEM_ERR_RANGE, off(r, v), "@%.*s returns more block indices than the window has dimensions",
                  (int)f->name.len, f->name.ptr);
    int axis = VMEM_INDEX_UNKNOWN;
    size_t a = 0, d = 4; /* %argN, read within the token: the text is not NUL-terminated */
    if (val.len > 4 && !memcmp(v, "%arg", 4))
      while (d < val.len && ch_is_digit(v[d]) && a < 1000000)
        a = a * 10 + (size_t)(v[d++] - '0');
    if (d > 4 && (d == val.len || !is_word(v[d])) && a < grid_rank)
      axis = (int)a;
    else if (val.len > 2 && v[1] == 'c') { /* %c0_i32 = arith.constant 0 */
      char pat[80];
      snprintf(pat, sizeof pat, "%.*s = arith.constant", (int)(val.len > 60 ? 60 : val.len), v);
      size_t pl = strlen(pat);
      for (const char *s = p; s + pl <= end; s++)
        if (!memcmp(s, pat, pl)) {
          const char *c = skip_ws(s + pl, end);
          int64_t cv = 0;
          axis = VMEM_INDEX_CONSTANT;
          op->pub.index_const[n] = read_int(&c, end, &cv) ? cv : 0;
          break;
        }
    }
    op->pub.index_axis[n++] = axis;
    if (q < vend && *q == ',')
      q++;
  }
  if (n != rank)
    return fail(r, VMEM_ERR_RANGE, f->at, "@%.*s returns %zu block indices for a %zu-D window", (int)f->name.len,
                f->name.ptr, n, rank);
  return true;
}

/* window ::= '{' 'transform_indices' '=' '@'name ',' 'window_bounds' '=' array
 *            (',' 'pipeline_mode' '=' '#tpu.pipeline_mode<' mode '>')? '}' | '{}' */
static bool read_window(mreader *r, sv w, size_t grid_rank, kernel_operand *op, const mtype *t) {
  sv tr = dict_get(r, w, "transform_indices"), wb = dict_get(r, w, "window_bounds");
  sv pm = dict_get(r, w, "pipeline_mode");
  if (!wb.ptr) { /* {}: ANY, HBM or semaphore operands take no window */
    op->pub.buffers = 0;
    return true;
  }
  int64_t bounds[VMEM_KERNEL_MAX_RANK];
  long n = read_i64_array(wb, bounds, VMEM_KERNEL_MAX_RANK);
  if (n < 0)
    return fail(r, VMEM_ERR_SYNTAX, off(r, wb.ptr), "expected window_bounds = array<i64: ...>");
  /* The memref is the window with squeezed (size-1) dims dropped. */
  size_t a = 0, b = 0, nkept = 0, kept[VMEM_KERNEL_MAX_RANK];
  while (a < (size_t)n || b < t->rank) {
    if (a < (size_t)n && bounds[a] == 1 && !(b < t->rank && t->dims[b] == 1 && (size_t)n - a == t->rank - b)) {
      a++;
      continue;
    }
    if (a < (size_t)n && nkept < VMEM_KERNEL_MAX_RANK)
      kept[nkept++] = a;
    if (a >= (size_t)n || b >= t->rank || bounds[a] != t->dims[b])
      return fail(r, VMEM_ERR_RANGE, off(r, wb.ptr),
                  "window_bounds (rank %ld) do not match the operand's memref (rank %zu)", n, t->rank);
    a++, b++;
  }
  op->pub.rank = (size_t)n;
  op->pub.buffers = 2;
  if (pm.ptr) {
    op->pub.buffers_given = true;
    if (pm.len >= 11 && sv_contains(pm, "synchronous"))
      op->pub.buffers = 1;
  }
  if (!tr.ptr || tr.len < 2 || tr.ptr[0] != '@')
    return fail(r, VMEM_ERR_SYNTAX, off(r, w.ptr), "a window without transform_indices = @transform_N");
  sv fname = {tr.ptr + 1, tr.len - 1};
  while (fname.len && ch_is_space(fname.ptr[fname.len - 1]))
    fname.len--;
  const mfunc *f = func_named(r, fname);
  if (!f)
    return fail(r, VMEM_ERR_UNKNOWN, off(r, tr.ptr), "missing @%.*s: the index map is not in the module",
                (int)fname.len, fname.ptr);
  if (!read_index_map(r, f, grid_rank, op, (size_t)n))
    return false;
  /* The block is the memref: keep the index of each dim it has, so that
   * every per-dim field matches the block's rank. A squeezed dim's axis
   * is then not seen by fit's fetch count (a modelled figure). */
  for (size_t d = 0; d < nkept; d++)
    op->pub.index_axis[d] = op->pub.index_axis[kept[d]];
  op->pub.rank = nkept;
  return true;
}

/* The kernel func: the first with window_params or dimension_semantics. */
static const mfunc *kernel_func(const mreader *r) {
  for (size_t i = 0; i < r->nfuncs; i++) {
    const mfunc *f = &r->funcs[i];
    if (dict_get(r, f->attrs, "window_params").ptr || dict_get(r, f->attrs, "dimension_semantics").ptr)
      return f;
  }
  return NULL;
}

/* The kernel's name: its func's, unless that is the generic "main" the
 * serde gives it, when the enclosing `module @name` says what it is. */
static sv kernel_name(const mreader *r, const mfunc *f) {
  if (f->name.len != 4 || memcmp(f->name.ptr, "main", 4) != 0)
    return f->name;
  for (const char *p = r->s; p + 8 < r->s + f->at; p++)
    if (*p == 'm' && !memcmp(p, "module @", 8) && (p == r->s || !is_word(p[-1]))) {
      const char *n = p + 8, *e = n;
      while (e < r->s + f->at && is_word(*e))
        e++;
      if (e > n)
        return (sv){n, (size_t)(e - n)};
    }
  return f->name;
}

static bool read_grid(mreader *r, const mfunc *f) {
  vmem_kernel *k = r->k;
  sv ib = dict_get(r, f->attrs, "iteration_bounds");
  if (ib.ptr) {
    long n = read_i64_array(ib, k->grid, VMEM_KERNEL_MAX_RANK);
    if (n < 0)
      return fail(r, VMEM_ERR_SYNTAX, off(r, ib.ptr), "expected iteration_bounds = array<i64: ...>");
    k->grid_rank = (size_t)n;
    for (size_t i = 0; i < k->grid_rank; i++)
      if (k->grid[i] == INT64_MIN) /* MLIR's dynamic: known at run time (megablox gmm's tiles per group) */
        k->grid[i] = VMEM_GRID_DYNAMIC;
      else if (k->grid[i] <= 0)
        return fail(r, VMEM_ERR_RANGE, off(r, ib.ptr), "grid bound %zu is %lld: a grid needs positive bounds", i,
                    (long long)k->grid[i]);
  }
  sv ds = dict_get(r, f->attrs, "dimension_semantics");
  size_t axis = 0;
  for (size_t i = 0; ds.ptr && i + 24 < ds.len && axis < VMEM_KERNEL_MAX_RANK; i++)
    if (!memcmp(ds.ptr + i, "dimension_semantics<", 20)) {
      const char *b = ds.ptr + i + 20, *e = memchr(b, '>', ds.len - i - 20);
      if (e)
        k->semantics[axis++] = arena_strndup(&k->a, b, (size_t)(e - b));
    }
  return true;
}

/* window_params = '[' window (',' window)* ']' -> the dicts' texts */
static size_t split_windows(mreader *r, sv wp, sv *out, size_t cap) {
  size_t n = 0;
  if (!wp.ptr)
    return 0;
  const char *p = wp.ptr, *end = wp.ptr + wp.len;
  for (; p < end && n < cap; p++)
    if (*p == '{') {
      const char *c = match(p, end, false);
      if (!c)
        return fail(r, VMEM_ERR_SYNTAX, off(r, p), "unterminated '{' in window_params"), 0;
      out[n].ptr = p + 1;
      out[n++].len = (size_t)(c - p - 1);
      p = c;
    }
  return n;
}

/* Assigns roles: scalar prefetch first, scratch last; in between inputs,
 * then outputs from the first operand the body stores into. */
static void assign_roles(mreader *r, const mfunc *f, size_t first_arg, size_t nwin, size_t nprefetch) {
  vmem_kernel *k = r->k;
  size_t first_out = SIZE_MAX;
  for (size_t i = nprefetch; i < nprefetch + nwin && first_out == SIZE_MAX; i++)
    if (body_writes(r, f->body, first_arg + i))
      first_out = i;
  k->roles_inferred = first_out != SIZE_MAX;
  for (size_t i = 0; i < k->nops; i++) {
    vmem_operand *o = &k->ops[i].pub;
    if (i < nprefetch)
      o->role = VMEM_ROLE_SCALAR_PREFETCH;
    else if (i >= nprefetch + nwin)
      o->role = VMEM_ROLE_SCRATCH;
    else
      o->role = i >= first_out ? VMEM_ROLE_OUTPUT : VMEM_ROLE_INPUT;
  }
}

static bool read_operands(mreader *r, const mfunc *f) {
  vmem_kernel *k = r->k;
  const char *types[256];
  size_t nargs = split_args(r, f->args, types, 256);
  if (r->err->code != VMEM_OK)
    return false;
  int64_t nprefetch = 0, nscratch = 0;
  read_scalar(dict_get(r, f->attrs, "scalar_prefetch"), &nprefetch);
  read_scalar(dict_get(r, f->attrs, "scratch_operands"), &nscratch);
  sv wins[128];
  sv wp = dict_get(r, f->attrs, "window_params");
  size_t nwin = split_windows(r, wp, wins, 128);
  if (r->err->code != VMEM_OK)
    return false;
  size_t first = k->grid_rank;
  if (nargs < first + (size_t)nprefetch + (size_t)nscratch + nwin)
    return fail(r, VMEM_ERR_RANGE, off(r, f->args.ptr),
                "the func has %zu arguments, fewer than grid (%zu) + prefetch + windows + scratch", nargs,
                k->grid_rank);
  bool no_grid = !wp.ptr; /* whole operands copied in once */
  if (no_grid)
    nwin = nargs - first - (size_t)nprefetch - (size_t)nscratch;
  k->nops = nargs - first;
  if (!(k->ops = arena_calloc(&k->a, k->nops ? k->nops : 1, sizeof *k->ops)))
    return fail(r, VMEM_ERR_NOMEM, 0, "out of memory");
  for (size_t i = 0; i < k->nops; i++) {
    kernel_operand *op = &k->ops[i];
    const char *tp = types[first + i];
    mtype t;
    if (!read_type(r, tp, f->args.ptr + f->args.len, &t))
      return false;
    op->offset = off(r, tp);
    op->pub.space = t.kind == T_MEMREF ? t.space : VMEM_SPACE_SEMAPHORE;
    char nm[16];
    snprintf(nm, sizeof nm, "arg%zu", first + i);
    op->pub.name = arena_strndup(&k->a, nm, strlen(nm));
    for (size_t d = 0; d < VMEM_KERNEL_MAX_RANK; d++) {
      op->pub.block_param[d] = -1;
      op->pub.index_axis[d] = VMEM_INDEX_CONSTANT; /* whole operands: block index 0 */
    }
    if (t.kind == T_MEMREF && !(op->pub.block = kernel_shape(k, t.dtype, t.dims, t.rank)))
      return fail(r, VMEM_ERR_NOMEM, 0, "out of memory");
    op->pub.rank = t.rank;
    bool windowed = i >= (size_t)nprefetch && i < (size_t)nprefetch + nwin;
    if (windowed && !no_grid && !read_window(r, wins[i - (size_t)nprefetch], k->grid_rank, op, &t))
      return false;
    if (windowed && no_grid)
      op->pub.buffers = op->pub.space == VMEM_SPACE_VMEM ? 1 : 0;
  }
  assign_roles(r, f, first, nwin, (size_t)nprefetch);
  return true;
}

vmem_kernel *vmem_kernel_from_mlir(const char *text, size_t len, const vmem_allocator *alloc, vmem_error *err) {
  vmem_error local;
  err_clear(&local);
  if (!text && len) {
    err_set(err, VMEM_ERR_ARGUMENT, 0, "no text");
    return NULL;
  }
  mreader *r = vmem__alloc(alloc, sizeof *r);
  vmem_kernel *k = kernel_new(alloc);
  if (!r || !k) {
    vmem__free(alloc, r);
    vmem_kernel_free(k);
    err_set(err, VMEM_ERR_NOMEM, 0, "out of memory");
    return NULL;
  }
  memset(r, 0, sizeof *r);
  r->s = text ? text : "";
  r->len = len;
  r->err = &local;
  r->k = k;
  const char *nul = len ? memchr(text, '\0', len) : NULL;
  const mfunc *f = NULL;
  bool ok;
  if (nul)
    ok = fail(r, VMEM_ERR_SYNTAX, (size_t)(nul - text), "binary data (a NUL byte): not MLIR text");
  else
    ok = find_funcs(r) &&
         ((f = kernel_func(r)) || fail(r, VMEM_ERR_SYNTAX, r->funcs[0].at,
                                       "no func carries window_params or dimension_semantics: not a Pallas kernel"));
  body_cost bc;
  if (ok) {
    sv name = kernel_name(r, f);
    k->name = arena_strndup(&k->a, name.ptr, name.len);
    ok = k->name && read_grid(r, f) && read_operands(r, f) &&
         ((body_read(k, f->body.ptr, f->body.len, &bc) && body_forwarded_scratch(k, f->body.ptr, f->body.len)) ||
          fail(r, VMEM_ERR_NOMEM, 0, "out of memory"));
  }
  if (ok) {
    k->body_known = true;
    k->body_loops = bc.loops;
    k->body_flops = bc.flops;
    k->body_transcendentals = bc.transcendentals;
  }
  vmem__free(alloc, r);
  return kernel_finish(k, ok, &local, err);
}
