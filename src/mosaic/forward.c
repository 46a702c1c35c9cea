/*
 * forward.c — which scratch buffers a kernel body writes whole before it
 * reads them, in code that runs on every grid step (module prefix:
 * forward_). Mosaic then forwards the stores to the loads and allocates
 * no scratch: libtpu 0.0.42.1 charges nothing for the f32 accumulator of
 * a matmul whose reduction axis has extent 1 (pl.when(k == 0) zeroes it,
 * pl.when(k == last) reads it, and with one k step both conditions fold
 * to true), on v5e, v6e, v5p and 7x alike (oracle/gen records, the
 * accumulate kernels with ksteps = 1: the figure is the windows alone).
 * The fact is the body's; the kernel model decides what it costs
 * (src/scoped/body_model.c).
 *
 * The pass reads the body line by line, as MLIR prints it, in either form:
 *   cond    ::= '%'name '=' ('arith.cmpi' pred ',' a ',' b | '"arith.cmpi"(' a ',' b ') {predicate = ' n)
 *   if      ::= 'scf.if' '%'c '{' | '"scf.if"(%c) ({'      (then)  '} else {' | '}, {'  (else)  '}' | '})'
 *   access  ::= 'vector.load' ... '%'scratch | 'tpu.vector_store' ... '%'scratch '[' ...
 * Scalars are evaluated where they are constants or program ids, taken at
 * the first step (0), and each remembers the grid axes it read: the fact
 * holds while those axes have extent 1, where every step is the first (and
 * fit, which changes extents, asks it at each candidate); a region under a
 * condition it cannot evaluate, or a loop, is dynamic. A scratch is written first when its
 * first access that runs is a whole store (not add = true), every access
 * runs in straight-line code, and nothing but loads and stores touches it
 * (a DMA, a slice or a call keeps it in memory).
 */
#include <stdlib.h>
#include <string.h>

#include "body.h"

enum { FWD_DEPTH = 64, FWD_NAMES = 4096 };

typedef struct fwd_scalar {
  const char *name;
  size_t len;
  int64_t value;
  unsigned axes; /* the grid axes whose program id it was computed from */
} fwd_scalar;

typedef enum fwd_region { REGION_TAKEN, REGION_SKIPPED, REGION_DYNAMIC } fwd_region;

typedef struct fwd_scan {
  const vmem_kernel *k;
  fwd_scalar *known; /* scalars with a known value */
  size_t nknown, cap;
  struct {
    fwd_region then_, else_, now;
    unsigned axes;
  } stack[FWD_DEPTH];
  size_t depth;
  int pending_if; /* the condition of the scf.if on this line: -1 none, 0/1 known, 2 dynamic */
  unsigned pending_axes;
} fwd_scan;

static bool ident(int c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$' ||
         c == '.' || c == '-';
}

static const char *skip_ws(const char *p, const char *end) {
  while (p < end && (*p == ' ' || *p == '\t'))
    p++;
  return p;
}

static bool has(const char *p, const char *end, const char *s) {
  size_t n = strlen(s);
  for (; p + n <= end; p++)
    if (!memcmp(p, s, n))
      return true;
  return false;
}

static const fwd_scalar *lookup(const fwd_scan *f, const char *s, size_t n) {
  for (size_t i = f->nknown; i-- > 0;)
    if (f->known[i].len == n && !memcmp(f->known[i].name, s, n))
      return &f->known[i];
  return NULL;
}

/* The value of operand %s: a known scalar, or the program id of a grid
 * axis (%argN, N < grid rank) at the first step. */
static bool operand(const fwd_scan *f, const char *s, size_t n, int64_t *v, unsigned *axes) {
  const fwd_scalar *x = lookup(f, s, n);
  if (x) {
    *v = x->value, *axes |= x->axes;
    return true;
  }
  if (n > 3 && !memcmp(s, "arg", 3)) {
    size_t a = 0;
    for (size_t i = 3; i < n; i++) {
      if (s[i] < '0' || s[i] > '9' || a > 1000)
        return false;
      a = a * 10 + (size_t)(s[i] - '0');
    }
    if (a < f->k->grid_rank && a < 32) { /* the first step; the fact then holds while the axis has extent 1 */
      *v = 0, *axes |= 1u << a;
      return true;
    }
  }
  return false;
}

/* The %names after `p` on the line, up to `most`. */
static size_t operands(const char *p, const char *end, const char **names, size_t *lens, size_t most) {
  size_t n = 0;
  for (; p < end && n < most; p++) {
    if (*p != '%')
      continue;
    const char *s = ++p;
    while (p < end && ident(*p) && *p != '.')
      p++;
    names[n] = s, lens[n++] = (size_t)(p - s);
  }
  return n;
}

