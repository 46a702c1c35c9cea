/*
 * hlo_parse.c — recursive-descent reader of HLO text as XLA prints it.
 *
 * One pass over the buffer, no token array: each rule reads characters at
 * p->pos. Names, opcodes and attribute values become views into the text;
 * shapes are parsed by shape_parse_at into the module arena. Attribute
 * values are kept raw (balanced brackets, strings with escapes); only the
 * few the IR needs are decoded (called computations). Large constant
 * literals are skipped, never built. Grammar: docs/hlo.md. A large
 * module's second half is read by hlo_halves.c, which meets this grammar
 * only through the hooks in hlo_parser.h.
 */
#include <stdio.h>
#include <string.h>

#include "hlo_parser.h"

/* ---- errors ---------------------------------------------------------- */

/* The first error is kept (err_first). */
#define fail(p, ...) err_first((p)->err, __VA_ARGS__)

bool hp_nomem(parser *p) { return fail(p, VMEM_ERR_NOMEM, p->pos, "out of memory"); }

/* What stands at `at`, for messages: a short quoted excerpt or "end of file". */
static const char *found(parser *p, size_t at, char *buf, size_t cap) {
  if (at >= p->len)
    return "the end of the file";
  size_t n = 0;
  while (at + n < p->len && n < 24 && p->s[at + n] != '\n' && p->s[at + n] != '\r')
    n++;
  snprintf(buf, cap, "'%.*s'", (int)n, p->s + at);
  return buf;
}

static bool expected(parser *p, const char *what) {
  char buf[40];
  return fail(p, VMEM_ERR_SYNTAX, p->pos, "expected %s, found %s", what, found(p, p->pos, buf, sizeof buf));
}

/* ---- growable vectors (caller's allocator) ---------------------------- */

/* Room for element n of an array of *cap elements of `size` bytes: the
 * array itself, or a copy twice as large (NULL when out of memory). */
void *hp_grow(parser *p, void *items, size_t n, size_t *cap, size_t size) {
  if (n < *cap)
    return items;
  size_t c = *cap ? *cap * 2 : 64;
  void *na = vmem__alloc(p->alloc, c * size);
  if (!na)
    return hp_nomem(p), NULL;
  if (n)
    memcpy(na, items, n * size);
  vmem__free(p->alloc, items);
  *cap = c;
  return na;
}

/* Moves the entries of v from `from` on into the arena (NULL when there
 * are none: most instructions call nothing, many have no attributes). */
static bool vec_take(parser *p, vec *v, size_t from, void ***out) {
  size_t n = v->n - from;
  *out = NULL;
  if (n && !(*out = arena_alloc(p->a, n * sizeof **out)))
    return hp_nomem(p);
  if (n)
    memcpy(*out, v->v + from, n * sizeof **out);
  v->n = from;
  return true;
}

static bool attr_push(parser *p, hlo_attr at) {
  hlo_attr *na = hp_grow(p, p->attrs, p->nattrs, &p->cap_attrs, sizeof *na);
  if (!na)
    return false;
  p->attrs = na;
  p->attrs[p->nattrs++] = at;
  return true;
}

static bool attrs_take(parser *p, size_t from, hlo_attr **out, uint32_t *n) {
  *n = (uint32_t)(p->nattrs - from);
  *out = NULL;
  if (*n && !(*out = arena_alloc(p->a, *n * sizeof **out)))
    return hp_nomem(p);
  if (*n)
    memcpy(*out, p->attrs + from, *n * sizeof **out);
  p->nattrs = from;
  return true;
}

/* ---- characters -------------------------------------------------------- */

const unsigned char hp_ident_class[256] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0,
    0, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 0, 0, 0, 0, 3,
    0, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 0, 0, 0, 0, 0,
};

/* ws ::= (' ' | '\t' | '\r' | '\n' | '/' '*' ... '*' '/' | '/' '/' ... '\n')* */
static bool skip_ws_slow(parser *p) {
  for (;;) {
    while (p->pos < p->len && ch_is_space(p->s[p->pos]))
      p->pos++;
    if (p->pos + 1 >= p->len || p->s[p->pos] != '/')
      return true;
    if (p->s[p->pos + 1] == '/') {
      const char *nl = memchr(p->s + p->pos, '\n', p->len - p->pos);
      p->pos = nl ? (size_t)(nl - p->s) : p->len;
    } else if (p->s[p->pos + 1] == '*') {
      size_t start = p->pos;
      p->pos += 2;
      for (;;) {
        const char *star = memchr(p->s + p->pos, '*', p->len - p->pos);
        if (!star || (size_t)(star - p->s) + 1 >= p->len)
          return fail(p, VMEM_ERR_SYNTAX, start, "unterminated /* comment");
        p->pos = (size_t)(star - p->s) + 1;
        if (p->s[p->pos] == '/') {
          p->pos++;
          break;
        }
      }
    } else {
      return true;
    }
  }
}

/* Most tokens are followed directly by the next, or by one space and the
 * next: those cases are inline. */
static inline bool skip_ws(parser *p) {
  if (p->pos + 1 < p->len) {
    unsigned char c = (unsigned char)p->s[p->pos];
    if (c > ' ' && c != '/')
      return true;
    unsigned char d = (unsigned char)p->s[p->pos + 1];
    if (c == ' ' && d > ' ' && d != '/') {
      p->pos++;
      return true;
    }
  }
  return skip_ws_slow(p);
}

static inline bool at(parser *p, char c) { return p->pos < p->len && p->s[p->pos] == c; }

static inline bool accept(parser *p, char c) {
  if (!skip_ws(p) || !at(p, c))
    return false;
  p->pos++;
  return true;
}

static inline bool expect(parser *p, char c, const char *what) {
  if (accept(p, c))
    return true;
  return p->err->code == VMEM_OK ? expected(p, what) : false;
}

