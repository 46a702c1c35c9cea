/*
 * bc_print.c — MLIR bytecode to MLIR text: the builtin dialect's attribute
 * and type encodings, the walk over the IR section, and a printer whose
 * output the Mosaic text reader (mlir_text.c) reads. One parser thus
 * serves both forms, and a user can read what the compiler will compile.
 *
 * Facts: ../shared/reference/mlir_bytecode.md §8 (IR), §10 (builtin codes).
 * Textual entries (#tpu.memory_space<vmem>, affine maps, !tpu types) are
 * printed as stored. Locations are read as indices and never decoded.
 *
 * Hostile input: every index is checked against its table, nesting is
 * capped, and the output has a budget, since attribute references form a
 * DAG that a crafted file can make print exponentially.
 */
#include <stdio.h>
#include <string.h>

#include "bytecode.h"

enum { MAX_DEPTH = 64 };

/* A value slot: what the IR calls value #i of the current scope. */
typedef struct slot {
  uint32_t type; /* type index */
  char kind;     /* 0 undefined, 'a' %argN, 'c' %cN, 'v' %N */
  uint32_t num;
} slot;

/* Per-scope name counters (a scope is an isolated-from-above op). */
typedef struct names {
  uint32_t args, consts, vals;
} names;

typedef struct printer {
  const bc_file *f;
  arena *a;
  strbuf *out;
  vmem_error *err;
  size_t budget;
  unsigned depth;
  int64_t builtin; /* dialect index of "builtin", or -1 */
  int64_t mosaic;  /* dialect index of "stable_mosaic", or -1 */
  slot *slots;
  size_t nslots, cap, scope;
  names n;
} printer;

static bool fail(printer *p, vmem_status code, size_t at, const char *what) {
  return err_first(p->err, code, at, "bytecode: %s at byte %zu", what, at);
}

/* True (with the error set) once the text has grown past its budget. */
static bool over_budget(printer *p, size_t at) {
  if (p->out->len <= p->budget)
    return false;
  fail(p, VMEM_ERR_RANGE, at, "the decoded text grows past its budget");
  return true;
}

static bool put_str(printer *p, vmem_str s) {
  sb_putn(p->out, s.ptr, s.len);
  return true;
}

static vmem_str string_at(const printer *p, uint64_t i) { return p->f->strings[i]; }

/* Prints s quoted, escaping as MLIR does (llvm::printEscapedString): a
 * backslash doubled, a quote and every unprintable byte as \XX. */
static void put_quoted(printer *p, vmem_str s) {
  sb_putn(p->out, "\"", 1);
  for (size_t i = 0; i < s.len; i++) {
    unsigned char ch = (unsigned char)s.ptr[i];
    if (ch == '\\')
      sb_puts(p->out, "\\\\");
    else if (ch == '"' || ch < 0x20 || ch >= 0x7f)
      sb_printf(p->out, "\\%02X", ch);
    else
      sb_putn(p->out, s.ptr + i, 1);
  }
  sb_putn(p->out, "\"", 1);
}

/* bare-id ::= [a-zA-Z_] [a-zA-Z0-9_$.-]* */
static bool is_bare(vmem_str s) {
  if (!s.len || !(ch_is_alpha(s.ptr[0]) || s.ptr[0] == '_'))
    return false;
  for (size_t i = 1; i < s.len; i++) {
    char ch = s.ptr[i];
    if (!(ch_is_alpha(ch) || ch_is_digit(ch) || ch == '_' || ch == '$' || ch == '.' || ch == '-'))
      return false;
  }
  return true;
}

static void put_name(printer *p, vmem_str s) {
  if (is_bare(s))
    sb_putn(p->out, s.ptr, s.len);
  else
    put_quoted(p, s);
}

/* ---- entries ----------------------------------------------------------- */

static const bc_entry *attr_entry(const printer *p, uint64_t i) { return &p->f->entries[i]; }
static const bc_entry *type_entry(const printer *p, uint64_t i) { return &p->f->entries[p->f->nattrs + i]; }

static bc_cursor entry_cursor(const printer *p, const bc_entry *e) {
  return (bc_cursor){p->f->buf, e->start, e->start + e->len, p->err};
}

static bool ref(printer *p, bc_cursor *c, uint64_t limit, uint64_t *out, const char *what) {
  size_t at = c->pos;
  return bc_varint(c, out) && (*out < limit || fail(p, VMEM_ERR_SYNTAX, at, what));
}
static bool attr_ref(printer *p, bc_cursor *c, uint64_t *out) {
  return ref(p, c, p->f->nattrs, out, "attribute index out of range");
}
static bool type_ref(printer *p, bc_cursor *c, uint64_t *out) {
  return ref(p, c, p->f->ntypes, out, "type index out of range");
}

/* A builtin entry's code, with the cursor left on its fields; false with
 * *builtin unset for textual entries and other dialects' encodings. */
static bool builtin_code(printer *p, const bc_entry *e, bc_cursor *c, uint64_t *code, bool *builtin) {
  *builtin = e->custom && (int64_t)e->dialect == p->builtin;
  *c = entry_cursor(p, e);
  return !*builtin || bc_varint(c, code);
}

/* The string of a StringAttr reference (names, symbols, file names). */
static bool string_attr(printer *p, uint64_t attr, vmem_str *out) {
  const bc_entry *e = attr_entry(p, attr);
  bc_cursor c;
  uint64_t code, s;
  bool builtin;
  if (!builtin_code(p, e, &c, &code, &builtin))
    return false;
  if (!builtin || (code != 2 && code != 3))
    return fail(p, VMEM_ERR_SYNTAX, e->start, "a name that is not a string attribute");
  if (!ref(p, &c, p->f->nstrings, &s, "string index out of range"))
    return false;
  *out = string_at(p, s);
  return true;
}

/* Element type facts for integer attributes and dense data. */
typedef struct elem_info {
  enum { E_INT, E_UINT, E_INDEX, E_FLOAT, E_OTHER } kind;
  unsigned bits;
} elem_info;

/* The narrow floats newer MLIR codes as builtin types 21 onwards (in the
 * order of BuiltinDialectBytecode.td's type list; older bytecode stores
 * them as text), with their widths in bits. */
enum { SMALL_FLOAT_FIRST = 21 };
static const struct {
  const char *name;
  unsigned bits;
} small_floats[] = {
    {"tf32", 19},         {"f8E5M2", 8}, {"f8E4M3", 8},   {"f8E4M3FN", 8}, {"f8E5M2FNUZ", 8}, {"f8E4M3FNUZ", 8},
    {"f8E4M3B11FNUZ", 8}, {"f8E3M4", 8}, {"f4E2M1FN", 4}, {"f6E2M3FN", 6}, {"f6E3M2FN", 6},   {"f8E8M0FNU", 8},
};

