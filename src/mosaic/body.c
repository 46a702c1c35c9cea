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

/* The result type: the last "-> vector<" on the line, else the line's
 * last ": vector<" (custom forms print one type). */
static bool result_vector(const char *p, const char *end, vtype *v) {
  const char *last = NULL;
  for (const char *q = p; (q = find(q, end, "-> vector<")); q++)
    last = q + 3;
  if (!last)
    for (const char *q = p; (q = find(q, end, ": vector<")); q++)
      last = q + 2;
  return last && read_vector(last, end, v);
}

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
  static const char *const ops[] = {"arith.constant", "arith.bitcast", "arith.select", "arith.cmpf", "arith.cmpi",
                                    "arith.index_cast", "arith.extf", "arith.truncf", "arith.extsi", "arith.extui",
                                    "arith.trunci", "arith.sitofp", "arith.uitofp", "arith.fptosi", "arith.fptoui"};
  for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
    if (strlen(ops[i]) == len && !memcmp(ops[i], name, len))
      return true;
  return false;
}

static void scan_line(const char *p, const char *end, body_cost *out) {
  const char *name;
  size_t len;
  if (!op_name(p, end, &name, &len))
    return;
  if ((len == 7 && !memcmp(name, "scf.for", 7)) || (len == 9 && !memcmp(name, "scf.while", 9)))
    out->loops = true;
  vtype res;
  if (!result_vector(p, end, &res))
    return;
  if ((len == 10 && !memcmp(name, "tpu.matmul", 10)) || (len == 15 && !memcmp(name, "vector.contract", 15)))
    matmul(p, end, &res, out);
  else if (starts(name, name + len, "math."))
    out->transcendentals += res.elems;
  else if (starts(name, name + len, "arith.") && !is_data_op(name, len))
    out->flops += res.elems;
}

void body_scan(const char *body, size_t len, body_cost *out) {
  memset(out, 0, sizeof *out);
  const char *p = body, *end = body + len;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *le = nl ? nl : end;
    scan_line(p, le, out);
    p = le + 1;
  }
}