static bool names_arg(const char *p, const char *end, const char *arg, size_t alen);
static void op_of(const char *p, const char *end, const char **res, size_t *rlen, const char **op, size_t *oplen);

static const char *const PREDICATES[] = {"eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"};

static bool compare(int pred, int64_t a, int64_t b) {
  uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
  switch (pred) {
  case 0:
    return a == b;
  case 1:
    return a != b;
  case 2:
    return a < b;
  case 3:
    return a <= b;
  case 4:
    return a > b;
  case 5:
    return a >= b;
  case 6:
    return ua < ub;
  case 7:
    return ua <= ub;
  case 8:
    return ua > ub;
  default:
    return ua >= ub;
  }
}

/* The predicate of an arith.cmpi: `{predicate = N` (generic) or the word after the op (custom). */
static int predicate(const char *op_end, const char *end) {
  const char *q = op_end;
  for (; q + 12 <= end; q++)
    if (!memcmp(q, "predicate = ", 12))
      return atoi(q + 12);
  q = skip_ws(op_end, end);
  for (int i = 0; i < (int)(sizeof PREDICATES / sizeof *PREDICATES); i++) {
    size_t n = strlen(PREDICATES[i]);
    if ((size_t)(end - q) > n && !memcmp(q, PREDICATES[i], n) && q[n] == ',')
      return i;
  }
  return -1;
}

static bool parse_int(const char *p, const char *end, int64_t *v) {
  p = skip_ws(p, end);
  if (p + 4 <= end && !memcmp(p, "true", 4))
    return *v = 1, true;
  if (p + 5 <= end && !memcmp(p, "false", 5))
    return *v = 0, true;
  char *e;
  long long x = strtoll(p, &e, 10);
  if (e == p || e > end || *e == '.' || *e == 'e')
    return false; /* a float constant: no condition reads it */
  *v = x;
  return true;
}

/* Evaluates a scalar op's result where its operands are known. */
static void scalar_line(fwd_scan *f, const char *res, size_t rlen, const char *op, size_t oplen, const char *rest,
                        const char *end) {
  if (f->nknown == f->cap || has(rest, end, "vector<"))
    return;
  const char *names[3];
  size_t lens[3];
  int64_t v = 0, a, b;
  unsigned axes = 0;
  bool ok = false;
#define OP(s) (oplen == strlen(s) && !memcmp(op, s, oplen))
  if (OP("arith.constant")) {
    ok = parse_int(rest, end, &v);
  } else {
    size_t n = operands(rest, end, names, lens, 3);
    bool two = n >= 2 && operand(f, names[0], lens[0], &a, &axes) && operand(f, names[1], lens[1], &b, &axes);
    bool one = n >= 1 && operand(f, names[0], lens[0], &a, &axes);
    if (OP("arith.cmpi") && two) {
      int pred = predicate(rest, end);
      ok = pred >= 0 && pred <= 9, v = ok && compare(pred, a, b);
    } else if ((OP("arith.extui") || OP("arith.extsi") || OP("arith.index_cast") || OP("arith.trunci")) && one) {
      ok = true, v = a;
    } else if (OP("arith.addi") && two) {
      ok = true, v = (int64_t)((uint64_t)a + (uint64_t)b);
    } else if (OP("arith.subi") && two) {
      ok = true, v = (int64_t)((uint64_t)a - (uint64_t)b);
    } else if (OP("arith.muli") && two) {
      ok = true, v = (int64_t)((uint64_t)a * (uint64_t)b);
    } else if (OP("arith.andi") && two) {
      ok = true, v = a & b;
    } else if (OP("arith.ori") && two) {
      ok = true, v = a | b;
    } else if (OP("arith.xori") && two) {
      ok = true, v = a ^ b;
    }
  }
#undef OP
  if (ok)
    f->known[f->nknown++] = (fwd_scalar){res, rlen, v, axes};
}

static fwd_region current(const fwd_scan *f) {
  fwd_region r = REGION_TAKEN;
  for (size_t i = 0; i < f->depth && i < FWD_DEPTH; i++)
    if (f->stack[i].now == REGION_DYNAMIC)
      r = REGION_DYNAMIC;
    else if (f->stack[i].now == REGION_SKIPPED && r == REGION_TAKEN)
      r = REGION_SKIPPED;
  return r;
}

/* Region punctuation: a line ending in '{' opens one (an scf.if's then, a
 * loop's body, any other op's region: dynamic); '} else {' and '}, {' turn
 * to the else region; a line starting with '}' closes one. */