static bool small_float(uint64_t code) {
  return code >= SMALL_FLOAT_FIRST && code - SMALL_FLOAT_FIRST < sizeof small_floats / sizeof *small_floats;
}

static bool elem_of(printer *p, uint64_t type, elem_info *out) {
  const bc_entry *e = type_entry(p, type);
  bc_cursor c;
  uint64_t code, w;
  bool builtin;
  out->kind = E_OTHER;
  out->bits = 0;
  if (!builtin_code(p, e, &c, &code, &builtin))
    return false;
  if (!builtin) { /* f8E4M3FN and friends are stored as text */
    vmem_str t = bc_entry_text(p->f, e);
    if (t.len >= 2 && t.ptr[0] == 'f' && (t.ptr[1] == '8' || t.ptr[1] == '4' || t.ptr[1] == '6')) {
      out->kind = E_FLOAT;
      out->bits = (unsigned)(t.ptr[1] - '0');
    }
    return true;
  }
  static const unsigned float_bits[] = {0, 0, 0, 16, 16, 32, 64, 80, 128};
  if (code == 0) {
    if (!bc_varint(&c, &w))
      return false;
    if ((w >> 2) == 0 || (w >> 2) > 65536)
      return fail(p, VMEM_ERR_SYNTAX, e->start, "integer type width out of range");
    out->kind = (w & 3) == 2 ? E_UINT : E_INT;
    out->bits = (unsigned)(w >> 2);
  } else if (code == 1) {
    out->kind = E_INDEX;
    out->bits = 64;
  } else if (code >= 3 && code <= 8) {
    out->kind = E_FLOAT;
    out->bits = float_bits[code];
  } else if (small_float(code)) {
    out->kind = E_FLOAT;
    out->bits = small_floats[code - SMALL_FLOAT_FIRST].bits;
  }
  return true;
}

static bool print_attr(printer *p, uint64_t attr);
static bool print_type(printer *p, uint64_t type);

/* list<attr> or list<type>, comma-separated. */
static bool print_list(printer *p, bc_cursor *c, bool types, const char *sep) {
  uint64_t n, x;
  if (!bc_count(c, 1, &n))
    return false;
  for (uint64_t i = 0; i < n; i++) {
    if (i)
      sb_puts(p->out, sep);
    if (types ? !(type_ref(p, c, &x) && print_type(p, x)) : !(attr_ref(p, c, &x) && print_attr(p, x)))
      return false;
  }
  return true;
}

/* shape ::= list<signed varint>, printed "4x8x" (dynamic '?') */
static bool print_shape(printer *p, bc_cursor *c) {
  uint64_t n;
  if (!bc_count(c, 1, &n))
    return false;
  for (uint64_t i = 0; i < n; i++) {
    int64_t d;
    if (!bc_signed_varint(c, &d))
      return false;
    if (d < 0)
      sb_puts(p->out, "?x");
    else
      sb_printf(p->out, "%lldx", (long long)d);
  }
  return true;
}

/* True for an identity affine map: "affine_map<(d0, d1) -> (d0, d1)>". */
static bool identity_layout(printer *p, uint64_t attr) {
  vmem_str t = bc_entry_text(p->f, attr_entry(p, attr));
  const char *arrow = t.len > 12 ? strstr(t.ptr, ") -> (") : NULL;
  if (!arrow || memcmp(t.ptr, "affine_map<(", 12) != 0)
    return false;
  size_t dims = (size_t)(arrow - (t.ptr + 12));
  const char *res = arrow + 6;
  return (size_t)(t.ptr + t.len - res) == dims + 2 && !memcmp(res, t.ptr + 12, dims) && !memcmp(res + dims, ")>", 2);
}

/* memref ::= space? shape elem layout   (code 10, or 11 with the space) */
static bool print_memref(printer *p, bc_cursor *c, bool with_space) {
  uint64_t space = 0, elem, layout;
  if (with_space && !attr_ref(p, c, &space))
    return false;
  sb_puts(p->out, "memref<");
  if (!print_shape(p, c) || !type_ref(p, c, &elem) || !print_type(p, elem) || !attr_ref(p, c, &layout))
    return false;
  if (!identity_layout(p, layout)) {
    sb_puts(p->out, ", ");
    if (!print_attr(p, layout))
      return false;
  }
  if (with_space) {
    sb_puts(p->out, ", ");
    if (!print_attr(p, space))
      return false;
  }
  sb_puts(p->out, ">");
  return true;
}

/* The builtin types by code (reference §10.2). */
static bool print_builtin_type(printer *p, const bc_entry *e, bc_cursor *c, uint64_t code) {
  static const char *const simple[] = {NULL, "index", NULL, "bf16", "f16", "f32", "f64", "f80", "f128"};
  uint64_t w, x;
  switch (code) {
  case 0:
    if (!bc_varint(c, &w))
      return false;
    sb_printf(p->out, "%si%llu", (w & 3) == 1 ? "s" : (w & 3) == 2 ? "u" : "", (unsigned long long)(w >> 2));
    return true;
  case 1:
  case 3:
  case 4:
  case 5:
  case 6:
  case 7:
  case 8:
    sb_puts(p->out, simple[code]);
    return true;
  case 2:
    sb_puts(p->out, "(");
    if (!print_list(p, c, true, ", "))
      return false;
    sb_puts(p->out, ") -> (");
    if (!print_list(p, c, true, ", "))
      return false;
    sb_puts(p->out, ")");
    return true;
  case 9:
    sb_puts(p->out, "complex<");
    return type_ref(p, c, &x) && print_type(p, x) && (sb_puts(p->out, ">"), true);
  case 10:
  case 11:
    return print_memref(p, c, code == 11);
  case 12:
    sb_puts(p->out, "none");
    return true;
  case 13:
  case 14:
  case 19: {
    uint64_t enc = 0;
    if (code == 14 && !attr_ref(p, c, &enc))
      return false;
    sb_puts(p->out, code == 19 ? "vector<" : "tensor<");
    if (!print_shape(p, c) || !type_ref(p, c, &x) || !print_type(p, x))
      return false;
    if (code == 14) {
      sb_puts(p->out, ", ");
      if (!print_attr(p, enc))
        return false;
    }
    sb_puts(p->out, ">");
    return true;
  }
  case 15:
    sb_puts(p->out, "tuple<");
    return print_list(p, c, true, ", ") && (sb_puts(p->out, ">"), true);
  case 16:
  case 17:
  case 18: {
    uint64_t space = 0;
    if (code == 17 && !attr_ref(p, c, &space))
      return false;
    sb_puts(p->out, code == 18 ? "tensor<*x" : "memref<*x");
    if (!type_ref(p, c, &x) || !print_type(p, x))
      return false;
    if (code == 17 && !(sb_puts(p->out, ", "), print_attr(p, space)))
      return false;
    sb_puts(p->out, ">");
    return true;
  }
  default:
    if (small_float(code)) {
      sb_puts(p->out, small_floats[code - SMALL_FLOAT_FIRST].name);
      return true;
    }
    if (p->err->code == VMEM_OK)
      err_set(p->err, VMEM_ERR_UNSUPPORTED, e->start, "bytecode: undecodable builtin type code %llu at byte %zu",
              (unsigned long long)code, e->start);
    return false;
  }
}