/* Does the text at pos spell `word` followed by a non-identifier char? */
static bool at_word(parser *p, const char *word) {
  size_t n = strlen(word);
  return p->pos + n <= p->len && memcmp(p->s + p->pos, word, n) == 0 &&
         (p->pos + n == p->len || !is_ident(p->s[p->pos + n]));
}

/* ident ::= [a-zA-Z_][a-zA-Z0-9_.-]*      name ::= '%'? ident
 * After '%' a name may start with a digit, as XLA's '%' lexer path allows. */
static bool parse_name(parser *p, sv *out, const char *what) {
  if (!skip_ws(p))
    return false;
  size_t start = p->pos;
  bool pct = at(p, '%');
  if (pct)
    p->pos++;
  if (p->pos >= p->len || !(is_ident_start(p->s[p->pos]) || (pct && ch_is_digit(p->s[p->pos])))) {
    p->pos = start;
    return expected(p, what);
  }
  size_t id = p->pos;
  while (p->pos < p->len && is_ident(p->s[p->pos]))
    p->pos++;
  out->ptr = p->s + id;
  out->len = p->pos - id;
  return true;
}

/* opcode ::= [a-zA-Z_][a-zA-Z0-9_.-]*     (no '%': opcodes are not names) */
static bool parse_opcode(parser *p, sv *out) {
  if (!skip_ws(p))
    return false;
  if (p->pos >= p->len || !is_ident_start(p->s[p->pos]))
    return expected(p, "an opcode");
  size_t start = p->pos;
  while (p->pos < p->len && is_ident(p->s[p->pos]))
    p->pos++;
  out->ptr = p->s + start;
  out->len = p->pos - start;
  return true;
}

/* A slot for the first (up to) eight bytes of a text and its length. */
static size_t seen_slot(const char *s, size_t n, unsigned bits) {
  uint64_t w = 0;
  memcpy(&w, s, n < 8 ? n : 8);
  return (size_t)(((w ^ n) * 0x9E3779B97F4A7C15ULL) >> (64 - bits));
}

/* A dump has a few dozen distinct opcodes: keep one copy of each, with its
 * enum (the table is searched once per distinct opcode). */
typedef struct interned_op {
  sv text; /* first: the hlo_map key, and what in->opcode points to */
  uint8_t op;
} interned_op;

static const interned_op *intern_opcode(parser *p, sv op) {
  const interned_op **seen = &p->opcodes_seen[seen_slot(op.ptr, op.len, 6)];
  if (*seen && (*seen)->text.len == op.len && hlo_bytes_eq((*seen)->text.ptr, op.ptr, op.len))
    return *seen;
  interned_op *e = hlo_map_get(&p->opcodes, op);
  if (e)
    return *seen = e;
  bool oom = false;
  if (!(e = arena_alloc(p->a, sizeof *e))) {
    hp_nomem(p);
    return NULL;
  }
  e->text = op;
  e->op = (uint8_t)hlo_op_lookup(op);
  hlo_map_put(&p->opcodes, e, &oom);
  if (oom) {
    hp_nomem(p);
    return NULL;
  }
  return *seen = e;
}

/* string ::= '"' ([^"\\] | '\\' any)* '"'   (also single-quoted)
 * Finds each candidate quote with memchr: base64 kernel bodies inside
 * backend configs are kilobytes long. A quote is escaped when an odd number
 * of backslashes precede it. */
static bool scan_string(parser *p) {
  char q = p->s[p->pos];
  size_t start = p->pos, i = p->pos + 1;
  for (;;) {
    const char *e = memchr(p->s + i, q, p->len - i);
    if (!e)
      return fail(p, VMEM_ERR_SYNTAX, start, "unterminated string");
    size_t j = (size_t)(e - p->s), k = j;
    while (k > start + 1 && p->s[k - 1] == '\\')
      k--;
    i = j + 1;
    if ((j - k) % 2 == 0)
      break;
  }
  p->pos = i;
  return true;
}

/* Character classes for scan_raw: everything else is skipped in a tight
 * loop. */
enum { RC_PLAIN = 0, RC_QUOTE, RC_OPEN, RC_CLOSE, RC_STOP };
static const unsigned char raw_class[256] = {
    ['"'] = RC_QUOTE, ['\''] = RC_QUOTE, ['('] = RC_OPEN,  ['['] = RC_OPEN, ['{'] = RC_OPEN,
    [')'] = RC_CLOSE, [']'] = RC_CLOSE,  ['}'] = RC_CLOSE, [','] = RC_STOP, [' '] = RC_STOP,
    ['\t'] = RC_STOP, ['\n'] = RC_STOP,  ['\r'] = RC_STOP,
};

static char opener_of(char closer) { return closer == ')' ? '(' : closer == ']' ? '[' : '{'; }

static bool unbalanced(parser *p, size_t at, char want_close, size_t opened) {
  size_t line, col;
  vmem_locate(p->s, p->len, opened, &line, &col);
  if (at >= p->len)
    return fail(p, VMEM_ERR_SYNTAX, opened, "unterminated '%c'", opener_of(want_close));
  return fail(p, VMEM_ERR_SYNTAX, at, "'%c' closes the '%c' opened at line %zu, column %zu", p->s[at],
              opener_of(want_close), line, col);
}

/* raw ::= a run of text with balanced (), [], {} and whole strings, ending
 * before a ',' or white space at depth 0, or before an unmatched closer.
 * With `until_close`, the run is the inside of an already-open bracket and
 * ends at its closer. */
