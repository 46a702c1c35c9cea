/*
 * alias.c — values that share one buffer (XLA's HloAliasAnalysis and the
 * heap simulator's operand reuse, ../shared/reference/hlo_format.md §2.3,
 * §3.1), joined with a union-find over the values of live.c:
 *  - a while's state: its operand, its body's root and the while itself
 *    hold one buffer, index by index;
 *  - output_to_operand_aliasing={{out}: (operand, {index}), ...} on an
 *    instruction, and the module's input_output_alias={ {out}: (param,
 *    {index}[, kind]), ...} between the entry root and a parameter;
 *  - in place: an elementwise op, or dynamic-update-slice's operand 0,
 *    takes over an operand's buffer when that operand's life ends at this
 *    instruction and its size and memory space are the same (the heap
 *    simulator's CanShareOperandBufferWithUser; fusions are not taken
 *    apart to ask it, so a fusion never reuses an operand here).
 * A joined buffer is as large as its largest value and lives over the
 * hull of their ranges.
 */
#include <string.h>

#include "program.h"

size_t pg_find(pg_walk *w, size_t v) {
  while (w->uf[v] != v) {
    w->uf[v] = w->uf[w->uf[v]];
    v = w->uf[v];
  }
  return v;
}

void pg_union(pg_walk *w, size_t a, size_t b) {
  a = pg_find(w, a), b = pg_find(w, b);
  if (a == b)
    return;
  size_t r = a < b ? a : b, o = a < b ? b : a; /* the lower value leads: stable output */
  w->uf[o] = r;
  if (w->hs[o] >= 0 && (w->hs[r] < 0 || w->hs[o] < w->hs[r]))
    w->hs[r] = w->hs[o];
  if (w->he[o] > w->he[r])
    w->he[r] = w->he[o];
}

/* Joins every scheduled value at a[pa] and at b[pb] into one buffer. */
static bool join(pg_walk *w, const vmem_hlo_instruction *a, const pg_path *pa, const vmem_hlo_instruction *b,
                 const pg_path *pb) {
  size_t first = PG_NONE;
  for (int side = 0; side < 2; side++) {
    if (!pg_collect(w, side ? b : a, side ? pb : pa))
      return false;
    for (size_t i = 0; i < w->nhits; i++) {
      size_t v = w->hits[i];
      if (w->vstart[v] < 0)
        continue;
      if (first == PG_NONE)
        first = v;
      else
        pg_union(w, first, v);
    }
  }
  return true;
}

/* ---- while state --------------------------------------------------------------- */

/* Every leaf index of s, joining the state's operand and the body's root
 * there. */
static bool join_state(pg_walk *w, const vmem_hlo_instruction *in, const vmem_hlo_instruction *root,
                       const vmem_shape *s, pg_path *p) {
  if (!s->tuple)
    return join(w, in->operands[0], p, root, p);
  if (p->n == PG_MAX_PATH)
    return join(w, in->operands[0], p, root, p); /* deeper: the subtree, whole */
  for (size_t k = 0; k < vmem_shape_tuple_count(s); k++) {
    p->k[p->n++] = (int64_t)k;
    bool ok = join_state(w, in, root, vmem_shape_tuple_at(s, k), p);
    p->n--;
    if (!ok)
      return false;
  }
  return true;
}

/* ---- the aliasing attributes ------------------------------------------------------ */

typedef struct cursor {
  const char *s, *end;
} cursor;

static void blank(cursor *c) {
  while (c->s < c->end && (*c->s == ' ' || *c->s == '\n' || *c->s == '\t' || *c->s == '\r'))
    c->s++;
}

static bool take(cursor *c, char ch) {
  blank(c);
  if (c->s < c->end && *c->s == ch) {
    c->s++;
    return true;
  }
  return false;
}

static bool number(cursor *c, int64_t *out) {
  blank(c);
  const char *start = c->s;
  int64_t v = 0;
  while (c->s < c->end && *c->s >= '0' && *c->s <= '9' && v < INT32_MAX)
    v = v * 10 + (*c->s++ - '0');
  *out = v;
  return c->s > start;
}

/* shape_index := '{' [int (',' int)*] '}' */
static bool shape_index(cursor *c, pg_path *p) {
  p->n = 0;
  if (!take(c, '{'))
    return false;
  if (take(c, '}'))
    return true;
  do {
    int64_t k;
    if (!number(c, &k) || p->n == PG_MAX_PATH)
      return false;
    p->k[p->n++] = k;
  } while (take(c, ','));
  return take(c, '}');
}

