/*
 * stablehlo.c — StableHLO / MHLO MLIR text as jax.jit(f).lower(x).as_text()
 * prints it: enough to list every op and to read each tpu_custom_call
 * with its operand and result tensor types and its backend_config. The
 * program is before layout assignment and fusion, so nothing else is
 * sized here.
 *
 *   module    ::= 'module' ('@' name)? attrs? '{' func* '}'
 *   func      ::= 'func.func' visibility? '@' name '(' args ')' ... '{' op* '}'
 *   op        ::= (result (',' result)* '=')? opname rest-of-line
 *   opname    ::= dialect '.' id | '"' dialect '.' id '"'
 *   call      ::= 'stablehlo.custom_call' '@' target '(' operands ')' dict?
 *                 ':' '(' type, ... ')' '->' (type | '(' type, ... ')')
 *   type      ::= 'tensor<' (dim 'x')* elem (',' encoding)? '>' | other
 * Strings are MLIR strings (\22 is '"', \5C is '\'); `loc(...)` suffixes
 * and `//` comments are skipped.
 */
#include <jansson.h>
#include <string.h>

#include "../shape/shape.h"
#include "hlo.h"

struct vmem_stablehlo {
  arena a;
  const char *text;
  size_t len;
  vmem_str name;
  size_t nops, cap;
  vmem_stablehlo_op *ops;
};

static bool is_id(int c) { return ch_is_alpha(c) || ch_is_digit(c) || c == '_' || c == '$' || c == '.' || c == '-'; }

/* The end of the string that starts at p (on its '"'), or NULL. */
static const char *string_end(const char *p, const char *end) {
  for (p++; p < end; p++) {
    if (*p == '\\')
      p++;
    else if (*p == '"')
      return p;
    else if (*p == '\n')
      return NULL;
  }
  return NULL;
}

/* The bracket closing the one at p, strings skipped; NULL when unbalanced
 * before the end of the line (ops are printed one per line). */
static const char *closing(const char *p, const char *end) {
  char stack[64];
  size_t depth = 0;
  for (; p < end && *p != '\n'; p++) {
    char c = *p;
    if (c == '"') {
      if (!(p = string_end(p, end)))
        return NULL;
    } else if (c == '(' || c == '[' || c == '{' || c == '<') {
      if (depth == sizeof stack)
        return NULL;
      stack[depth++] = c == '(' ? ')' : c == '[' ? ']' : c == '{' ? '}' : '>';
    } else if (c == ')' || c == ']' || c == '}' || (c == '>' && depth && stack[depth - 1] == '>' && p[-1] != '-')) {
      if (!depth || stack[depth - 1] != c)
        return NULL;
      if (--depth == 0)
        return p;
    }
  }
  return NULL;
}

static const char *skip_blank(const char *p, const char *end) {
  while (p < end && (*p == ' ' || *p == '\t'))
    p++;
  return p;
}

/* tensor<AxBxelem> as an array shape; NULL for any other type. */
static vmem_shape *tensor_shape(arena *a, const char *p, const char *end) {
  if ((size_t)(end - p) < 8 || memcmp(p, "tensor<", 7) != 0)
    return NULL;
  const char *close = closing(p + 6, end);
  if (!close)
    return NULL;
  char buf[256];
  size_t n = 0;
  const char *q = p + 7;
  while (q < close && n < 200) { /* dims: "4x8x" */
    const char *d = q;
    while (q < close && (ch_is_digit(*q) || *q == '?'))
      q++;
    if (q == d || q >= close || *q != 'x') {
      q = d;
      break;
    }
    n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%.*s", n ? "," : "", (int)(q - d), *d == '?' ? "?" : d);
    q++;
  }
  const char *e = q;
  while (e < close && *e != ',' && *e != '>')
    e++;
  char elem[32];
  size_t el = (size_t)(e - q);
  if (el == 0 || el >= sizeof elem - 2)
    return NULL;
  /* MLIR iN / siN / uiN / i1 / index -> HLO sN / uN / pred / s64 */
  if (el == 2 && !memcmp(q, "i1", 2))
    snprintf(elem, sizeof elem, "pred");
  else if (el == 5 && !memcmp(q, "index", 5))
    snprintf(elem, sizeof elem, "s64");
  else if (q[0] == 'i' && ch_is_digit(q[1]))
    snprintf(elem, sizeof elem, "s%.*s", (int)el - 1, q + 1);
  else if (el > 2 && q[0] == 's' && q[1] == 'i')
    snprintf(elem, sizeof elem, "s%.*s", (int)el - 2, q + 2);
  else if (el > 2 && q[0] == 'u' && q[1] == 'i')
    snprintf(elem, sizeof elem, "u%.*s", (int)el - 2, q + 2);
  else {
    for (size_t i = 0; i < el; i++)
      elem[i] = (char)ch_lower(q[i]);
    elem[el] = '\0';
  }
  char text[300];
  int tl = snprintf(text, sizeof text, "%s[%.*s]", elem, (int)n, buf);
  size_t pos = 0;
  vmem_error err;
  vmem_shape *s = shape_parse_at(a, text, (size_t)tl, &pos, &err);
  return s && pos == (size_t)tl ? s : NULL;
}