static bool enter(printer *p, size_t at) {
  return ++p->depth <= MAX_DEPTH || fail(p, VMEM_ERR_RANGE, at, "attributes or regions nested too deeply");
}

static bool print_entry_fallback(printer *p, const bc_entry *e, bool type) {
  if (!e->custom)
    return put_str(p, bc_entry_text(p->f, e));
  /* Another dialect's own encoding: no decoder here, say so in the text. */
  vmem_str d = string_at(p, p->f->dialects[e->dialect]);
  sb_printf(p->out, "%c%.*s<\"undecoded\">", type ? '!' : '#', (int)(d.len > 64 ? 64 : d.len), d.ptr);
  return true;
}

static bool print_builtin_attr(printer *p, const bc_entry *e, bc_cursor *c, uint64_t code);

/* An attribute or type entry: a builtin one by its code, else as stored. */
static bool print_entry(printer *p, const bc_entry *e, bool type) {
  bc_cursor c;
  uint64_t code;
  bool builtin, ok;
  if (!enter(p, e->start) || over_budget(p, e->start))
    return false;
  if (!builtin_code(p, e, &c, &code, &builtin))
    return false;
  ok = !builtin ? print_entry_fallback(p, e, type)
       : type   ? print_builtin_type(p, e, &c, code)
                : print_builtin_attr(p, e, &c, code);
  p->depth--;
  return ok;
}

static bool print_type(printer *p, uint64_t type) { return print_entry(p, type_entry(p, type), true); }
static bool print_attr(printer *p, uint64_t attr) { return print_entry(p, attr_entry(p, attr), false); }

/* ---- integer and float values ----------------------------------------- */

/* APInt ::= byte (width <= 8) | signed varint (<= 64) | n:varint word^n */
static bool read_apint(printer *p, bc_cursor *c, unsigned bits, uint64_t *out, bool *wide) {
  *wide = false;
  if (bits <= 8) {
    if (c->pos >= c->end)
      return fail(p, VMEM_ERR_SYNTAX, c->pos, "unexpected end of data");
    *out = c->base[c->pos++];
    return true;
  }
  int64_t v;
  if (bits <= 64) {
    if (!bc_signed_varint(c, &v))
      return false;
    *out = (uint64_t)v;
    return true;
  }
  uint64_t n;
  if (!bc_count(c, 1, &n))
    return false;
  *wide = true;
  for (uint64_t i = 0; i < n; i++)
    if (!bc_signed_varint(c, &v))
      return false;
  return true;
}

static void put_int(printer *p, uint64_t v, const elem_info *t) {
  if (t->kind == E_INT && t->bits == 1) {
    sb_puts(p->out, v & 1 ? "true" : "false");
    return;
  }
  if (t->bits < 64) {
    v &= ((uint64_t)1 << t->bits) - 1;
    if (t->kind != E_UINT && (v >> (t->bits - 1)) & 1)
      v |= ~(uint64_t)0 << t->bits; /* sign-extend signless and signed */
  }
  if (t->kind == E_UINT)
    sb_printf(p->out, "%llu", (unsigned long long)v);
  else
    sb_printf(p->out, "%lld", (long long)v);
}

static float half_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 31, man = h & 1023u, bits;
  if (exp == 31)
    bits = sign | 0x7f800000u | man << 13;
  else if (exp)
    bits = sign | (exp + 112) << 23 | man << 13;
  else if (man) { /* subnormal: normalise */
    exp = 113;
    while (!(man & 1024u))
      man <<= 1, exp--;
    bits = sign | exp << 23 | (man & 1023u) << 13;
  } else
    bits = sign;
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

/* A float's bits as MLIR prints it, or hex for formats without a C type. */
static void put_float(printer *p, uint64_t v, unsigned bits, bool bf16) {
  double d;
  if (bits == 64)
    memcpy(&d, &v, sizeof d);
  else if (bits == 32 || bf16) {
    uint32_t w = bf16 ? (uint32_t)v << 16 : (uint32_t)v;
    float f;
    memcpy(&f, &w, sizeof f);
    d = f;
  } else if (bits == 16)
    d = half_to_float((uint16_t)v);
  else {
    sb_printf(p->out, "0x%llX", (unsigned long long)v);
    return;
  }
  sb_printf(p->out, "%e", d);
}

static bool is_bf16(printer *p, uint64_t type) {
  const bc_entry *e = type_entry(p, type);
  bc_cursor c = entry_cursor(p, e);
  uint64_t code;
  return e->custom && (int64_t)e->dialect == p->builtin && bc_varint(&c, &code) && code == 3;
}

/* One element of raw dense storage, little-endian. */
static void put_element(printer *p, const uint8_t *b, const elem_info *t, bool bf16) {
  size_t n = t->bits == 1 ? 1 : (t->bits + 7) / 8;
  uint64_t v = 0;
  for (size_t i = 0; i < n && i < 8; i++)
    v |= (uint64_t)b[i] << (8 * i);
  if (t->kind == E_FLOAT)
    put_float(p, v, t->bits, bf16);
  else
    put_int(p, v, t);
}

/* blob ::= size:varint byte[size] */
static bool read_blob(printer *p, bc_cursor *c, const uint8_t **data, uint64_t *len) {
  size_t at = c->pos;
  if (!bc_varint(c, len))
    return false;
  if (*len > c->end - c->pos)
    return fail(p, VMEM_ERR_SYNTAX, at, "blob runs past its entry");
  *data = c->base + c->pos;
  c->pos += (size_t)*len;
  return true;
}

/* array<T: e, ...> (code 17): type, count, blob of count elements */
static bool print_dense_array(printer *p, const bc_entry *e, bc_cursor *c) {
  uint64_t type, n, len;
  const uint8_t *data;
  elem_info t;
  if (!type_ref(p, c, &type) || !elem_of(p, type, &t) || !bc_varint(c, &n) || !read_blob(p, c, &data, &len))
    return false;
  size_t w = t.bits == 1 ? 1 : (t.bits + 7) / 8;
  if (t.kind == E_OTHER || t.bits > 64 || w == 0 || n != len / w || len % w)
    return fail(p, VMEM_ERR_SYNTAX, e->start, "dense array whose data does not match its count and type");
  sb_puts(p->out, "array<");
  if (!print_type(p, type))
    return false;
  bool bf16 = is_bf16(p, type);
  for (uint64_t i = 0; i < n; i++) {
    sb_puts(p->out, i ? ", " : ": ");
    put_element(p, data + i * w, &t, bf16);
    if (over_budget(p, e->start))
      return false;
  }
  sb_puts(p->out, ">");
  return true;
}