static bool scan_raw(parser *p, sv *out, bool until_close) {
  char stack[64];
  size_t opened[64], depth = 0, start = p->pos;
  const char *s = p->s;
  size_t i = p->pos, n = p->len;
  for (;;) {
    while (i < n && raw_class[(unsigned char)s[i]] == RC_PLAIN)
      i++;
    if (i >= n)
      break;
    char c = s[i];
    int cls = raw_class[(unsigned char)c];
    if (cls == RC_QUOTE) {
      p->pos = i;
      if (!scan_string(p))
        return false;
      i = p->pos;
      continue;
    }
    if (cls == RC_STOP) {
      if (depth == 0 && !until_close)
        break;
    } else if (cls == RC_OPEN) {
      if (depth == sizeof stack)
        return fail(p, VMEM_ERR_RANGE, i, "brackets nested more than 64 deep");
      opened[depth] = i;
      stack[depth++] = c == '(' ? ')' : c == '[' ? ']' : '}';
    } else {
      if (depth == 0)
        break;
      if (c != stack[depth - 1])
        return unbalanced(p, i, stack[depth - 1], opened[depth - 1]);
      depth--;
    }
    i++;
  }
  if (depth > 0)
    return unbalanced(p, n, stack[depth - 1], opened[depth - 1]);
  p->pos = i;
  out->ptr = s + start;
  out->len = i - start;
  return true;
}

/* ---- attributes ------------------------------------------------------- */

/* attr ::= attr_name '=' raw      (no space between the name and '=') */
static bool parse_attr(parser *p) {
  sv name;
  if (!parse_name(p, &name, "an attribute name=value"))
    return false;
  if (!at(p, '=')) {
    p->pos = (size_t)(name.ptr - p->s);
    return expected(p, "'=' right after the attribute name");
  }
  p->pos++;
  sv value;
  if (!scan_raw(p, &value, false))
    return false;
  if (value.len == 0)
    return expected(p, "an attribute value");
  /* literal=s32[] 1: a shape, a space, then the value. */
  if (sv_eq(name, "literal", 7)) {
    size_t save = p->pos;
    while (p->pos < p->len && (p->s[p->pos] == ' ' || p->s[p->pos] == '\t'))
      p->pos++;
    char c = p->pos < p->len ? p->s[p->pos] : ',';
    sv rest;
    if ((ch_is_digit(c) || c == '-' || c == '{' || c == '(' || at_word(p, "true") || at_word(p, "false") ||
         at_word(p, "nan") || at_word(p, "inf")) &&
        scan_raw(p, &rest, false))
      value.len = (size_t)(rest.ptr + rest.len - value.ptr);
    else
      p->pos = save;
    if (p->err->code != VMEM_OK)
      return false;
  }
  if (value.len > UINT32_MAX || name.len > UINT32_MAX)
    return fail(p, VMEM_ERR_RANGE, (size_t)(name.ptr - p->s), "an attribute longer than 4 GiB");
  hlo_attr a = {value.ptr, (uint32_t)value.len, (uint32_t)name.len};
  return attr_push(p, a);
}

/* attrs ::= (',' attr)* */
static bool parse_attrs(parser *p) {
  while (accept(p, ','))
    if (!parse_attr(p))
      return false;
  return p->err->code == VMEM_OK;
}

/* ---- shapes ------------------------------------------------------------ */

static vmem_shape *parse_shape_into(parser *p, arena *a) {
  if (!skip_ws(p))
    return NULL;
  vmem_shape *s = shape_parse_at(a, p->s, p->len, &p->pos, p->err);
  return s;
}

/* The end of the shape text at pos, found without parsing, or 0 when the
 * text is not in the plain form a dump prints (then it is parsed anew):
 *   dtype '[' ... ']' ('{' ... '}')?   or   '(' ... ')'
 * A '{' counts as a layout only directly after ']' and when a digit, ':'
 * or '}' follows it, as the shape parser decides. */
static size_t shape_extent(parser *p) {
  const char *s = p->s;
  size_t i = p->pos, n = p->len;
  if (i < n && s[i] == '(') {
    int depth = 0;
    for (; i < n; i++) {
      if (s[i] == '(')
        depth++;
      else if (s[i] == ')' && --depth == 0)
        return i + 1;
      else if (s[i] == '\n' || s[i] == '"')
        return 0;
    }
    return 0;
  }
  while (i < n && ((s[i] >= 'a' && s[i] <= 'z') || ch_is_digit(s[i])))
    i++;
  if (i == p->pos || i >= n || s[i] != '[')
    return 0;
  const char *close = memchr(s + i, ']', n - i);
  if (!close)
    return 0;
  i = (size_t)(close - s) + 1;
  if (i + 1 < n && s[i] == '{' && (ch_is_digit(s[i + 1]) || s[i + 1] == ':' || s[i + 1] == '}')) {
    const char *end = memchr(s + i, '}', n - i);
    if (!end)
      return 0;
    i = (size_t)(end - s) + 1;
    /* P(shape) nests a layout: the first '}' would be the inner one. */
    if (memchr(s + p->pos, 'P', i - p->pos))
      return 0;
  }
  size_t j = i;
  while (j < n && (s[j] == ' ' || s[j] == '\t'))
    j++;
  if (j > i && j + 1 < n && s[j] == '{' && (ch_is_digit(s[j + 1]) || s[j + 1] == ':'))
    return 0; /* "f32[8] {0}": the parser would take the spaced layout too */
  return i;
}

/* The set of recent shape texts for the text at pos (NULL near the end). */
static hlo_shape_entry **shape_set(parser *p) {
  return p->pos + 8 <= p->len ? p->shapes_seen[seen_slot(p->s + p->pos, 8, 6)] : NULL;
}

/* Is the interned text t the whole shape at pos? It is when the text
 * follows and then a ',' or ')', or blanks and anything but a spaced
 * layout ('{' and a digit or ':'): shape_extent, which found t, would end
 * the shape at the same place. */
static bool shape_text_here(parser *p, sv t) {
  size_t i = p->pos + t.len;
  if (i >= p->len || !hlo_bytes_eq(p->s + p->pos, t.ptr, t.len))
    return false;
  char c = p->s[i];
  if (c == ',' || c == ')')
    return true;
  if (c != ' ' && c != '\t')
    return false;
  while (i < p->len && (p->s[i] == ' ' || p->s[i] == '\t'))
    i++;
  return i + 1 < p->len && !(p->s[i] == '{' && (ch_is_digit(p->s[i + 1]) || p->s[i + 1] == ':'));
}

