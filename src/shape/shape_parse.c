/*
 * shape_parse.c — recursive-descent parser for XLA shape syntax.
 *
 * Grammar (as XLA prints shapes; see docs/layouts.md):
 *   shape   ::= array | tuple
 *   tuple   ::= '(' (shape (',' shape)*)? ')'
 *   array   ::= dtype '[' (dim (',' dim)*)? ']' layout?
 *   dim     ::= int | '<=' int | '?'
 *   layout  ::= '{' (int (',' int)*)? (':' field*)? '}'
 *   field   ::= 'D(' raw ')' | 'T' tile+ | 'L(' int ')' | '#(' dtype ')'
 *             | '*(' dtype ')' | 'E(' int ')' | 'S(' int ')' | 'SC(' raw ')'
 *             | 'P(' shape ')' | 'M(' int ')'          -- in this order
 *   tile    ::= '(' (tdim (',' tdim)*)? ')'     tdim ::= int | '*'
 * Whitespace and C comments may stand between tokens (HLO prints
 * index comments inside long tuple shapes).
 */
#include <stdio.h>
#include <string.h>

#include "shape.h"

typedef struct parser {
  arena *a;
  const char *s;
  size_t len, pos;
  vmem_error *err;
  int depth;
} parser;

enum { MAX_NESTING = 256 };

static bool fail(parser *p, vmem_status code, size_t at, const char *what) {
  return err_first(p->err, code, at, "%s", what);
}

static bool nomem(parser *p) { return fail(p, VMEM_ERR_NOMEM, p->pos, "out of memory"); }

static void skip_space_slow(parser *p) {
  while (p->pos < p->len) {
    char c = p->s[p->pos];
    if (ch_is_space(c)) {
      p->pos++;
    } else if (c == '/' && p->pos + 1 < p->len && p->s[p->pos + 1] == '*') {
      const char *end = NULL;
      for (size_t i = p->pos + 2; i + 1 < p->len; i++)
        if (p->s[i] == '*' && p->s[i + 1] == '/') {
          end = p->s + i;
          break;
        }
      if (!end)
        return; /* left for the caller to report at this position */
      p->pos = (size_t)(end - p->s) + 2;
    } else if (c == '/' && p->pos + 1 < p->len && p->s[p->pos + 1] == '/') {
      while (p->pos < p->len && p->s[p->pos] != '\n') /* HLO's // comments */
        p->pos++;
    } else {
      return;
    }
  }
}

/* Most calls find a token at once: test that before the loop. */
static inline void skip_space(parser *p) {
  if (p->pos < p->len && !ch_is_space(p->s[p->pos]) && p->s[p->pos] != '/')
    return;
  skip_space_slow(p);
}

static bool peek(parser *p, char c) {
  skip_space(p);
  return p->pos < p->len && p->s[p->pos] == c;
}

static bool accept(parser *p, char c) {
  if (peek(p, c)) {
    p->pos++;
    return true;
  }
  return false;
}

static bool expect(parser *p, char c, const char *what) {
  if (accept(p, c))
    return true;
  if (p->pos >= p->len)
    return fail(p, VMEM_ERR_SYNTAX, p->pos, what);
  char msg[96];
  snprintf(msg, sizeof msg, "%s, found '%c'", what, p->s[p->pos]);
  return fail(p, VMEM_ERR_SYNTAX, p->pos, msg);
}

/* int ::= [0-9]+   (non-negative, at most INT64_MAX) */
static bool parse_int(parser *p, int64_t *out) {
  skip_space(p);
  size_t start = p->pos;
  uint64_t v = 0;
  while (p->pos < p->len && ch_is_digit(p->s[p->pos])) {
    if (!ck_mul(v, 10, &v) || !ck_add(v, (uint64_t)(p->s[p->pos] - '0'), &v) || v > (uint64_t)INT64_MAX)
      return fail(p, VMEM_ERR_OVERFLOW, start, "integer does not fit in 64 bits");
    p->pos++;
  }
  if (p->pos == start)
    return fail(p, VMEM_ERR_SYNTAX, start, "expected an integer");
  *out = (int64_t)v;
  return true;
}

/* dtype ::= [a-z][a-z0-9]*  (one of the names in VMEM_DTYPE_TABLE) */
static bool parse_dtype(parser *p, vmem_dtype *out) {
  skip_space(p);
  size_t start = p->pos;
  while (p->pos < p->len && ((p->s[p->pos] >= 'a' && p->s[p->pos] <= 'z') || ch_is_digit(p->s[p->pos])))
    p->pos++;
  if (p->pos == start)
    return fail(p, VMEM_ERR_SYNTAX, start, "expected an element type like f32 or bf16");
  if (!vmem_dtype_from_name(p->s + start, p->pos - start, out)) {
    char msg[120];
    snprintf(msg, sizeof msg, "unknown element type '%.*s'", (int)(p->pos - start > 40 ? 40 : p->pos - start),
             p->s + start);
    return fail(p, VMEM_ERR_UNKNOWN, start, msg);
  }
  return true;
}