/* The element type of a shaped (vector or tensor) type. */
static bool shaped_elem(printer *p, uint64_t type, uint64_t *elem) {
  const bc_entry *e = type_entry(p, type);
  bc_cursor c;
  uint64_t code, n, enc;
  int64_t d;
  bool builtin;
  if (!builtin_code(p, e, &c, &code, &builtin))
    return false;
  if (!builtin || !(code == 13 || code == 14 || code == 19))
    return fail(p, VMEM_ERR_SYNTAX, e->start, "dense elements of a type that is not a vector or tensor");
  if (code == 14 && !attr_ref(p, &c, &enc))
    return false;
  if (!bc_count(&c, 1, &n))
    return false;
  for (uint64_t i = 0; i < n; i++)
    if (!bc_signed_varint(&c, &d))
      return false;
  return type_ref(p, &c, elem);
}

/* dense<...> : T (code 18): a splat prints its value, else the raw hex
 * form MLIR also accepts. Packed i1 splats are one 0x00/0xFF byte. */
static bool print_dense_elements(printer *p, bc_cursor *c) {
  uint64_t type, elem, len;
  const uint8_t *data;
  elem_info t;
  if (!type_ref(p, c, &type) || !read_blob(p, c, &data, &len) || !shaped_elem(p, type, &elem) || !elem_of(p, elem, &t))
    return false;
  size_t w = t.bits == 1 ? 1 : (t.bits + 7) / 8;
  sb_puts(p->out, "dense<");
  if (t.kind != E_OTHER && t.bits <= 64 && len == w && (t.bits != 1 || data[0] == 0 || data[0] == 0xff))
    put_element(p, data, &t, is_bf16(p, elem));
  else {
    sb_puts(p->out, "\"0x");
    for (uint64_t i = 0; i < len; i++)
      sb_printf(p->out, "%02X", data[i]);
    sb_puts(p->out, "\"");
  }
  sb_puts(p->out, "> : ");
  return print_type(p, type);
}

/* IntegerAttr (8) and FloatAttr (9): type, then the value's bits. */
static bool print_number(printer *p, const bc_entry *e, bc_cursor *c, bool is_float) {
  uint64_t type, v = 0; /* set by read_apint when it succeeds */
  elem_info t;
  bool wide = false;
  if (!type_ref(p, c, &type) || !elem_of(p, type, &t))
    return false;
  if (t.bits == 0 || (is_float ? t.kind != E_FLOAT : t.kind == E_FLOAT || t.kind == E_OTHER))
    return fail(p, VMEM_ERR_SYNTAX, e->start,
                is_float ? "float attribute of a non-float type" : "integer attribute of a non-integer type");
  if (!read_apint(p, c, t.bits, &v, &wide))
    return false;
  if (wide)
    sb_puts(p->out, "0x0 /* wider than 64 bits, not decoded */");
  else if (is_float)
    put_float(p, v, t.bits, is_bf16(p, type));
  else
    put_int(p, v, &t);
  if (t.kind == E_INT && t.bits == 1)
    return true; /* true / false carry their type */
  sb_puts(p->out, " : ");
  return print_type(p, type);
}

/* dict ::= list<(name: StringAttr ref, value: attr ref)>; keys in `skip`
 * are left out (the custom forms print them elsewhere). */
static bool print_dict_body(printer *p, bc_cursor *c, const char *const *skip, bool *any) {
  uint64_t n, k, v;
  if (!bc_count(c, 2, &n))
    return false;
  *any = false;
  for (uint64_t i = 0; i < n; i++) {
    vmem_str key;
    if (!attr_ref(p, c, &k) || !attr_ref(p, c, &v) || !string_attr(p, k, &key))
      return false;
    bool skipped = false;
    for (const char *const *s = skip; s && *s && !skipped; s++)
      skipped = strlen(*s) == key.len && !memcmp(*s, key.ptr, key.len);
    if (skipped)
      continue;
    sb_puts(p->out, *any ? ", " : "");
    *any = true;
    put_name(p, key);
    const bc_entry *ve = attr_entry(p, v);
    bc_cursor vc;
    uint64_t code;
    bool builtin;
    if (!builtin_code(p, ve, &vc, &code, &builtin))
      return false;
    if (builtin && code == 7) /* UnitAttr: the key alone */
      continue;
    sb_puts(p->out, " = ");
    if (!print_attr(p, v))
      return false;
  }
  return true;
}

static bool print_symbol(printer *p, bc_cursor *c) {
  uint64_t s;
  vmem_str name;
  if (!attr_ref(p, c, &s) || !string_attr(p, s, &name))
    return false;
  sb_puts(p->out, "@");
  put_name(p, name);
  return true;
}

/* The builtin attributes by code (reference §10.1). */
static bool print_builtin_attr(printer *p, const bc_entry *e, bc_cursor *c, uint64_t code) {
  uint64_t x, n;
  bool any;
  switch (code) {
  case 0:
    sb_puts(p->out, "[");
    return print_list(p, c, false, ", ") && (sb_puts(p->out, "]"), true);
  case 1:
    sb_puts(p->out, "{");
    return print_dict_body(p, c, NULL, &any) && (sb_puts(p->out, "}"), true);
  case 2:
  case 3:
    if (!ref(p, c, p->f->nstrings, &x, "string index out of range"))
      return false;
    put_quoted(p, string_at(p, x));
    if (code == 3 && !(sb_puts(p->out, " : "), type_ref(p, c, &x) && print_type(p, x)))
      return false;
    return true;
  case 4:
    return print_symbol(p, c);
  case 5:
    if (!print_symbol(p, c) || !bc_count(c, 1, &n))
      return false;
    for (uint64_t i = 0; i < n; i++) {
      const bc_entry *nested;
      bc_cursor nc;
      uint64_t ncode;
      bool builtin;
      sb_puts(p->out, "::");
      if (!attr_ref(p, c, &x))
        return false;
      nested = attr_entry(p, x);
      if (!builtin_code(p, nested, &nc, &ncode, &builtin))
        return false;
      if (!builtin || ncode != 4)
        return fail(p, VMEM_ERR_SYNTAX, nested->start, "a nested symbol reference that is not flat");
      if (!print_symbol(p, &nc))
        return false;
    }
    return true;
  case 6:
    return type_ref(p, c, &x) && print_type(p, x);
  case 7:
    sb_puts(p->out, "unit");
    return true;
  case 8:
  case 9:
    return print_number(p, e, c, code == 9);
  case 10:
  case 11:
  case 12:
  case 13:
  case 14:
  case 15:
  case 22:
    sb_puts(p->out, "loc(unknown)"); /* locations are never decoded */
    return true;
  case 16:
    sb_puts(p->out, "dense_resource<__elided__> : ");
    return type_ref(p, c, &x) && print_type(p, x);
  case 17:
    return print_dense_array(p, e, c);
  case 18:
    return print_dense_elements(p, c);
  case 21:
    sb_puts(p->out, "distinct[0]<");
    return attr_ref(p, c, &x) && print_attr(p, x) && (sb_puts(p->out, ">"), true);
  default: /* 19 dense strings, 20 sparse: never in a kernel signature */
    return fail(p, VMEM_ERR_UNSUPPORTED, e->start, "undecodable builtin attribute code");
  }
}