/* types ::= '(' type (',' type)* ')' | type — into a list of shapes. */
static bool type_list(vmem_stablehlo *m, const char *p, const char *end, const vmem_shape ***out, size_t *n,
                      const char **next) {
  const char *close = NULL;
  bool paren = p < end && *p == '(';
  if (paren && !(close = closing(p, end)))
    return false;
  const char *q = paren ? p + 1 : p, *stop = paren ? close : end;
  size_t cap = 8;
  const vmem_shape **list = arena_alloc(&m->a, cap * sizeof *list);
  *n = 0;
  while (list && q < stop) {
    q = skip_blank(q, stop);
    if (q >= stop || *q == '\n')
      break;
    const char *e = q;
    while (e < stop && *e != ',' && *e != ' ' && *e != '\n') {
      const char *c = (*e == '<' || *e == '(') ? closing(e, stop) : NULL;
      e = c ? c + 1 : e + 1;
    }
    if (*n == cap) {
      const vmem_shape **grown = arena_alloc(&m->a, 2 * cap * sizeof *grown);
      if (!grown)
        return false;
      memcpy(grown, list, cap * sizeof *grown);
      list = grown, cap *= 2;
    }
    list[(*n)++] = tensor_shape(&m->a, q, e);
    q = skip_blank(e, stop);
    if (q < stop && *q == ',')
      q++;
    else if (!paren)
      break;
  }
  *out = list;
  *next = paren ? close + 1 : q;
  return list != NULL;
}

/* MLIR string unescape: \\ \" \n \t and \XX hex. */
static char *unescape(arena *a, const char *p, const char *e, size_t *len) {
  char *out = arena_alloc(a, (size_t)(e - p) + 1);
  size_t n = 0;
  static const char hex[] = "0123456789abcdef";
  for (; out && p < e; p++) {
    char c = *p;
    if (c == '\\' && p + 1 < e) {
      const char *h1 = strchr(hex, ch_lower(p[1])), *h2 = p + 2 < e ? strchr(hex, ch_lower(p[2])) : NULL;
      if (p[1] && p[2] && h1 && h2) {
        c = (char)((h1 - hex) * 16 + (h2 - hex));
        p += 2;
      } else {
        c = p[1] == 'n' ? '\n' : p[1] == 't' ? '\t' : p[1];
        p++;
      }
    }
    out[n++] = c;
  }
  if (out)
    out[n] = '\0';
  *len = n;
  return out;
}

/* The value of `key = "..."` in an attribute dict's text, unescaped. */
static vmem_str dict_string(vmem_stablehlo *m, const char *d, const char *end, const char *key) {
  size_t kl = strlen(key);
  for (const char *p = d; p + kl + 3 < end; p++) {
    if (*p == '"') {
      const char *e = string_end(p, end);
      if (!e)
        break;
      p = e;
      continue;
    }
    if (memcmp(p, key, kl) != 0 || is_id(p[-1]) || is_id(p[kl]))
      continue;
    const char *q = skip_blank(p + kl, end);
    if (q >= end || *q != '=')
      continue;
    q = skip_blank(q + 1, end);
    const char *e = q < end && *q == '"' ? string_end(q, end) : NULL;
    if (!e)
      break;
    size_t n;
    char *s = unescape(&m->a, q + 1, e, &n);
    return (vmem_str){s ? s : "", s ? n : 0};
  }
  return (vmem_str){"", 0};
}