/* A growable int64 list in the arena. */
typedef struct i64list {
  int64_t *v;
  size_t n, cap;
} i64list;

static bool list_push(parser *p, i64list *l, int64_t x) {
  if (l->n == l->cap) {
    size_t cap = l->cap ? l->cap * 2 : 8;
    int64_t *v = arena_alloc(p->a, cap * sizeof *v);
    if (!v)
      return nomem(p);
    if (l->n)
      memcpy(v, l->v, l->n * sizeof *v);
    l->v = v;
    l->cap = cap;
  }
  l->v[l->n++] = x;
  return true;
}

/* dims ::= '[' (dim (',' dim)*)? ']' */
static bool parse_dims(parser *p, vmem_shape *s) {
  if (!expect(p, '[', "expected '[' after the element type"))
    return false;
  i64list dims = {0}, dyn = {0}, off = {0};
  if (!accept(p, ']')) {
    do {
      int64_t d = 0, kind = DIM_STATIC;
      skip_space(p);
      if (!list_push(p, &off, (int64_t)p->pos))
        return false;
      if (accept(p, '?')) {
        kind = DIM_UNBOUNDED;
      } else {
        if (accept(p, '<')) {
          if (!expect(p, '=', "expected '<=' for a bounded dynamic dimension"))
            return false;
          kind = DIM_BOUNDED;
        }
        if (!parse_int(p, &d))
          return false;
      }
      if (!list_push(p, &dims, d) || !list_push(p, &dyn, kind))
        return false;
    } while (accept(p, ','));
    if (!expect(p, ']', "expected ',' or ']' in the dimensions"))
      return false;
  }
  s->rank = dims.n;
  s->dims = dims.v;
  s->dyn = arena_alloc(p->a, dims.n ? dims.n : 1);
  if (!s->dyn)
    return nomem(p);
  s->dim_offset = arena_alloc(p->a, (dims.n ? dims.n : 1) * sizeof *s->dim_offset);
  if (!s->dim_offset)
    return nomem(p);
  for (size_t i = 0; i < dyn.n; i++) {
    s->dyn[i] = (uint8_t)dyn.v[i];
    s->dim_offset[i] = (size_t)off.v[i];
  }
  return true;
}

/* raw ::= printable text with balanced parentheses, up to the closing ')'
 * (kept as a C string, so a NUL or control byte could not print back) */
static bool parse_raw(parser *p, const char **out) {
  size_t start = p->pos;
  int depth = 0;
  while (p->pos < p->len) {
    char c = p->s[p->pos];
    if ((unsigned char)c < 0x20 || c == 0x7f)
      return fail(p, VMEM_ERR_SYNTAX, p->pos, "a control byte inside a layout's parentheses");
    if (c == '(')
      depth++;
    if (c == ')') {
      if (depth == 0) {
        *out = arena_strndup(p->a, p->s + start, p->pos - start);
        if (!*out)
          return nomem(p);
        p->pos++;
        return true;
      }
      depth--;
    }
    p->pos++;
  }
  return fail(p, VMEM_ERR_SYNTAX, start, "unterminated '(' in layout");
}

/* tile ::= '(' (tdim (',' tdim)*)? ')' */
static bool parse_tile(parser *p, tile *t) {
  i64list dims = {0};
  if (!expect(p, '(', "expected '(' to open a tile"))
    return false;
  if (!accept(p, ')')) {
    do {
      int64_t d;
      size_t at = p->pos;
      if (accept(p, '*')) {
        d = TILE_COMBINE;
      } else {
        if (!parse_int(p, &d))
          return false;
        if (d == 0)
          return fail(p, VMEM_ERR_RANGE, at, "a tile dimension must be positive");
      }
      if (!list_push(p, &dims, d))
        return false;
    } while (accept(p, ','));
    if (!expect(p, ')', "expected ',' or ')' in a tile"))
      return false;
  }
  t->rank = dims.n;
  t->dims = dims.v;
  return true;
}