/* The value of `key` in a DictionaryAttr, or false with *found unset. */
static bool dict_find(printer *p, uint64_t dict, const char *key, uint64_t *out, bool *found) {
  const bc_entry *e = attr_entry(p, dict);
  bc_cursor c;
  uint64_t code, n, k, v;
  bool builtin;
  *found = false;
  if (!builtin_code(p, e, &c, &code, &builtin))
    return false;
  if (!builtin || code != 1)
    return fail(p, VMEM_ERR_SYNTAX, e->start, "an op's attributes that are not a dictionary");
  if (!bc_count(&c, 2, &n))
    return false;
  for (uint64_t i = 0; i < n; i++) {
    vmem_str name;
    if (!attr_ref(p, &c, &k) || !attr_ref(p, &c, &v) || !string_attr(p, k, &name))
      return false;
    if (strlen(key) == name.len && !memcmp(key, name.ptr, name.len)) {
      *out = v;
      *found = true;
      return true;
    }
  }
  return true;
}

/* ---- values ------------------------------------------------------------ */

/* A region's reserved value range within the current scope. */
typedef struct region_vals {
  size_t next, end;
} region_vals;

static bool reserve(printer *p, size_t n, size_t at) {
  if (n > p->f->len || p->nslots + n > p->f->len) /* each value costs at least a byte */
    return fail(p, VMEM_ERR_SYNTAX, at, "more values than the data can define");
  if (p->nslots + n > p->cap) {
    size_t cap = p->cap ? p->cap : 64;
    while (cap < p->nslots + n)
      cap *= 2;
    slot *grown = arena_alloc(p->a, cap * sizeof *grown);
    if (!grown)
      return fail(p, VMEM_ERR_NOMEM, at, "out of memory");
    if (p->nslots)
      memcpy(grown, p->slots, p->nslots * sizeof *grown);
    p->slots = grown;
    p->cap = cap;
  }
  if (n) /* slots may still be NULL when a region declares no values */
    memset(p->slots + p->nslots, 0, n * sizeof *p->slots);
  p->nslots += n;
  return true;
}

static bool define(printer *p, region_vals *rv, uint32_t type, char kind, size_t at) {
  if (rv->next >= rv->end)
    return fail(p, VMEM_ERR_SYNTAX, at, "more values defined than the region declares");
  uint32_t *counter = kind == 'a' ? &p->n.args : kind == 'c' ? &p->n.consts : &p->n.vals;
  p->slots[rv->next++] = (slot){type, kind, (*counter)++};
  return true;
}

static void put_value(printer *p, const slot *s, uint64_t idx) {
  if (!s || !s->kind)
    sb_printf(p->out, "%%fwd%llu", (unsigned long long)idx); /* a forward reference */
  else
    sb_printf(p->out, s->kind == 'v' ? "%%%u" : "%%%c%s%u", s->kind == 'v' ? s->num : (unsigned)s->kind,
              s->kind == 'a' ? "rg" : "", s->num);
}

static const slot *value_at(printer *p, uint64_t idx) {
  return idx < p->nslots - p->scope ? &p->slots[p->scope + idx] : NULL;
}

/* ---- ops --------------------------------------------------------------- */

/* What an op's fields say, with positions to re-read its lists from. */
typedef struct op_head {
  size_t at;
  vmem_str dialect, name; /* name without the serde's prefix */
  bool has_attrs;
  uint64_t attrs, nresults, noperands, nsuccs, nregions;
  size_t results_at, operands_at, succs_at;
  bool isolated, has_props;
  uint32_t first_result; /* slot of result 0, when numbered */
  bool numbered;
} op_head;

static bool op_is(const op_head *h, const char *dialect, const char *name) {
  return h->dialect.len == strlen(dialect) && !memcmp(h->dialect.ptr, dialect, h->dialect.len) &&
         h->name.len == strlen(name) && !memcmp(h->name.ptr, name, h->name.len);
}

/* Splits "stable_mosaic" + "func.func" into "func" + "func". */
static void op_name(printer *p, uint64_t idx, op_head *h) {
  const bc_op_name *o = &p->f->ops[idx];
  h->dialect = string_at(p, p->f->dialects[o->dialect]);
  h->name = string_at(p, o->name);
  const char *dot = (int64_t)o->dialect == p->mosaic ? memchr(h->name.ptr, '.', h->name.len) : NULL;
  if (dot) {
    h->dialect = (vmem_str){h->name.ptr, (size_t)(dot - h->name.ptr)};
    h->name = (vmem_str){dot + 1, h->name.len - (size_t)(dot - h->name.ptr) - 1};
  }
}

static bool skip_refs(printer *p, bc_cursor *c, uint64_t n, uint64_t limit, const char *what) {
  uint64_t x;
  for (uint64_t i = 0; i < n; i++)
    if (!ref(p, c, limit, &x, what))
      return false;
  return true;
}

/* list ::= n:varint index^n — its count and where its indices start (they
 * are read again when printed), each index checked against `limit`. */
static bool index_list(printer *p, bc_cursor *c, uint64_t limit, const char *what, uint64_t *n, size_t *at) {
  if (!bc_count(c, 1, n))
    return false;
  *at = c->pos;
  return skip_refs(p, c, *n, limit, what);
}

/* useListOrders(range) ::= [n] ([value] (count<<1|pairs) idx^count)^n */
static bool skip_use_lists(printer *p, bc_cursor *c, uint64_t range) {
  uint64_t n = 1, x, k;
  bool pairs;
  if (range > 1 && !bc_count(c, 1, &n))
    return false;
  for (uint64_t i = 0; i < n; i++) {
    if (range > 1 && !bc_varint(c, &x))
      return false;
    if (!bc_varint_flag(c, &k, &pairs) || k > c->end - c->pos)
      return fail(p, VMEM_ERR_SYNTAX, c->pos, "use-list order runs past the end");
    for (uint64_t j = 0; j < k; j++)
      if (!bc_varint(c, &x))
        return false;
  }
  return true;
}

/* op ::= name mask loc [attrs] [props] [results] [operands] [successors]
 *        [use-lists] [regions]          (fields in this order, §8) */