static void regions(fwd_scan *f, const char *p, const char *end) {
  p = skip_ws(p, end);
  const char *e = end;
  while (e > p && (e[-1] == ' ' || e[-1] == '\r'))
    e--;
  bool opens = e > p && e[-1] == '{', closes = p < e && *p == '}';
  if (closes && opens && f->depth) { /* } else {  or  }, { (past the stack's room: dynamic, as access() takes it) */
    if (f->depth <= FWD_DEPTH)
      f->stack[f->depth - 1].now = f->stack[f->depth - 1].else_;
    return;
  }
  if (closes && f->depth)
    f->depth--;
  if (opens && f->depth < FWD_DEPTH) {
    fwd_region then_ = REGION_DYNAMIC, else_ = REGION_DYNAMIC;
    if (f->pending_if == 0 || f->pending_if == 1)
      then_ = f->pending_if ? REGION_TAKEN : REGION_SKIPPED, else_ = f->pending_if ? REGION_SKIPPED : REGION_TAKEN;
    f->stack[f->depth].then_ = then_, f->stack[f->depth].else_ = else_, f->stack[f->depth].now = then_;
    f->stack[f->depth++].axes = f->pending_axes;
  } else if (opens) {
    f->depth++; /* past the stack's room: counted, treated as dynamic below */
  }
  f->pending_if = -1;
}

/* The dims of the first `tag<` type after p ("memref<" or "vector<"): its text up to the element type. */
static size_t dims_text(const char *p, const char *end, const char *tag, const char **dims) {
  size_t n = strlen(tag);
  for (; p + n <= end; p++)
    if (!memcmp(p, tag, n)) {
      const char *s = p + n, *q = s;
      while (q < end && ((*q >= '0' && *q <= '9') || *q == 'x'))
        q++;
      *dims = s;
      return (size_t)(q - s);
    }
  return 0;
}

typedef struct fwd_state {
  bool touched, first_store, escapes;
  unsigned axes;
} fwd_state;

/* Whether %name is read after `from`: by an op other than a shape_cast,
 * or by a shape_cast whose result is (Pallas loads a ref before it stores
 * to it, `acc_ref[...] = 0` included, and nothing reads that load). */
static bool read_after(const char *name, size_t n, const char *from, const char *end, int depth) {
  for (const char *p = from; p < end;) {
    const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end;
    const char *res, *op;
    size_t rlen, oplen;
    op_of(p, le, &res, &rlen, &op, &oplen);
    if (names_arg(op + oplen, le, name, n)) {
      bool view = oplen == strlen("vector.shape_cast") && !memcmp(op, "vector.shape_cast", oplen);
      if (!view || !res || depth > 4 || read_after(res, rlen, le, end, depth + 1))
        return true;
    }
    p = le + 1;
  }
  return false;
}

/* An access to a scratch on this line: a load, a whole store, or anything else. */
static void access(fwd_scan *f, fwd_state *s, const char *op, size_t oplen, const char *res, size_t rlen, const char *p,
                   const char *end, const char *body_end) {
  fwd_region r = current(f);
  if (f->depth > FWD_DEPTH)
    r = REGION_DYNAMIC;
  if (r == REGION_SKIPPED)
    return;
  for (size_t i = 0; i < f->depth && i < FWD_DEPTH; i++)
    s->axes |= f->stack[i].axes;
  bool load = oplen == strlen("vector.load") && !memcmp(op, "vector.load", oplen);
  bool store = (oplen == strlen("tpu.vector_store") && !memcmp(op, "tpu.vector_store", oplen)) ||
               (oplen == strlen("vector.store") && !memcmp(op, "vector.store", oplen));
  if (r == REGION_DYNAMIC || (!load && !store)) {
    s->escapes = true;
    return;
  }
  if (load && !s->touched && res && !read_after(res, rlen, end, body_end, 0))
    return; /* a load nothing reads: not an access */
  if (!s->touched && store) {
    const char *md, *vd;
    size_t mn = dims_text(p, end, "memref<", &md), vn = dims_text(p, end, "vector<", &vd);
    s->first_store = mn && mn == vn && !memcmp(md, vd, mn) && !has(p, end, "add = true");
  }
  s->touched = true;
}

/* Whether the line names %argN (not %argNM). */
static bool names_arg(const char *p, const char *end, const char *arg, size_t alen) {
  for (; p + alen + 1 <= end; p++)
    if (*p == '%' && !memcmp(p + 1, arg, alen) && (p + 1 + alen == end || !ident(p[1 + alen]) || p[1 + alen] == '.'))
      return true;
  return false;
}