/* 'T' tile+ */
static bool parse_tiles(parser *p, layout *l) {
  tile buf[8];
  size_t n = 0;
  tile *tiles = buf;
  size_t cap = 8;
  do {
    if (n == cap) {
      tile *t = arena_alloc(p->a, cap * 2 * sizeof *t);
      if (!t)
        return nomem(p);
      memcpy(t, tiles, n * sizeof *t);
      tiles = t;
      cap *= 2;
    }
    if (!parse_tile(p, &tiles[n++]))
      return false;
  } while (peek(p, '('));
  l->tiles = arena_alloc(p->a, n * sizeof *l->tiles);
  if (!l->tiles)
    return nomem(p);
  memcpy(l->tiles, tiles, n * sizeof *tiles);
  l->ntiles = n;
  return true;
}

/* '(' int ')' after a one-letter field name */
static bool parse_paren_int(parser *p, int64_t *out) {
  return expect(p, '(', "expected '('") && parse_int(p, out) && expect(p, ')', "expected ')'");
}

static bool parse_paren_dtype(parser *p, int *out) {
  vmem_dtype t;
  if (!expect(p, '(', "expected '('") || !parse_dtype(p, &t) || !expect(p, ')', "expected ')'"))
    return false;
  *out = (int)t;
  return true;
}

/* The layout fields in the order XLA prints them. A field seen out of
 * order is an error, as in XLA's parser. */
static const char *const field_names[] = {"D", "T", "L", "#", "*", "E", "S", "SC", "P", "M"};
enum { F_D, F_T, F_L, F_IDX, F_PTR, F_E, F_S, F_SC, F_P, F_M, F_COUNT };

static int field_at(parser *p) {
  skip_space(p);
  if (p->pos >= p->len)
    return -1;
  const char *c = p->s + p->pos;
  size_t rest = p->len - p->pos;
  if (rest >= 2 && c[0] == 'S' && c[1] == 'C')
    return F_SC;
  for (int f = 0; f < F_COUNT; f++)
    if (field_names[f][1] == '\0' && c[0] == field_names[f][0])
      return f;
  return -1;
}

static vmem_shape *parse_shape(parser *p);

static bool parse_field(parser *p, layout *l, int f) {
  p->pos += strlen(field_names[f]);
  switch (f) {
  case F_D:
    return expect(p, '(', "expected '(' after D") && parse_raw(p, &l->dim_level);
  case F_T:
    return parse_tiles(p, l);
  case F_L:
    if (!parse_paren_int(p, &l->tail_align))
      return false;
    return l->tail_align > 0 || fail(p, VMEM_ERR_RANGE, p->pos, "L(n) needs n > 0");
  case F_IDX:
    return parse_paren_dtype(p, &l->index_type);
  case F_PTR:
    return parse_paren_dtype(p, &l->pointer_type);
  case F_E:
    if (!parse_paren_int(p, &l->elem_bits))
      return false;
    return (l->elem_bits > 0 && l->elem_bits <= 1024) || fail(p, VMEM_ERR_RANGE, p->pos, "E(bits) needs 1..1024 bits");
  case F_S:
    return parse_paren_int(p, &l->memory_space);
  case F_SC:
    return expect(p, '(', "expected '(' after SC") && parse_raw(p, &l->split);
  case F_P:
    if (!expect(p, '(', "expected '(' after P"))
      return false;
    l->physical = parse_shape(p);
    return l->physical && expect(p, ')', "expected ')' after the physical shape");
  default:
    return parse_paren_int(p, &l->dyn_prefix);
  }
}

/* layout ::= '{' (int (',' int)*)? (':' field*)? '}' */
static bool parse_layout(parser *p, vmem_shape *s) {
  size_t open = p->pos;
  layout *l = &s->lay;
  l->present = true;
  l->tail_align = 1;
  l->index_type = l->pointer_type = -1;
  p->pos++; /* '{' */
  i64list m2m = {0};
  if (!peek(p, ':') && !peek(p, '}')) {
    do {
      int64_t d;
      size_t at = p->pos;
      if (!parse_int(p, &d) || !list_push(p, &m2m, d))
        return false;
      if ((uint64_t)d >= s->rank)
        return fail(p, VMEM_ERR_RANGE, at, "minor_to_major names a dimension the shape does not have");
    } while (accept(p, ','));
  }
  if (m2m.n != s->rank)
    return fail(p, VMEM_ERR_RANGE, open, "the layout's minor_to_major list must name every dimension once");
  for (size_t i = 0; i < m2m.n; i++)
    for (size_t j = i + 1; j < m2m.n; j++)
      if (m2m.v[i] == m2m.v[j])
        return fail(p, VMEM_ERR_RANGE, open, "minor_to_major names a dimension twice");
  l->rank = m2m.n;
  l->minor_to_major = m2m.v;
  if (accept(p, ':')) {
    int last = -1, f;
    while ((f = field_at(p)) >= 0) {
      if (f <= last) {
        char msg[120];
        snprintf(msg, sizeof msg, "layout field %s out of order (XLA prints D T L # * E S SC P M, each once)",
                 field_names[f]);
        return fail(p, VMEM_ERR_SYNTAX, p->pos, msg);
      }
      if (!parse_field(p, l, f))
        return false;
      last = f;
    }
  }
  return expect(p, '}', "expected a layout field or '}'");
}