static bool read_head(printer *p, bc_cursor *c, region_vals *rv, op_head *h) {
  uint64_t name, loc, x;
  uint8_t mask;
  memset(h, 0, sizeof *h);
  h->at = c->pos;
  if (!ref(p, c, p->f->nops, &name, "op name index out of range"))
    return false;
  op_name(p, name, h);
  if (c->pos >= c->end)
    return fail(p, VMEM_ERR_SYNTAX, c->pos, "unexpected end of data");
  mask = c->base[c->pos++];
  if (mask & 0x80 || (p->f->version < 3 && mask & 0x20) || (p->f->version < 5 && mask & 0x40))
    return fail(p, VMEM_ERR_SYNTAX, c->pos - 1, "op encoding mask with a bit this version does not define");
  if (!attr_ref(p, c, &loc))
    return false;
  if ((h->has_attrs = mask & 0x01) && !attr_ref(p, c, &h->attrs))
    return false;
  if ((h->has_props = mask & 0x40) && !bc_varint(c, &x))
    return false;
  if (mask & 0x02) {
    if (!index_list(p, c, p->f->ntypes, "type index out of range", &h->nresults, &h->results_at))
      return false;
    h->numbered = rv->end > 0;
    h->first_result = (uint32_t)rv->next;
    bool konst = op_is(h, "arith", "constant");
    bc_cursor rc = {c->base, h->results_at, c->pos, p->err};
    for (uint64_t i = 0; i < h->nresults && h->numbered; i++)
      if (!type_ref(p, &rc, &x) || !define(p, rv, (uint32_t)x, konst ? 'c' : 'v', h->at))
        return false;
  }
  if (mask & 0x04 && !index_list(p, c, UINT64_MAX, "", &h->noperands, &h->operands_at))
    return false;
  if (mask & 0x08 && !index_list(p, c, UINT64_MAX, "", &h->nsuccs, &h->succs_at))
    return false;
  if (mask & 0x20 && !skip_use_lists(p, c, h->nresults))
    return false;
  if (mask & 0x10) {
    if (!bc_varint_flag(c, &h->nregions, &h->isolated))
      return false;
    if (h->nregions > c->end - c->pos + 1)
      return fail(p, VMEM_ERR_SYNTAX, c->pos, "more regions than the data can hold");
  }
  return true;
}

static void indent(printer *p, unsigned n) {
  for (unsigned i = 0; i < n; i++)
    sb_puts(p->out, "  ");
}

/* The op's operand list, re-read from its start; `from` entries skipped. */
static bool operands_from(printer *p, const op_head *h, uint64_t from, bc_cursor *c) {
  uint64_t idx;
  *c = (bc_cursor){p->f->buf, h->operands_at, p->f->len, p->err};
  for (uint64_t k = 0; k < from; k++)
    if (!bc_varint(c, &idx))
      return false;
  return true;
}

static bool put_operands(printer *p, const op_head *h, uint64_t from, uint64_t to, const char *sep) {
  bc_cursor c;
  uint64_t idx;
  if (!operands_from(p, h, from, &c))
    return false;
  for (uint64_t k = from; k < to; k++) {
    if (!bc_varint(&c, &idx))
      return false;
    if (k > from)
      sb_puts(p->out, sep);
    put_value(p, value_at(p, idx), idx);
  }
  return true;
}

static bool put_operand_types(printer *p, const op_head *h, uint64_t from, uint64_t to) {
  bc_cursor c;
  uint64_t idx;
  if (!operands_from(p, h, from, &c))
    return false;
  for (uint64_t k = from; k < to; k++) {
    if (!bc_varint(&c, &idx))
      return false;
    const slot *s = value_at(p, idx);
    if (k > from)
      sb_puts(p->out, ", ");
    if (!s || !s->kind)
      sb_puts(p->out, "none");
    else if (!print_type(p, s->type))
      return false;
  }
  return true;
}

static bool put_result_types(printer *p, const op_head *h) {
  bc_cursor c = {p->f->buf, h->results_at, p->f->len, p->err};
  uint64_t t;
  for (uint64_t i = 0; i < h->nresults; i++) {
    if (i)
      sb_puts(p->out, ", ");
    if (!type_ref(p, &c, &t) || !print_type(p, t))
      return false;
  }
  return true;
}

static void put_results(printer *p, const op_head *h) {
  for (uint64_t i = 0; i < h->nresults && h->numbered; i++) {
    sb_puts(p->out, i ? ", " : "");
    put_value(p, &p->slots[h->first_result + i], 0);
  }
  if (h->nresults && h->numbered)
    sb_puts(p->out, " = ");
}

static void put_op_name(printer *p, const op_head *h) {
  sb_putn(p->out, h->dialect.ptr, h->dialect.len);
  sb_puts(p->out, ".");
  sb_putn(p->out, h->name.ptr, h->name.len);
}

static bool put_attr_dict(printer *p, const op_head *h, const char *prefix, const char *const *skip) {
  if (!h->has_attrs)
    return true;
  const bc_entry *e = attr_entry(p, h->attrs);
  bc_cursor c;
  uint64_t code;
  bool builtin, any;
  if (!builtin_code(p, e, &c, &code, &builtin))
    return false;
  if (!builtin || code != 1)
    return fail(p, VMEM_ERR_SYNTAX, e->start, "an op's attributes that are not a dictionary");
  size_t mark = p->out->len;
  sb_puts(p->out, prefix);
  sb_puts(p->out, "{");
  if (!print_dict_body(p, &c, skip, &any))
    return false;
  sb_puts(p->out, "}");
  if (!any) /* nothing left after the skipped keys: take the braces back */
    p->out->len = mark;
  return true;
}

static bool read_regions(printer *p, bc_cursor *c, const op_head *h, unsigned depth, bool entry_in_signature);

/* The generic form: "d.name"(ops)[succs] ({...}) {attrs} : (ts) -> (ts) */
static bool print_generic(printer *p, bc_cursor *c, const op_head *h, unsigned depth) {
  sb_puts(p->out, "\"");
  put_op_name(p, h);
  sb_puts(p->out, "\"(");
  if (!put_operands(p, h, 0, h->noperands, ", "))
    return false;
  sb_puts(p->out, ")");
  if (h->nsuccs) {
    bc_cursor sc = {p->f->buf, h->succs_at, p->f->len, p->err};
    uint64_t b;
    for (uint64_t i = 0; i < h->nsuccs; i++) {
      if (!bc_varint(&sc, &b))
        return false;
      sb_printf(p->out, "%s^bb%llu", i ? ", " : "[", (unsigned long long)b);
    }
    sb_puts(p->out, "]");
  }
  if (h->nregions) {
    sb_puts(p->out, " (");
    if (!read_regions(p, c, h, depth, false))
      return false;
    sb_puts(p->out, ")");
  }
  if (!put_attr_dict(p, h, " ", NULL))
    return false;
  sb_puts(p->out, " : (");
  if (!put_operand_types(p, h, 0, h->noperands))
    return false;
  sb_puts(p->out, h->nresults == 1 ? ") -> " : ") -> (");
  if (!put_result_types(p, h))
    return false;
  if (h->nresults != 1)
    sb_puts(p->out, ")");
  return true;
}