/* Remembers e first in its set, the oldest falling out. */
static void shape_seen(hlo_shape_entry **set, hlo_shape_entry *e) {
  if (!set)
    return;
  memmove(set + 1, set, (SHAPE_WAYS - 1) * sizeof *set);
  set[0] = e;
}

/* shape, interned: dumps repeat the same few shape texts many times, so
 * each distinct text is parsed once and shared (shapes are immutable). */
static vmem_shape *parse_shape_interned(parser *p) {
  if (!skip_ws(p))
    return NULL;
  hlo_shape_entry **set = shape_set(p);
  for (int w = 0; set && w < SHAPE_WAYS && set[w]; w++)
    if (shape_text_here(p, set[w]->text)) {
      p->pos += set[w]->text.len;
      return set[w]->shape;
    }
  size_t start = p->pos, end = shape_extent(p);
  if (end) {
    sv key = {p->s + start, end - start};
    hlo_shape_entry *e = hlo_map_get(&p->shapes, key);
    if (e) {
      p->pos = end;
      shape_seen(set, e);
      return e->shape;
    }
  }
  vmem_shape *s = shape_parse_at(p->a, p->s, p->len, &p->pos, p->err);
  if (!s || !end || p->pos != end)
    return s;
  hlo_shape_entry *e = arena_alloc(p->a, sizeof *e);
  bool oom = false;
  if (!e) {
    hp_nomem(p);
    return NULL;
  }
  e->text.ptr = p->s + start;
  e->text.len = end - start;
  e->shape = s;
  shape_seen(set, e);
  hlo_map_put(&p->shapes, e, &oom);
  if (oom) {
    hp_nomem(p);
    return NULL;
  }
  return s;
}

/* Is an inline operand shape next ("f32[8]{0} %x" or "(f32[], s32[]) %t")? */
static bool at_inline_shape(parser *p) {
  if (at(p, '('))
    return true;
  size_t i = p->pos;
  while (i < p->len && ((p->s[i] >= 'a' && p->s[i] <= 'z') || ch_is_digit(p->s[i])))
    i++;
  vmem_dtype t;
  return i < p->len && p->s[i] == '[' && vmem_dtype_from_name(p->s + p->pos, i - p->pos, &t);
}

/* ---- instructions ----------------------------------------------------- */

/* operand ::= shape? name      (the inline shape is checked and dropped) */
static bool parse_operand(parser *p, vmem_hlo_computation *c) {
  if (!skip_ws(p))
    return false;
  if (at_inline_shape(p)) {
    arena_mark mark = arena_save(&p->scratch);
    vmem_shape *s = parse_shape_into(p, &p->scratch);
    arena_restore(&p->scratch, mark);
    if (!s)
      return false;
  }
  sv name;
  size_t at_name;
  if (!skip_ws(p))
    return false;
  at_name = p->pos;
  if (!parse_name(p, &name, "an operand name"))
    return false;
  uint64_t h = hlo_hash(name);
  vmem_hlo_instruction *op = p->recent[h & (RECENT - 1)];
  if (!op || op->parent != c || op->name.len != name.len || !hlo_bytes_eq(op->name.ptr, name.ptr, name.len))
    op = p->instrs.v ? hlo_index_get(&p->names, p->instrs.v + p->comp_from, name, h)
                     : NULL; /* nothing defined yet (and no array to offset) */
  if (!op) {
    hp_resolved r = p->hooks ? p->hooks->operand(p, c, name, h, &op) : HP_MISSING;
    if (r == HP_ERROR)
      return false;
    if (r == HP_MISSING)
      return fail(p, VMEM_ERR_UNKNOWN, at_name, "unknown operand %%%.*s: not defined earlier in computation %%%.*s",
                  (int)name.len, name.ptr, (int)c->name.len, c->name.ptr);
  }
  if (!skip_ws(p))
    return false;
  if (at(p, '('))
    return fail(p, VMEM_ERR_UNSUPPORTED, p->pos, "nested instructions as operands are not supported");
  return vec_push(p, &p->ops, op);
}

/* operands ::= '(' (operand (',' operand)*)? ')'
 * constant and parameter take a literal instead: kept raw, never built. */
static bool parse_operands(parser *p, vmem_hlo_instruction *in, sv *literal, vmem_hlo_computation *c) {
  if (!expect(p, '(', "'(' after the opcode"))
    return false;
  if (in->op == HLO_OP_CONSTANT) {
    in->kind = HLO_KIND_CONSTANT;
    return scan_raw(p, literal, true) && expect(p, ')', "')' after the literal");
  }
  if (in->op == HLO_OP_PARAMETER) {
    if (!skip_ws(p))
      return false;
    size_t at = p->pos;
    uint64_t n = 0;
    while (p->pos < p->len && ch_is_digit(p->s[p->pos]))
      if (!ck_mul(n, 10, &n) || !ck_add(n, (uint64_t)(p->s[p->pos++] - '0'), &n) || n > UINT32_MAX)
        return fail(p, VMEM_ERR_RANGE, at, "parameter number out of range");
    if (p->pos == at)
      return expected(p, "a parameter number");
    in->kind = HLO_KIND_PARAMETER;
    in->parameter = n;
    return expect(p, ')', "')' after the parameter number");
  }
  size_t from = p->ops.n;
  if (!accept(p, ')')) {
    if (p->err->code != VMEM_OK)
      return false;
    do {
      if (!parse_operand(p, c))
        return false;
    } while (accept(p, ','));
    if (!expect(p, ')', "',' or ')' after an operand"))
      return false;
  }
  if (p->ops.n - from > UINT32_MAX)
    return fail(p, VMEM_ERR_RANGE, (size_t)(in->name.ptr - p->s), "%%%.*s has more than %u operands", (int)in->name.len,
                in->name.ptr, UINT32_MAX);
  in->noperands = (uint32_t)(p->ops.n - from);
  return true;
}