/* call ::= ('@' target)? '(' operands ')' dict? ':' types '->' types */
static void read_call(vmem_stablehlo *m, vmem_stablehlo_op *op, const char *p, const char *end) {
  p = skip_blank(p, end);
  if (p < end && *p == '@') {
    const char *t = ++p;
    while (p < end && is_id(*p))
      p++;
    op->target = (vmem_str){t, (size_t)(p - t)};
  }
  p = skip_blank(p, end);
  const char *c = p < end && *p == '(' ? closing(p, end) : NULL;
  if (!c)
    return;
  for (const char *q = p + 1; q < c; q++) /* operands: count the '%' */
    op->noperands += *q == '%';
  p = skip_blank(c + 1, end);
  if (p < end && *p == '{') {
    const char *d = closing(p, end);
    if (!d)
      return;
    if (!op->target.len)
      op->target = dict_string(m, p, d, "call_target_name");
    op->backend_config = dict_string(m, p, d, "backend_config");
    op->kernel_name = dict_string(m, p, d, "kernel_name");
    p = skip_blank(d + 1, end);
  }
  const vmem_shape **ins = NULL, **outs = NULL;
  size_t nin = 0, nout = 0;
  if (p >= end || *p != ':' || !type_list(m, skip_blank(p + 1, end), end, &ins, &nin, &p))
    return;
  p = skip_blank(p, end);
  if (p + 1 >= end || p[0] != '-' || p[1] != '>' || !type_list(m, skip_blank(p + 2, end), end, &outs, &nout, &p))
    return;
  op->operand_types = ins;
  op->noperand_types = nin;
  op->result_types = outs;
  op->nresults = nout;
}

static bool add_op(vmem_stablehlo *m, const vmem_stablehlo_op *op) {
  if (m->nops == m->cap) {
    size_t cap = m->cap ? 2 * m->cap : 64;
    vmem_stablehlo_op *grown = arena_alloc(&m->a, cap * sizeof *grown);
    if (!grown)
      return false;
    if (m->nops)
      memcpy(grown, m->ops, m->nops * sizeof *grown);
    m->ops = grown, m->cap = cap;
  }
  m->ops[m->nops++] = *op;
  return true;
}

/* One line: a func header, or an op with its results. */
static bool read_line(vmem_stablehlo *m, const char *p, const char *end, vmem_str *func) {
  p = skip_blank(p, end);
  vmem_stablehlo_op op;
  memset(&op, 0, sizeof op);
  op.offset = (size_t)(p - m->text);
  op.func = *func;
  if ((size_t)(end - p) > 10 && !memcmp(p, "func.func ", 10)) {
    const char *at = memchr(p, '@', (size_t)(end - p));
    const char *e = at ? at + 1 : end;
    while (e < end && is_id(*e))
      e++;
    if (at)
      *func = (vmem_str){at + 1, (size_t)(e - at - 1)};
    return true;
  }
  if ((size_t)(end - p) > 8 && !memcmp(p, "module @", 8) && !m->name.len) {
    const char *e = p + 8;
    while (e < end && is_id(*e))
      e++;
    m->name = (vmem_str){p + 8, (size_t)(e - p - 8)};
    return true;
  }
  if (p < end && *p == '%') { /* results */
    op.result.ptr = p;
    const char *eq = p;
    while (eq < end && *eq != '=' && *eq != '"' && *eq != '(')
      eq++;
    if (eq >= end || *eq != '=')
      return true;
    const char *re = eq;
    while (re > p && re[-1] == ' ')
      re--;
    op.result.len = (size_t)(re - p);
    p = skip_blank(eq + 1, end);
  }
  bool quoted = p < end && *p == '"';
  const char *n = p + quoted, *e = n;
  while (e < end && is_id(*e))
    e++;
  bool call = !quoted && e - n == 4 && !memcmp(n, "call", 4); /* func.call's custom form */
  if (!call && (e == n || !memchr(n, '.', (size_t)(e - n)) || (quoted && (e >= end || *e != '"'))))
    return true;                              /* not an op: a brace, a block label, a return */
  op.opcode = (vmem_str){n, (size_t)(e - n)}; /* as written: "call" for func.call's custom form */
  if (call) {                                 /* the callee, shown as the target */
    const char *t = skip_blank(e, end), *te = t + 1;
    while (t < end && *t == '@' && te < end && is_id(*te))
      te++;
    if (t < end && *t == '@')
      op.target = (vmem_str){t + 1, (size_t)(te - t - 1)};
  }
  const char *rest = e + quoted;
  if (op.opcode.len >= 11 && !memcmp(op.opcode.ptr + op.opcode.len - 11, "custom_call", 11))
    read_call(m, &op, rest, end);
  return add_op(m, &op);
}

/* Whether the last line, text[..last), closes its strings: ops are printed
 * one per line, so a line that ends inside a string (a backend_config, a
 * kernel body) was cut. Excerpts of a module (ops without their func) are
 * fine: only a cut string is refused. */