/* array ::= dtype '[' dims ']' layout? */
static bool parse_array(parser *p, vmem_shape *s) {
  if (!parse_dtype(p, &s->dtype) || !parse_dims(p, s))
    return false;
  /* A '{' after the dims is a layout only when an int, ':' or '}' follows:
   * in HLO, `-> f32[] {` opens a computation body. */
  size_t save = p->pos;
  if (accept(p, '{')) {
    bool is_layout = peek(p, ':') || peek(p, '}') || (p->pos < p->len && ch_is_digit(p->s[p->pos]));
    p->pos = save;
    skip_space(p);
    if (is_layout)
      return parse_layout(p, s);
  }
  p->pos = save;
  return true;
}

/* tuple ::= '(' (shape (',' shape)*)? ')' */
static bool parse_tuple(parser *p, vmem_shape *s) {
  s->tuple = true;
  p->pos++; /* '(' */
  vmem_shape *buf[16];
  vmem_shape **elems = buf;
  size_t n = 0, cap = 16;
  if (!accept(p, ')')) {
    do {
      if (n == cap) {
        vmem_shape **e = arena_alloc(p->a, cap * 2 * sizeof *e);
        if (!e)
          return nomem(p);
        memcpy(e, elems, n * sizeof *e);
        elems = e;
        cap *= 2;
      }
      if (!(elems[n++] = parse_shape(p)))
        return false;
    } while (accept(p, ','));
    if (!expect(p, ')', "expected ',' or ')' in a tuple shape"))
      return false;
  }
  s->count = n;
  s->elems = arena_alloc(p->a, (n ? n : 1) * sizeof *s->elems);
  if (!s->elems)
    return nomem(p);
  memcpy(s->elems, elems, n * sizeof *elems);
  return true;
}

/* shape ::= array | tuple */
static vmem_shape *parse_shape(parser *p) {
  if (++p->depth > MAX_NESTING) {
    fail(p, VMEM_ERR_RANGE, p->pos, "shapes nested more than 256 deep");
    return NULL;
  }
  skip_space(p);
  vmem_shape *s = arena_calloc(p->a, 1, sizeof *s);
  if (!s) {
    nomem(p);
    return NULL;
  }
  s->offset = p->pos;
  bool ok = peek(p, '(') ? parse_tuple(p, s) : parse_array(p, s);
  p->depth--;
  return ok ? s : NULL;
}

vmem_shape *shape_parse_at(arena *a, const char *text, size_t len, size_t *pos, vmem_error *err) {
  parser p = {a, text, len, *pos, err, 0};
  vmem_shape *s = parse_shape(&p);
  *pos = p.pos;
  return s;
}

vmem_shape *vmem_shape_parse(const char *text, size_t len, const vmem_allocator *alloc, vmem_error *err) {
  err_clear(err);
  if (!text) {
    err_set(err, VMEM_ERR_ARGUMENT, 0, "no text");
    return NULL;
  }
  arena tmp;
  /* A shape takes about 8 bytes of nodes per byte of text. */
  arena_init_sized(&tmp, alloc, len < SIZE_MAX / 8 ? len * 8 + 128 : SIZE_MAX);
  arena *owner = arena_alloc(&tmp, sizeof *owner);
  if (!owner) {
    arena_destroy(&tmp);
    err_set(err, VMEM_ERR_NOMEM, 0, "out of memory");
    return NULL;
  }
  *owner = tmp;
  size_t pos = 0;
  vmem_error local;
  err_clear(&local);
  vmem_shape *s = shape_parse_at(owner, text, len, &pos, &local);
  if (s) {
    parser p = {owner, text, len, pos, &local, 0};
    skip_space(&p);
    if (p.pos < len) {
      err_set(&local, VMEM_ERR_SYNTAX, p.pos, "unexpected text after the shape");
      s = NULL;
    }
  }
  if (!s) {
    if (err)
      *err = local;
    tmp = *owner;
    arena_destroy(&tmp);
    return NULL;
  }
  s->owner = owner;
  return s;
}

void vmem_shape_free(vmem_shape *s) {
  if (!s || !s->owner)
    return;
  arena a = *s->owner;
  arena_destroy(&a);
}