/* Attributes whose values name computations. */
static bool calls_computations(sv name) {
#define KEY(s) \
  { s, sizeof s - 1 }
  static const struct {
    const char *s;
    size_t n;
  } keys[] = {KEY("calls"),
              KEY("to_apply"),
              KEY("condition"),
              KEY("body"),
              KEY("true_computation"),
              KEY("false_computation"),
              KEY("branch_computations"),
              KEY("called_computations")};
#undef KEY
  for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) /* lengths first: every attribute of every op asks */
    if (name.len == keys[i].n && !memcmp(name.ptr, keys[i].s, keys[i].n))
      return true;
  return false;
}

/* names ::= name | '{' (name (',' name)*)? '}'
 * An inline body (to_apply={ ... = ... }) is left unresolved. */
static bool resolve_called(parser *p, const hlo_attr *a, const vmem_hlo_computation *from) {
  const char *s = a->value, *end = s + a->value_len;
  if (*s == '{') {
    s++, end--;
    if (memchr(s, '=', (size_t)(end - s)))
      return true;
  }
  while (s < end) {
    while (s < end && (*s == ',' || ch_is_space(*s)))
      s++;
    if (s < end && *s == '%')
      s++;
    const char *b = s;
    while (s < end && is_ident(*s))
      s++;
    if (s == b) {
      if (s < end)
        return fail(p, VMEM_ERR_SYNTAX, (size_t)(s - p->s), "expected a computation name");
      break;
    }
    sv name = {b, (size_t)(s - b)};
    uint64_t h = hlo_hash(name);
    vmem_hlo_computation *callee = hlo_map_get_hashed(p->m->by_name, name, h); /* defined before */
    hp_resolved r = callee ? HP_FOUND : p->hooks ? p->hooks->callee(p, name, h, from, &callee) : HP_MISSING;
    if (r == HP_ERROR)
      return false;
    if (r == HP_MISSING)
      return fail(p, VMEM_ERR_UNKNOWN, (size_t)(b - p->s),
                  "computation %%%.*s is used before it is defined (callees come before callers)", (int)name.len,
                  name.ptr);
    if (!vec_push(p, &p->called, callee))
      return false;
  }
  return true;
}

static bool link_called(parser *p, vmem_hlo_instruction *in) {
  size_t from = p->called.n;
  for (uint32_t k = 0; k < in->nattrs; k++)
    if (calls_computations(attr_name(&hlo_attrs(in)[k])) && !resolve_called(p, &hlo_attrs(in)[k], in->parent))
      return false;
  if (p->called.n - from > UINT16_MAX)
    return fail(p, VMEM_ERR_RANGE, (size_t)(in->name.ptr - p->s), "%%%.*s calls more than %u computations",
                (int)in->name.len, in->name.ptr, UINT16_MAX);
  in->ncalled = (uint16_t)(p->called.n - from);
  if (in->ncalled && in->kind != HLO_KIND_CALLS)
    return fail(p, VMEM_ERR_SYNTAX, (size_t)(in->name.ptr - p->s), "%.*s cannot call computations",
                (int)in->opcode->len, in->opcode->ptr);
  if (in->kind != HLO_KIND_CALLS) {
    p->called.n = from;
    return true;
  }
  void **called;
  if (!vec_take(p, &p->called, from, &called) || !vec_push(p, &p->calling, in))
    return false;
  in->called = (vmem_hlo_computation **)called;
  return true;
}

/* The instruction as one block: head, the operands and attributes the
 * parser holds from ops_from and attrs_from on, a constant's literal. */
static vmem_hlo_instruction *instruction_block(parser *p, const vmem_hlo_instruction *head, size_t ops_from,
                                               size_t attrs_from, sv literal) {
  /* 64-bit sums: 2^32 operands of 8 bytes overflow only a 32-bit size_t */
  uint64_t ops = (uint64_t)head->noperands * sizeof(vmem_hlo_instruction *);
  uint64_t attrs = (uint64_t)head->nattrs * sizeof(hlo_attr), lit = head->kind == HLO_KIND_CONSTANT ? sizeof(sv) : 0;
  uint64_t size = sizeof *head + ops + attrs + lit;
  if (size > SIZE_MAX)
    return hp_nomem(p), NULL;
  vmem_hlo_instruction *in = arena_alloc(p->a, (size_t)size);
  if (!in)
    return hp_nomem(p), NULL;
  memcpy(in, head, sizeof *head);
  if (ops)
    memcpy(in->operands, p->ops.v + ops_from, (size_t)ops);
  if (attrs)
    memcpy(in->operands + head->noperands, p->attrs + attrs_from, (size_t)attrs); /* where hlo_attrs finds them */
  if (lit) {
    in->literal = (sv *)(void *)((char *)(in + 1) + ops + attrs);
    *in->literal = literal;
  }
  p->ops.n = ops_from;
  p->nattrs = attrs_from;
  return in;
}