static bool cut_text_ok(const char *text, const char *last) {
  const char *p = last;
  while (p > text && p[-1] != '\n')
    p--;
  for (; p < last; p++)
    if (*p == '"') {
      const char *e = string_end(p, last);
      if (!e)
        return false;
      p = e;
    }
  return true;
}

vmem_stablehlo *vmem_stablehlo_parse(const char *text, size_t len, const vmem_allocator *alloc, vmem_error *err) {
  vmem_error local;
  err_clear(&local);
  arena a;
  arena_init(&a, alloc);
  vmem_stablehlo *m = arena_calloc(&a, 1, sizeof *m);
  const char *nul = text && len ? memchr(text, '\0', len) : NULL;
  if (!m)
    err_set(&local, VMEM_ERR_NOMEM, 0, "out of memory");
  else if (!text || !len)
    err_set(&local, VMEM_ERR_SYNTAX, 0, "empty input");
  else if (nul)
    err_set(&local, VMEM_ERR_SYNTAX, (size_t)(nul - text), "binary data (a NUL byte): not StableHLO text");
  if (local.code != VMEM_OK) {
    arena_destroy(&a);
    if (err)
      *err = local;
    return NULL;
  }
  m->a = a;
  m->text = text;
  m->len = len;
  vmem_str func = {"", 0};
  const char *p = text, *end = text + len;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *le = nl ? nl : end;
    if (!read_line(m, p, le, &func)) {
      err_set(&local, VMEM_ERR_NOMEM, 0, "out of memory");
      vmem_stablehlo_free(m);
      if (err)
        *err = local;
      return NULL;
    }
    p = le + 1;
  }
  const char *last = end;
  while (last > text && (last[-1] == ' ' || last[-1] == '\n' || last[-1] == '\r' || last[-1] == '\t'))
    last--;
  if (!cut_text_ok(text, last)) {
    err_set(&local, VMEM_ERR_SYNTAX, (size_t)(last - text),
            "the text ends inside a string: the file is cut here "
            "(a kernel body cut inside its string cannot be decoded)");
    vmem_stablehlo_free(m);
    if (err)
      *err = local;
    return NULL;
  }
  if (err)
    *err = local;
  return m;
}

void vmem_stablehlo_free(vmem_stablehlo *m) {
  if (!m)
    return;
  arena a = m->a;
  arena_destroy(&a);
}

vmem_str vmem_stablehlo_name(const vmem_stablehlo *m) { return m ? m->name : (vmem_str){NULL, 0}; }
size_t vmem_stablehlo_op_count(const vmem_stablehlo *m) { return m ? m->nops : 0; }
const vmem_stablehlo_op *vmem_stablehlo_op_at(const vmem_stablehlo *m, size_t i) {
  return m && i < m->nops ? &m->ops[i] : NULL;
}

vmem_kernel *vmem_stablehlo_op_kernel(const vmem_stablehlo *m, size_t i, const vmem_allocator *alloc, vmem_error *err) {
  if (!m)
    return NULL;
  vmem_error local;
  err_clear(&local);
  const vmem_stablehlo_op *op = vmem_stablehlo_op_at(m, i);
  vmem_kernel *k = NULL;
  json_error_t je;
  json_t *root =
      op && op->backend_config.len ? json_loadb(op->backend_config.ptr, op->backend_config.len, 0, &je) : NULL;
  kernel_arrays io = {NULL, 0, NULL, 0, {"", 0}, false, m->text, NULL};
  if (op) {
    io = (kernel_arrays){op->operand_types, op->noperand_types,      op->result_types, op->nresults,
                         op->kernel_name,   op->kernel_name.len > 0, m->text,          NULL};
    if (!io.name.len && op->result.len) /* the result's name, as for HLO */
      io.name = (vmem_str){op->result.ptr + 1, op->result.len - 1};
  }
  if (!op)
    err_set(&local, VMEM_ERR_ARGUMENT, 0, "no op %zu", i);
  else if (op->backend_config.len && !root)
    err_set(&local, VMEM_ERR_SYNTAX, op->offset, "backend_config is not valid JSON: %s", je.text);
  else {
    const char *line = m->text + op->offset, *nl = memchr(line, '\n', m->len - op->offset);
    vmem_str src = {line, nl ? (size_t)(nl - line) : m->len - op->offset};
    k = hlo_config_kernel(root, &io, src, op->offset, alloc, &local);
  }
  json_decref(root);
  if (err)
    *err = local;
  return k;
}