/* func.func [private] @name(%arg0: t, ...) -> (rs) attributes {...} {body}:
 * the form the text reader reads; the arguments come from function_type. */
static bool print_func(printer *p, bc_cursor *c, const op_head *h, unsigned depth, bool *done) {
  static const char *const skip[] = {"sym_name", "function_type", "sym_visibility", NULL};
  uint64_t name_attr, type_attr, vis, type, x;
  bool has_name, has_type, has_vis;
  *done = false;
  if (!h->has_attrs || h->nregions != 1 || !dict_find(p, h->attrs, "sym_name", &name_attr, &has_name) ||
      !dict_find(p, h->attrs, "function_type", &type_attr, &has_type) ||
      !dict_find(p, h->attrs, "sym_visibility", &vis, &has_vis))
    return p->err->code == VMEM_OK; /* not one we can print custom: generic */
  if (!has_name || !has_type)
    return true;
  const bc_entry *te = attr_entry(p, type_attr);
  bc_cursor tc;
  uint64_t code;
  bool builtin;
  vmem_str name, visibility = {"", 0};
  if (!string_attr(p, name_attr, &name) || !builtin_code(p, te, &tc, &code, &builtin))
    return p->err->code == VMEM_OK;
  if (!builtin || code != 6 || !type_ref(p, &tc, &type))
    return p->err->code == VMEM_OK;
  const bc_entry *fe = type_entry(p, type);
  bc_cursor fc;
  if (!builtin_code(p, fe, &fc, &code, &builtin) || !builtin || code != 2)
    return p->err->code == VMEM_OK;
  if (has_vis && !string_attr(p, vis, &visibility))
    return false;
  sb_puts(p->out, "func.func ");
  if (visibility.len) {
    put_str(p, visibility);
    sb_puts(p->out, " ");
  }
  sb_puts(p->out, "@");
  put_name(p, name);
  sb_puts(p->out, "(");
  uint64_t n;
  if (!bc_count(&fc, 1, &n))
    return false;
  for (uint64_t i = 0; i < n; i++) {
    sb_printf(p->out, "%s%%arg%llu: ", i ? ", " : "", (unsigned long long)i);
    if (!type_ref(p, &fc, &x) || !print_type(p, x))
      return false;
  }
  sb_puts(p->out, ") -> (");
  if (!print_list(p, &fc, true, ", "))
    return false;
  sb_puts(p->out, ")");
  if (!put_attr_dict(p, h, " attributes ", skip))
    return false;
  sb_puts(p->out, " ");
  *done = true;
  return read_regions(p, c, h, depth, true);
}

/* module [@name] [attributes {...}] {body} */
static bool print_module(printer *p, bc_cursor *c, const op_head *h, unsigned depth) {
  static const char *const skip[] = {"sym_name", NULL};
  uint64_t name_attr;
  bool has_name = false;
  vmem_str name;
  sb_puts(p->out, "module ");
  if (h->has_attrs && !dict_find(p, h->attrs, "sym_name", &name_attr, &has_name))
    return false;
  if (has_name) {
    if (!string_attr(p, name_attr, &name))
      return false;
    sb_puts(p->out, "@");
    put_name(p, name);
    sb_puts(p->out, " ");
  }
  if (!put_attr_dict(p, h, "attributes ", skip))
    return false;
  if (h->has_attrs)
    sb_puts(p->out, " ");
  return read_regions(p, c, h, depth, false);
}

/* Custom one-line forms for what the text reader looks for:
 *   %cN = arith.constant ATTR        return %a, ... : t, ...
 *   d.xstore %v, %ref[%i, ...] {attrs} : ref-type, v-type */
static bool print_short(printer *p, const op_head *h, bool *done) {
  uint64_t value;
  bool found = false;
  *done = false;
  if (op_is(h, "arith", "constant") && h->has_attrs && h->noperands == 0 && h->nresults == 1) {
    if (!dict_find(p, h->attrs, "value", &value, &found))
      return false;
    if (found) {
      sb_puts(p->out, "arith.constant ");
      *done = true;
      return print_attr(p, value);
    }
  }
  if (op_is(h, "func", "return") && h->nresults == 0 && !h->nregions) {
    sb_puts(p->out, "return");
    if (h->noperands) {
      sb_puts(p->out, " ");
      if (!put_operands(p, h, 0, h->noperands, ", "))
        return false;
      sb_puts(p->out, " : ");
      if (!put_operand_types(p, h, 0, h->noperands))
        return false;
    }
    *done = true;
    return true;
  }
  bool store = h->name.len >= 5 && !memcmp(h->name.ptr + h->name.len - 5, "store", 5);
  if (store && h->noperands >= 2 && h->nresults == 0 && !h->nregions && !h->nsuccs) {
    put_op_name(p, h);
    sb_puts(p->out, " ");
    if (!put_operands(p, h, 0, 2, ", "))
      return false;
    sb_puts(p->out, "[");
    if (!put_operands(p, h, 2, h->noperands, ", "))
      return false;
    sb_puts(p->out, "]");
    if (!put_attr_dict(p, h, " ", NULL))
      return false;
    sb_puts(p->out, " : ");
    if (!put_operand_types(p, h, 1, 2) || !(sb_puts(p->out, ", "), put_operand_types(p, h, 0, 1)))
      return false;
    *done = true;
  }
  return true;
}

static bool read_op(printer *p, bc_cursor *c, region_vals *rv, unsigned depth) {
  op_head h;
  bool done = false;
  if (!read_head(p, c, rv, &h))
    return false;
  if (h.has_props && op_is(&h, "func", "func"))
    return fail(p, VMEM_ERR_UNSUPPORTED, h.at,
                "a func.func whose attributes are native properties (bytecode v5+ of a registered dialect)");
  indent(p, depth);
  put_results(p, &h);
  if (op_is(&h, "builtin", "module") && h.nregions == 1 && !h.noperands && !h.nresults) {
    if (!print_module(p, c, &h, depth))
      return false;
    done = true;
  }
  if (!done && op_is(&h, "func", "func") && !h.noperands && !h.nresults && !print_func(p, c, &h, depth, &done))
    return false;
  if (!done && !h.nregions && !print_short(p, &h, &done))
    return false;
  if (!done && !print_generic(p, c, &h, depth))
    return false;
  sb_puts(p->out, "\n");
  return !over_budget(p, h.at);
}

/* block ::= (numOps<<1 | hasArgs) [args] op^numOps
 * args  ::= n (type [loc] | type<<1|hasLoc [loc])^n [hasUseLists [orders]] */