/* instruction ::= 'ROOT'? name '=' shape opcode operands attrs */
static vmem_hlo_instruction *parse_instruction(parser *p, vmem_hlo_computation *c, bool *is_root) {
  vmem_hlo_instruction head;
  memset(&head, 0, sizeof head);
  head.parent = c;
  sv literal = {NULL, 0};
  *is_root = p->pos + 4 < p->len && p->s[p->pos] == 'R' && at_word(p, "ROOT"); /* most lines: one compare */
  if (*is_root)
    p->pos += 4;
  if (!parse_name(p, &head.name, "an instruction name") || !expect(p, '=', "'=' after the instruction name"))
    return NULL;
  /* Its slot in the name table, fetched while the rest of the line is read:
   * a computation of 250,000 instructions has a 4 MB table, and the put
   * below missed the cache for each (the second half, with the benchmark
   * module's entry computation, ended 20-50 ms after the first). */
  uint64_t h = hlo_hash(head.name);
  hlo_index_prefetch(&p->names, h);
  if (!(head.shape = parse_shape_interned(p)))
    return NULL;
  sv op = {NULL, 0};
  const struct interned_op *iop;
  if (!parse_opcode(p, &op) || !(iop = intern_opcode(p, op)))
    return NULL;
  head.opcode = &iop->text, head.op = iop->op;
  size_t ops_from = p->ops.n, attrs_from = p->nattrs;
  if (!parse_operands(p, &head, &literal, c) || !parse_attrs(p))
    return NULL;
  if (p->nattrs - attrs_from > UINT16_MAX)
    return fail(p, VMEM_ERR_RANGE, (size_t)(head.name.ptr - p->s), "%%%.*s has more than %u attributes",
                (int)head.name.len, head.name.ptr, UINT16_MAX),
           NULL;
  head.nattrs = (uint16_t)(p->nattrs - attrs_from);
  vmem_hlo_instruction *in = instruction_block(p, &head, ops_from, attrs_from, literal);
  if (!in)
    return NULL;
  size_t called_from = p->called.n;
  if (!link_called(p, in))
    return NULL;
  bool oom = false;
  in->id = (uint32_t)(p->id_base + p->m->total_instrs + (p->instrs.n - p->comp_from));
  if (!vec_push(p, &p->instrs, in))
    return NULL;
  vmem_hlo_instruction *prev =
      hlo_index_put(&p->names, p->instrs.v + p->comp_from, p->instrs.n - 1 - p->comp_from, h, &oom);
  if (oom) {
    hp_nomem(p);
    return NULL;
  }
  if (!prev)
    p->recent[h & (RECENT - 1)] = in;
  if (prev) {
    size_t line;
    vmem_locate(p->s, p->len, (size_t)(prev->name.ptr - p->s), &line, NULL);
    fail(p, VMEM_ERR_SYNTAX, (size_t)(in->name.ptr - p->s),
         "duplicate instruction name %%%.*s (first defined on line %zu)", (int)in->name.len, in->name.ptr, line);
    return NULL;
  }
  return !p->hooks || p->hooks->defined(p, in, ops_from, called_from) ? in : NULL;
}

/* ---- computations ------------------------------------------------------ */

/* signature ::= '(' (name ':' shape (',' name ':' shape)*)? ')' '->' shape
 * Each name and shape goes on p->ops in turn (the names through the
 * scratch arena), then into the computation's two arrays: 24 bytes a
 * parameter, over 150,000 parameters in a large dump. */
static bool parse_signature(parser *p, vmem_hlo_computation *c) {
  size_t from = p->ops.n;
  arena_mark mark = arena_save(&p->scratch);
  bool ok = true;
  p->pos++; /* '(' */
  if (!accept(p, ')')) {
    do {
      sv *name = arena_alloc(&p->scratch, sizeof *name);
      vmem_shape *s = NULL;
      /* Parameter names print without '%', so they must start as an
       * identifier does even when written with one. */
      ok = (name || hp_nomem(p)) && parse_name(p, name, "a parameter name") &&
           (is_ident_start(name->ptr[0]) ||
            fail(p, VMEM_ERR_SYNTAX, (size_t)(name->ptr - p->s), "a parameter name must start with a letter or '_'")) &&
           (at(p, ':') || expected(p, "':' right after the parameter name"));
      if (ok) {
        p->pos++;
        ok = (s = parse_shape_interned(p)) && vec_push(p, &p->ops, name) && vec_push(p, &p->ops, s);
      }
    } while (ok && accept(p, ','));
    ok = ok && expect(p, ')', "',' or ')' in the parameter list");
  }
  if (ok) {
    c->nparams = (uint32_t)((p->ops.n - from) / 2);
    c->param_shapes = arena_alloc(p->a, (c->nparams ? c->nparams : 1) * sizeof *c->param_shapes);
    c->param_names = arena_alloc(p->a, (c->nparams ? c->nparams : 1) * sizeof *c->param_names);
    ok = (c->param_shapes && c->param_names) || hp_nomem(p);
    for (uint32_t i = 0; ok && i < c->nparams; i++) {
      c->param_names[i] = *(sv *)p->ops.v[from + 2 * i];
      c->param_shapes[i] = p->ops.v[from + 2 * i + 1];
    }
  }
  p->ops.n = from;
  arena_restore(&p->scratch, mark);
  if (!ok)
    return false;
  if (!skip_ws(p) || !(p->pos + 1 < p->len && p->s[p->pos] == '-' && p->s[p->pos + 1] == '>'))
    return p->err->code == VMEM_OK ? expected(p, "'->' and the result shape") : false;
  p->pos += 2;
  c->has_signature = true;
  return (c->result = parse_shape_interned(p)) != NULL;
}

/* A body's instructions start: a name index, their place in p->instrs. */
bool hp_body_begin(parser *p) {
  if (!p->names.slots && !hlo_index_init(&p->names, p->alloc, 8))
    return hp_nomem(p);
  /* recent is not cleared: an entry of an earlier computation has another
   * parent (clearing its 4 KB for each of 50,000 computations was 200 MB of
   * stores a parse). */
  p->comp_from = p->instrs.n;
  return true;
}