static void op_of(const char *p, const char *end, const char **res, size_t *rlen, const char **op, size_t *oplen) {
  p = skip_ws(p, end);
  *res = NULL, *rlen = 0, *op = NULL, *oplen = 0;
  if (p < end && *p == '%') {
    const char *s = ++p;
    while (p < end && ident(*p) && *p != '.')
      p++;
    *res = s, *rlen = (size_t)(p - s);
    while (p < end && *p != '=')
      p++;
    p = skip_ws(p + (p < end), end);
  }
  if (p < end && *p == '"')
    p++;
  const char *s = p;
  while (p < end && ident(*p))
    p++;
  *op = s, *oplen = (size_t)(p - s);
}

/* The scf.if on this line, if any: its condition's value (0/1), or 2 when unknown. */
static void note_if(fwd_scan *f, const char *op, size_t oplen, const char *rest, const char *end) {
  if (!(oplen == 6 && !memcmp(op, "scf.if", 6)))
    return;
  const char *names[1];
  size_t lens[1];
  int64_t v;
  unsigned axes = 0;
  f->pending_axes = 0;
  if (operands(rest, end, names, lens, 1) == 1 && operand(f, names[0], lens[0], &v, &axes))
    f->pending_if = v != 0, f->pending_axes = axes;
  else
    f->pending_if = 2;
}

bool body_forwarded_scratch(vmem_kernel *k, const char *body, size_t len) {
  size_t nscratch = 0;
  for (size_t i = 0; i < k->nops; i++)
    nscratch += k->ops[i].pub.role == VMEM_ROLE_SCRATCH && k->ops[i].pub.space == VMEM_SPACE_VMEM;
  if (!nscratch)
    return true;
  fwd_scan f = {.k = k, .cap = FWD_NAMES, .pending_if = -1};
  f.known = vmem__alloc(&k->a.alloc, FWD_NAMES * sizeof *f.known);
  fwd_state *st = vmem__alloc(&k->a.alloc, k->nops * sizeof *st);
  if (!f.known || !st) {
    vmem__free(&k->a.alloc, f.known);
    vmem__free(&k->a.alloc, st);
    return false;
  }
  memset(st, 0, k->nops * sizeof *st);
  const char *p = body, *end = body + len;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end;
    const char *res, *op;
    size_t rlen, oplen;
    op_of(p, le, &res, &rlen, &op, &oplen);
    if (res && oplen > 6 && !memcmp(op, "arith.", 6))
      scalar_line(&f, res, rlen, op, oplen, op + oplen, le);
    note_if(&f, op, oplen, op + oplen, le);
    for (size_t i = 0; i < k->nops; i++) {
      const kernel_operand *o = &k->ops[i];
      char arg[24];
      int n = snprintf(arg, sizeof arg, "arg%zu", k->grid_rank + i);
      if (o->pub.role == VMEM_ROLE_SCRATCH && o->pub.space == VMEM_SPACE_VMEM && n > 0 &&
          names_arg(op + oplen, le, arg, (size_t)n))
        access(&f, &st[i], op, oplen, res, rlen, p, le, end);
    }
    regions(&f, p, le);
    p = le + 1;
  }
  for (size_t i = 0; i < k->nops; i++) {
    kernel_operand *o = &k->ops[i];
    if (o->pub.role != VMEM_ROLE_SCRATCH || o->pub.space != VMEM_SPACE_VMEM || st[i].escapes)
      continue;
    o->written_first = st[i].touched && st[i].first_store; /* untouched: no evidence either way, kept */
    o->written_axes = st[i].axes;
    if (!o->written_first)
      continue;
    char note[160];
    size_t n = (size_t)snprintf(note, sizeof note, "scratch %s written whole before it is read, every step%s",
                                o->pub.name, st[i].axes ? " (given grid axes" : "");
    for (size_t a = 0; a < k->grid_rank && a < 32 && n < sizeof note; a++)
      if (st[i].axes >> a & 1u)
        n += (size_t)snprintf(note + n, sizeof note - n, " g%zu", a);
    if (st[i].axes && n < sizeof note)
      n += (size_t)snprintf(note + n, sizeof note - n, " of extent 1)");
    if (n < sizeof note)
      snprintf(note + n, sizeof note - n, ": forwarded by the compiler, no buffer");
    if (!(o->forward_note = arena_strndup(&k->a, note, strlen(note))))
      return false;
  }
  vmem__free(&k->a.alloc, f.known);
  vmem__free(&k->a.alloc, st);
  return true;
}