/* pair := shape_index ':' '(' int ',' shape_index [',' kind] ')'
 * Calls fn for each pair of the list '{' [pair (',' pair)*] '}'; stops
 * quietly at text it does not read (the alias is then not modelled). */
typedef bool (*pair_fn)(pg_walk *w, const void *ctx, const pg_path *out, int64_t n, const pg_path *in);

static bool each_pair(pg_walk *w, vmem_str text, const void *ctx, pair_fn fn) {
  cursor c = {text.ptr, text.ptr + text.len};
  if (!take(&c, '{') || take(&c, '}'))
    return true;
  do {
    pg_path out, in;
    int64_t n;
    if (!shape_index(&c, &out) || !take(&c, ':') || !take(&c, '(') || !number(&c, &n) || !take(&c, ',') ||
        !shape_index(&c, &in))
      return true;
    if (take(&c, ','))
      while (c.s < c.end && *c.s != ')')
        c.s++; /* may-alias, must-alias */
    if (!take(&c, ')'))
      return true;
    if (!fn(w, ctx, &out, n, &in))
      return false;
  } while (take(&c, ','));
  return true;
}

static bool operand_alias(pg_walk *w, const void *ctx, const pg_path *out, int64_t n, const pg_path *in) {
  const vmem_hlo_instruction *user = ctx;
  if (n < 0 || (uint64_t)n >= user->noperands)
    return true;
  return join(w, user, out, user->operands[n], in);
}

static bool input_output(pg_walk *w, const void *ctx, const pg_path *out, int64_t n, const pg_path *in) {
  const vmem_hlo_computation *e = ctx;
  for (uint32_t i = 0; i < e->ninstrs; i++) {
    const vmem_hlo_instruction *p = e->instrs[i];
    if (p->kind == HLO_KIND_PARAMETER && n >= 0 && p->parameter == (uint64_t)n && e->root)
      return join(w, e->root, out, p, in);
  }
  return true;
}

/* ---- in place ----------------------------------------------------------------------- */

static bool in_place_op(const vmem_hlo_instruction *in, uint32_t *nops) {
  if (in->op == HLO_OP_DYNAMIC_UPDATE_SLICE) {
    *nops = in->noperands ? 1 : 0; /* the operand it updates */
    return true;
  }
  *nops = in->noperands;
  return hlo_has(in, HLO_F_ELEMWISE);
}

/* The instruction at step s takes over one operand's buffer, if any ends
 * there with its size and memory space. */
static bool reuse_operand(pg_walk *w, int64_t s, const vmem_hlo_instruction *in) {
  static const pg_path whole = {0, {0}};
  size_t x = pg_index(w, in), u = w->base[x];
  uint32_t nops;
  if (u == PG_NONE || in->shape->tuple || !in_place_op(in, &nops) || w->vstart[u] != s || w->vspace[u] < 0 ||
      w->hs[pg_find(w, u)] < s)
    return true; /* not in place, or its buffer is already someone's before now */
  for (uint32_t k = 0; k < nops; k++) {
    if (!pg_collect(w, in->operands[k], &whole))
      return false;
    if (w->nhits != 1)
      continue;
    size_t v = w->hits[0], r = pg_find(w, v);
    if (w->vstart[v] >= 0 && w->he[r] == s && r != pg_find(w, u) && w->vspace[v] == w->vspace[u] &&
        w->vbytes[v] == w->vbytes[u]) {
      pg_union(w, v, u);
      return true;
    }
  }
  return true;
}

bool pg_join(pg_walk *w) {
  for (size_t i = 0; i < w->n; i++) {
    const vmem_hlo_instruction *in = w->by_ptr[i];
    const vmem_hlo_computation *body;
    pg_path p = {0, {0}};
    if (in->op == HLO_OP_WHILE && in->noperands && (body = pg_while_body(in)) && body->root &&
        !join_state(w, in, body->root, in->shape, &p))
      return false;
    vmem_str alias = vmem_hlo_instruction_attr(in, "output_to_operand_aliasing");
    if (alias.len && !each_pair(w, alias, in, operand_alias))
      return false;
  }
  vmem_str io = vmem_hlo_attr(w->m, "input_output_alias");
  if (io.len && !each_pair(w, io, w->m->entry, input_output))
    return false;
  for (int64_t s = 0; s < w->t; s++) /* in schedule order: a chain of in-place ops shares one buffer */
    if (!reuse_operand(w, s, w->resv_in[s]))
      return false;
  return true;
}