/* The end of a body, after its '}': the instructions move to the arena. */
static bool body_close(parser *p, vmem_hlo_computation *c, size_t open) {
  size_t from = p->comp_from;
  hlo_index_clear(&p->names); /* before the copy below: a large computation's index is megabytes */
  c->ninstrs = (uint32_t)(p->instrs.n - from);
  if (c->ninstrs == 0)
    return fail(p, VMEM_ERR_SYNTAX, open, "computation %%%.*s has no instructions", (int)c->name.len, c->name.ptr);
  void **instrs;
  if (!vec_take(p, &p->instrs, from, &instrs))
    return false;
  if (p->instrs.n == 0 && p->instrs.cap > 1 << 16) { /* a large computation's list: megabytes, not kept */
    vmem__free(p->alloc, p->instrs.v);
    p->instrs = (vec){0};
  }
  c->instrs = (vmem_hlo_instruction **)instrs;
  if (!c->root && c != p->cont) /* the rest of a cut computation: its root may be before the cut */
    c->root = c->instrs[c->ninstrs - 1];
  p->m->total_instrs += c->ninstrs;
  return true;
}

/* instruction* '}'   from where the body stands (its start, or a cut; its
 * '{' at `open`). The first half stops at its cut, c left open. */
bool hp_body_rest(parser *p, vmem_hlo_computation *c, size_t open) {
  for (;;) {
    if (!skip_ws(p))
      return false;
    if (p->pos == p->stop_at) {
      p->suspended = c;
      p->body_open = open;
      return true;
    }
    if (at(p, '}'))
      break;
    if (p->pos >= p->len)
      return fail(p, VMEM_ERR_SYNTAX, open, "unterminated '{': computation %%%.*s has no closing '}'", (int)c->name.len,
                  c->name.ptr);
    bool is_root;
    vmem_hlo_instruction *in = parse_instruction(p, c, &is_root);
    if (!in)
      return false;
    if (p->hooks)
      p->hooks->between(p);
    if (is_root) {
      if (c->root)
        return fail(p, VMEM_ERR_SYNTAX, (size_t)(in->name.ptr - p->s), "computation %%%.*s has two ROOT instructions",
                    (int)c->name.len, c->name.ptr);
      c->root = in;
    }
  }
  p->pos++; /* '}' */
  return body_close(p, c, open);
}

/* body ::= '{' instruction+ '}' */
static bool parse_body(parser *p, vmem_hlo_computation *c) {
  if (!expect(p, '{', "'{' to open the computation body"))
    return false;
  return hp_body_begin(p) && hp_body_rest(p, c, p->pos - 1);
}

/* computation ::= 'ENTRY'? name signature? body (',' 'execution_thread=' string)? */
static vmem_hlo_computation *parse_computation(parser *p) {
  vmem_hlo_computation *c = arena_calloc(p->a, 1, sizeof *c);
  if (!c) {
    hp_nomem(p);
    return NULL;
  }
  c->module = p->m;
  if (at_word(p, "ENTRY")) {
    c->is_entry = true;
    p->pos += 5;
    if (!skip_ws(p))
      return NULL;
  }
  c->offset = p->pos;
  if (!parse_name(p, &c->name, "a computation name") || !skip_ws(p))
    return NULL;
  if (at(p, '(') && !parse_signature(p, c))
    return NULL;
  if (!parse_body(p, c))
    return NULL;
  if (p->suspended)
    return c; /* the first half stopped inside it: it ends when the halves meet */
  return hp_computation_thread(p, c) && hp_computation_name(p, c) ? c : NULL;
}

/* (',' 'execution_thread=' string)?   after a computation's '}' */
bool hp_computation_thread(parser *p, vmem_hlo_computation *c) {
  size_t save = p->pos;
  if (accept(p, ',')) {
    size_t from = p->nattrs;
    if (!parse_attr(p))
      return false;
    sv an = attr_name(&p->attrs[from]), av = attr_value(&p->attrs[from]);
    p->nattrs = from;
    if (!sv_eq(an, "execution_thread", 16)) {
      p->pos = save;
      return fail(p, VMEM_ERR_SYNTAX, (size_t)(an.ptr - p->s), "only execution_thread= may follow a computation");
    }
    sv q = sv_unquote(av);
    if (q.len + 2 != av.len || memchr(q.ptr, '"', q.len))
      return fail(p, VMEM_ERR_SYNTAX, (size_t)(av.ptr - p->s), "execution_thread needs one quoted string");
    c->thread = q;
  }
  return p->err->code == VMEM_OK;
}

/* A finished computation's name goes into the module's table. */
bool hp_computation_name(parser *p, vmem_hlo_computation *c) {
  bool oom = false;
  if (hlo_map_put(p->m->by_name, c, &oom) || oom)
    return oom ? hp_nomem(p)
               : fail(p, VMEM_ERR_SYNTAX, c->offset, "duplicate computation name %%%.*s", (int)c->name.len,
                      c->name.ptr);
  return true;
}

/* It takes its place among the module's computations. */
bool hp_add_computation(parser *p, vmem_hlo_computation *c) {
  if (!vec_push(p, &p->comps, c))
    return false;
  c->index = (uint32_t)(p->comps.n - 1);
  if (c->is_entry) {
    if (p->m->entry)
      return fail(p, VMEM_ERR_SYNTAX, c->offset, "a second ENTRY computation");
    p->m->entry = c;
  }
  return true;
}

/* ---- module ------------------------------------------------------------ */

/* frames ::= (('FileNames' | 'FunctionNames' | 'FileLocations' | 'StackFrames')
 *             (int (string | '{' raw '}'))*)*          -- kept raw */
static bool parse_frames(parser *p) {
  static const char *const kw[] = {"FileNames", "FunctionNames", "FileLocations", "StackFrames"};
  size_t start = p->pos;
  for (;;) {
    bool any = false;
    for (size_t k = 0; k < 4 && !any; k++)
      if (at_word(p, kw[k])) {
        p->pos += strlen(kw[k]);
        any = true;
      }
    if (!any)
      break;
    while (skip_ws(p) && p->pos < p->len && ch_is_digit(p->s[p->pos])) {
      while (p->pos < p->len && ch_is_digit(p->s[p->pos]))
        p->pos++;
      sv v;
      if (!skip_ws(p))
        return false;
      if (at(p, '"')) {
        if (!scan_string(p))
          return false;
      } else if (at(p, '{')) {
        p->pos++;
        if (!scan_raw(p, &v, true) || !expect(p, '}', "'}'"))
          return false;
      } else {
        return expected(p, "a string or '{' in the stack-frame table");
      }
    }
    if (p->err->code != VMEM_OK)
      return false;
  }
  p->m->frames.ptr = p->s + start;
  p->m->frames.len = p->pos - start;
  while (p->m->frames.len && ch_is_space(p->m->frames.ptr[p->m->frames.len - 1]))
    p->m->frames.len--;
  return true;
}