static bool read_block(printer *p, bc_cursor *c, region_vals *rv, unsigned depth, uint64_t index, bool entry_sig) {
  uint64_t nops, nargs = 0, t, loc;
  bool has_args, has_loc = true;
  size_t at = c->pos;
  if (!bc_varint_flag(c, &nops, &has_args))
    return false;
  if (nops > c->end - c->pos)
    return fail(p, VMEM_ERR_SYNTAX, at, "more ops than the data can hold");
  if (has_args && !bc_count(c, 1, &nargs))
    return false;
  bool label = index > 0 || (nargs && !entry_sig);
  if (label) {
    indent(p, depth - 1);
    sb_printf(p->out, "^bb%llu%s", (unsigned long long)index, nargs ? "(" : "");
  }
  for (uint64_t i = 0; i < nargs; i++) {
    size_t aat = c->pos;
    if (!(p->f->version >= 4 ? bc_varint_flag(c, &t, &has_loc) : bc_varint(c, &t)))
      return false;
    if (t >= p->f->ntypes)
      return fail(p, VMEM_ERR_SYNTAX, aat, "type index out of range");
    if (has_loc && !attr_ref(p, c, &loc))
      return false;
    if (!define(p, rv, (uint32_t)t, 'a', aat))
      return false;
    if (label) {
      sb_puts(p->out, i ? ", " : "");
      put_value(p, &p->slots[rv->next - 1], 0);
      sb_puts(p->out, ": ");
      if (!print_type(p, t))
        return false;
    }
  }
  if (label)
    sb_puts(p->out, nargs ? "):\n" : ":\n");
  if (has_args && p->f->version >= 3) {
    if (c->pos >= c->end)
      return fail(p, VMEM_ERR_SYNTAX, c->pos, "unexpected end of data");
    if (c->base[c->pos++] && !skip_use_lists(p, c, nargs))
      return false;
  }
  for (uint64_t i = 0; i < nops; i++)
    if (!read_op(p, c, rv, depth))
      return false;
  return true;
}

/* region ::= numBlocks [numValues block^numBlocks] */
static bool read_region(printer *p, bc_cursor *c, unsigned depth, bool entry_sig) {
  uint64_t nblocks, nvalues = 0;
  size_t at = c->pos;
  if (!bc_varint(c, &nblocks))
    return false;
  if (nblocks > c->end - c->pos)
    return fail(p, VMEM_ERR_SYNTAX, at, "more blocks than the data can hold");
  sb_puts(p->out, "{\n");
  if (nblocks && !bc_varint(c, &nvalues))
    return false;
  size_t saved = p->nslots;
  if (!reserve(p, (size_t)nvalues, at))
    return false;
  region_vals rv = {saved, p->nslots};
  for (uint64_t b = 0; b < nblocks; b++)
    if (!read_block(p, c, &rv, depth + 1, b, entry_sig))
      return false;
  p->nslots = saved;
  indent(p, depth);
  sb_puts(p->out, "}");
  return true;
}

/* regions ::= region^n inline, or inside one IR section when isolated
 * (v2+); an isolated op opens a new value scope. */
static bool read_regions(printer *p, bc_cursor *c, const op_head *h, unsigned depth, bool entry_in_signature) {
  if (!enter(p, h->at))
    return false;
  bc_cursor in = *c;
  if (h->isolated && p->f->version >= 2) {
    unsigned id;
    bc_section s;
    size_t at = c->pos;
    if (!bc_section_at(c, &id, &s))
      return false;
    if (id != BC_IR)
      return fail(p, VMEM_ERR_SYNTAX, at, "an isolated op's regions in a section that is not IR");
    in = (bc_cursor){c->base, s.start, s.start + s.len, p->err};
  }
  size_t scope = p->scope;
  names n = p->n;
  if (h->isolated)
    p->scope = p->nslots;
  if (h->isolated || entry_in_signature) /* a func's names restart, as MLIR prints them */
    p->n = (names){0, 0, 0};
  for (uint64_t r = 0; r < h->nregions; r++) {
    if (r)
      sb_puts(p->out, ", ");
    if (!read_region(p, &in, depth, entry_in_signature && r == 0))
      return false;
  }
  if (h->isolated && p->f->version >= 2 && in.pos != in.end)
    return fail(p, VMEM_ERR_SYNTAX, in.pos, "unexpected data after an op's regions");
  if (!(h->isolated && p->f->version >= 2))
    c->pos = in.pos;
  p->scope = scope;
  if (h->isolated || entry_in_signature) /* names are unique within a scope */
    p->n = n;
  p->depth--;
  return true;
}

static int64_t dialect_named(const bc_file *f, const char *name) {
  for (size_t i = 0; i < f->ndialects; i++) {
    vmem_str s = f->strings[f->dialects[i]];
    if (s.len == strlen(name) && !memcmp(s.ptr, name, s.len))
      return (int64_t)i;
  }
  return -1;
}

/* ir ::= (numOps<<1 | 0) op^numOps, a block with no arguments */
static bool print_ir(printer *p) {
  const bc_section *s = &p->f->sections[BC_IR];
  bc_cursor c = {p->f->buf, s->start, s->start + s->len, p->err};
  region_vals root = {0, 0};
  sb_printf(p->out, "// decoded from MLIR bytecode v%llu (producer \"", (unsigned long long)p->f->version);
  sb_putn(p->out, p->f->producer.ptr, p->f->producer.len > 80 ? 80 : p->f->producer.len);
  sb_puts(p->out, "\") by vmemscope\n");
  if (!read_block(p, &c, &root, 0, 0, true))
    return false;
  return c.pos == c.end || fail(p, VMEM_ERR_SYNTAX, c.pos, "unexpected data after the IR");
}

vmem_status bc_print(arena *a, const bc_file *f, vmem_str *text, vmem_error *err) {
  /* One pass into a buffer that grows, then the text copied into the arena
   * at its size, the printer's scratch freed first. (It printed twice,
   * measuring and then writing: the printing is most of a large body's
   * check.) The first error wins (fail() keeps it), so start clear. */
  err_clear(err);
  strbuf sb;
  printer p = {f,    a, &sb, err, 0,        0, dialect_named(f, "builtin"), dialect_named(f, "stable_mosaic"),
               NULL, 0, 0,   0,   {0, 0, 0}};
  p.budget = f->len > (SIZE_MAX - (1u << 20)) / 16 ? SIZE_MAX : 16 * f->len + (1u << 20);
  arena_mark m = arena_save(a);
  sb_init_growing(&sb, &a->alloc);
  bool ok = print_ir(&p);
  arena_restore(a, m);
  char *buf = ok && !sb.failed ? arena_alloc(a, sb.len + 1) : NULL;
  if (buf) {
    memcpy(buf, sb.buf, sb.len); /* a rolled-back dict may have left bytes past the end: not copied */
    buf[sb.len] = '\0';
    *text = (vmem_str){buf, sb.len};
  }
  sb_release(&sb);
  if (!ok)
    return err->code;
  if (!buf) {
    err_set(err, VMEM_ERR_NOMEM, 0, "out of memory");
    return VMEM_ERR_NOMEM;
  }
  return VMEM_OK;
}