/* header ::= 'HloModule' name attrs */
static bool parse_header(parser *p) {
  if (!at_word(p, "HloModule"))
    return true; /* a module without a header is allowed */
  p->pos += 9;
  p->m->has_header = true;
  if (!parse_name(p, &p->m->name, "the module name") || !parse_attrs(p))
    return false;
  if (!attrs_take(p, 0, &p->m->attrs, &p->m->nattrs))
    return false;
  for (uint32_t k = 0; k < p->m->nattrs; k++)
    if (sv_eq(attr_name(&p->m->attrs[k]), "is_scheduled", 12))
      p->m->is_scheduled = sv_eq(attr_value(&p->m->attrs[k]), "true", 4);
  return true;
}

/* computations ::= computation*
 * Up to the first one that would start at or after `stop`. */
bool hp_computations(parser *p, size_t stop) {
  for (;;) {
    if (!skip_ws(p))
      return false;
    if (p->pos >= p->len || p->pos >= stop)
      return true;
    vmem_hlo_computation *c = parse_computation(p);
    if (!c)
      return false;
    if (p->suspended)
      return true;
    if (!hp_add_computation(p, c))
      return false;
  }
}

/* module ::= header frames computation+ */
static bool parse_module(parser *p) {
  if (!skip_ws(p) || !parse_header(p) || !skip_ws(p) || !parse_frames(p))
    return false;
  if (!hh_computations(p))
    return false;
  if (p->comps.n == 0)
    return fail(p, VMEM_ERR_SYNTAX, p->pos, p->len == 0 ? "empty file: no HLO module" : "no computation in the module");
  p->m->ncomps = (uint32_t)p->comps.n;
  void **comps;
  if (!vec_take(p, &p->comps, 0, &comps))
    return false;
  p->m->comps = (vmem_hlo_computation **)comps;
  if (!p->m->entry)
    p->m->entry = p->m->comps[p->m->ncomps - 1];
  return true;
}

/* The call graph, reversed: each computation lists its callers; fusion
 * bodies are marked. Only the instructions that call are visited, twice:
 * to count, then to fill slices of one block (a computation nobody calls
 * has none). */
static bool link_callers(parser *p) {
  vmem_hlo_instruction *const *calling = (vmem_hlo_instruction *const *)p->calling.v;
  size_t total = 0, off = 0;
  for (size_t i = 0; i < p->calling.n; i++)
    for (uint32_t k = 0; k < calling[i]->ncalled; k++, total++) {
      calling[i]->called[k]->ncallers++;
      if (calling[i]->op == HLO_OP_FUSION)
        calling[i]->called[k]->is_fusion = true;
    }
  const vmem_hlo_instruction **block = total ? arena_alloc(p->a, total * sizeof *block) : NULL;
  if (total && !block)
    return hp_nomem(p);
  for (size_t i = 0; i < p->calling.n; i++)
    for (uint32_t k = 0; k < calling[i]->ncalled; k++) {
      vmem_hlo_computation *c = calling[i]->called[k];
      if (!c->callers) { /* its slice; ncallers counts again as it fills */
        c->callers = block + off;
        off += c->ncallers;
        c->ncallers = 0;
      }
      c->callers[c->ncallers++] = calling[i];
    }
  return true;
}

void hp_free(parser *p) {
  hlo_index_free(&p->names);
  hlo_map_free(&p->shapes);
  hlo_map_free(&p->opcodes);
  vmem__free(p->alloc, p->instrs.v);
  vmem__free(p->alloc, p->ops.v);
  vmem__free(p->alloc, p->called.v);
  vmem__free(p->alloc, p->comps.v);
  vmem__free(p->alloc, p->calling.v);
  vmem__free(p->alloc, p->open_callees);
  vmem__free(p->alloc, p->open_ops);
  vmem__free(p->alloc, p->attrs);
  arena_destroy(&p->scratch);
}

/* A parser over m's text, into m's arena; false when out of memory (then
 * parser_free still applies). */
bool hp_init(parser *p, vmem_hlo_module *m, vmem_error *err) {
  memset(p, 0, sizeof *p);
  p->s = m->text;
  p->len = m->len;
  p->m = m;
  p->a = &m->a;
  p->err = err;
  p->alloc = &m->a.alloc;
  p->stop_at = SIZE_MAX;
  arena_init(&p->scratch, p->alloc);
  return (m->by_name = arena_alloc(p->a, sizeof *m->by_name)) && hlo_map_init(m->by_name, p->alloc, 64) &&
         hlo_map_init(&p->shapes, p->alloc, 256) && hlo_map_init(&p->opcodes, p->alloc, 64);
}

/* Parses into a module whose arena and text are set. */
bool hlo_parse_into(vmem_hlo_module *m, vmem_error *err) {
  parser p;
  bool ok = hp_init(&p, m, err);
  const char *nul = ok ? hh_find_nul(&p) : NULL;
  if (!ok)
    hp_nomem(&p);
  else if (nul)
    ok = fail(&p, VMEM_ERR_SYNTAX, (size_t)(nul - m->text), "binary data (a NUL byte): not HLO text");
  else
    ok = parse_module(&p) && link_callers(&p);
  if (!ok && err->code == VMEM_OK)
    hp_nomem(&p);
  hp_free(&p);
  return ok;
}
