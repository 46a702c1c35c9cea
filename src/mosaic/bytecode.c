/*
 * bytecode.c — the container layer of MLIR bytecode (see bytecode.h).
 *
 *   file    ::= "ML\xEFR" version:varint producer:cstring section*
 *   section ::= idAndAligned:byte length:varint
 *               [alignment:varint 0xCB*] data:byte[length]
 *
 * Every read goes through a cursor that knows the end of what it may
 * read, so truncated or corrupt input fails with the absolute offset of
 * the byte that is wrong, and every count is checked against the bytes
 * left before anything is allocated for it.
 */
#include "bytecode.h"

#include <string.h>

static bool fail(bc_cursor *c, size_t at, const char *what) {
  err_set(c->err, VMEM_ERR_SYNTAX, at, "bytecode: %s at byte %zu", what, at);
  return false;
}

/* An allocation that failed: the input is not at fault (VMEM_ERR_NOMEM). */
static bool no_memory(bc_cursor *c, size_t at) {
  err_set(c->err, VMEM_ERR_NOMEM, at, "bytecode: out of memory at byte %zu", at);
  return false;
}

static bool byte(bc_cursor *c, uint8_t *out) {
  if (c->pos >= c->end)
    return fail(c, c->pos, "unexpected end of data");
  *out = c->base[c->pos++];
  return true;
}

/* varint ::= the count of trailing zero bits of the first byte is the
 * count of further bytes (0..7), the value the little-endian whole shifted
 * right past them; a first byte of 0 is followed by 8 unshifted bytes. */
bool bc_varint(bc_cursor *c, uint64_t *out) {
  size_t at = c->pos;
  uint8_t first;
  if (!byte(c, &first))
    return false;
  if (first & 1) {
    *out = first >> 1;
    return true;
  }
  int extra = first ? __builtin_ctz(first) : 8;
  if (c->end - c->pos < (size_t)extra) {
    c->pos = at;
    return fail(c, at, "varint runs past the end");
  }
  uint64_t v = first ? first : 0;
  for (int i = 0; i < extra; i++)
    v |= (uint64_t)c->base[c->pos + (size_t)i] << (8 * (first ? i + 1 : i));
  c->pos += (size_t)extra;
  *out = first ? v >> (extra + 1) : v;
  return true;
}

/* signed ::= zigzag: (u >> 1) ^ -(u & 1). */
bool bc_signed_varint(bc_cursor *c, int64_t *out) {
  uint64_t u;
  if (!bc_varint(c, &u))
    return false;
  *out = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
  return true;
}

/* varint-with-flag ::= (value << 1) | flag. */
bool bc_varint_flag(bc_cursor *c, uint64_t *value, bool *flag) {
  uint64_t x;
  if (!bc_varint(c, &x))
    return false;
  *flag = x & 1;
  *value = x >> 1;
  return true;
}

/* A count of items that take at least `min_bytes` each: never more than
 * the bytes left can hold, so a corrupt count cannot make us allocate. */
bool bc_count(bc_cursor *c, size_t min_bytes, uint64_t *out) {
  size_t at = c->pos;
  if (!bc_varint(c, out))
    return false;
  if (*out > (c->end - c->pos) / min_bytes)
    return fail(c, at, "count larger than the data left");
  return true;
}

static bool index_below(bc_cursor *c, uint64_t limit, uint64_t *out, const char *what) {
  size_t at = c->pos;
  if (!bc_varint(c, out))
    return false;
  if (*out >= limit)
    return fail(c, at, what);
  return true;
}

/* section ::= idAndAligned length [alignment 0xCB*] data */
bool bc_section_at(bc_cursor *c, unsigned *id, bc_section *out) {
  size_t at = c->pos;
  uint8_t head;
  uint64_t len, align = 1;
  if (!byte(c, &head) || !bc_varint(c, &len))
    return false;
  *id = head & 0x7f;
  if (head & 0x80) {
    size_t aat = c->pos;
    if (!bc_varint(c, &align))
      return false;
    if (align == 0 || (align & (align - 1)) || align > 4096)
      return fail(c, aat, "section alignment is not a power of two up to 4096");
    while (c->pos % align) {
      uint8_t pad;
      if (!byte(c, &pad))
        return false;
      if (pad != 0xCB)
        return fail(c, c->pos - 1, "alignment padding is not 0xCB");
    }
  }
  if (len > c->end - c->pos)
    return fail(c, at, "section runs past the end");
  out->present = true;
  out->start = c->pos;
  out->len = (size_t)len;
  c->pos += (size_t)len;
  return true;
}

static bc_cursor sub(const bc_file *f, const bc_section *s, vmem_error *err) {
  return (bc_cursor){f->buf, s->start, s->start + s->len, err};
}

/* strings ::= n:varint size:varint[n] (last string first) bytes, each
 * string NUL-terminated, read back from the end of the section. */
static bool read_strings(arena *a, bc_file *f, vmem_error *err) {
  bc_cursor c = sub(f, &f->sections[BC_STRING], err);
  uint64_t n;
  if (!bc_count(&c, 2, &n)) /* a size byte and a NUL each */
    return false;
  f->nstrings = (size_t)n;
  f->strings = arena_calloc(a, n ? (size_t)n : 1, sizeof *f->strings);
  if (!f->strings)
    return no_memory(&c, c.pos);
  size_t end = c.end;
  for (size_t k = 0; k < n; k++) {
    size_t at = c.pos;
    uint64_t size;
    if (!bc_varint(&c, &size))
      return false;
    /* The sizes read so far and the strings taken from the end must not
     * meet: c.pos may already have passed end. */
    if (size == 0 || c.pos > end || size > end - c.pos)
      return fail(&c, at, "string size past the string data");
    end -= (size_t)size;
    if (f->buf[end + (size_t)size - 1] != 0)
      return fail(&c, end + (size_t)size - 1, "string without its NUL");
    f->strings[n - 1 - k] = (vmem_str){(const char *)f->buf + end, (size_t)size - 1};
  }
  if (c.pos != end)
    return fail(&c, c.pos, "unexpected data between the string sizes and the strings");
  return true;
}

/* dialects ::= n (name | name<<1|hasVersion [versionSection])^n
 *              [numOpNames (v4+)] (dialect count opName^count)* */
static bool read_dialects(arena *a, bc_file *f, vmem_error *err) {
  bc_cursor c = sub(f, &f->sections[BC_DIALECT], err);
  uint64_t n, name;
  if (!bc_count(&c, 1, &n))
    return false;
  f->ndialects = (size_t)n;
  f->dialects = arena_calloc(a, n ? (size_t)n : 1, sizeof *f->dialects);
  if (!f->dialects)
    return no_memory(&c, c.pos);
  for (size_t i = 0; i < n; i++) {
    size_t at = c.pos;
    bool has_version = false;
    if (!(f->version >= 1 ? bc_varint_flag(&c, &name, &has_version) : bc_varint(&c, &name)))
      return false;
    if (name >= f->nstrings)
      return fail(&c, at, "dialect name is not a string index");
    f->dialects[i] = (uint32_t)name;
    unsigned id;
    bc_section versions;
    if (has_version && !bc_section_at(&c, &id, &versions))
      return false;
    if (has_version && id != BC_DIALECT_VERSIONS)
      return fail(&c, at, "a dialect version that is not a dialect-versions section");
  }
  uint64_t hint;
  if (f->version >= 4 && !bc_varint(&c, &hint))
    return false;
  /* Op names continue to the end of the section; the hint only reserves. */
  size_t cap = 16;
  f->ops = arena_alloc(a, cap * sizeof *f->ops);
  while (f->ops && c.pos < c.end) {
    uint64_t dialect, k;
    if (!index_below(&c, f->ndialects, &dialect, "op group names no dialect") || !bc_count(&c, 1, &k))
      return false;
    for (uint64_t j = 0; j < k; j++) {
      size_t at = c.pos;
      bool registered = true;
      if (!(f->version >= 5 ? bc_varint_flag(&c, &name, &registered) : bc_varint(&c, &name)))
        return false;
      if (name >= f->nstrings)
        return fail(&c, at, "op name is not a string index");
      if (f->nops == cap) {
        bc_op_name *grown = arena_alloc(a, 2 * cap * sizeof *grown);
        if (!grown)
          return no_memory(&c, at);
        memcpy(grown, f->ops, cap * sizeof *grown);
        f->ops = grown;
        cap *= 2;
      }
      f->ops[f->nops++] = (bc_op_name){(uint32_t)dialect, (uint32_t)name, registered};
    }
  }
  return f->ops ? true : no_memory(&c, c.pos);
}

/* offsets ::= numAttrs numTypes (dialect count (size<<1|custom)^count)*
 * with the attribute groups first; entries lie back to back in section 2. */
static bool read_entries(arena *a, bc_file *f, vmem_error *err) {
  bc_cursor c = sub(f, &f->sections[BC_ATTR_TYPE_OFFSET], err);
  const bc_section *data = &f->sections[BC_ATTR_TYPE];
  uint64_t na, nt;
  if (!bc_count(&c, 1, &na) || !bc_count(&c, 1, &nt))
    return false;
  if (na + nt > c.end - c.pos)
    return fail(&c, c.pos, "more entries than offsets");
  f->nattrs = (size_t)na;
  f->ntypes = (size_t)nt;
  size_t total = f->nattrs + f->ntypes, filled = 0, offset = 0;
  f->entries = arena_calloc(a, total ? total : 1, sizeof *f->entries);
  if (!f->entries)
    return no_memory(&c, c.pos);
  while (filled < total) {
    size_t at = c.pos;
    uint64_t dialect, k;
    if (!index_below(&c, f->ndialects, &dialect, "entry group names no dialect") || !bc_varint(&c, &k))
      return false;
    size_t group_end = filled < f->nattrs ? f->nattrs : total; /* a group never spans the two kinds */
    if (k > group_end - filled)
      return fail(&c, at, "entry group larger than its table");
    for (uint64_t j = 0; j < k; j++) {
      size_t eat = c.pos;
      uint64_t size;
      bool custom;
      if (!bc_varint_flag(&c, &size, &custom))
        return false;
      if (size > data->len - offset)
        return fail(&c, eat, "entry runs past the attribute/type section");
      if (!custom && (size == 0 || f->buf[data->start + offset + (size_t)size - 1] != 0))
        return fail(&c, eat, "textual entry without its NUL");
      f->entries[filled++] = (bc_entry){data->start + offset, (size_t)size, (uint32_t)dialect, custom};
      offset += (size_t)size;
    }
  }
  if (c.pos != c.end)
    return fail(&c, c.pos, "unexpected data after the entry offsets");
  return true;
}

/* The sections every version requires, and the pairs that go together. */
static bool check_sections(bc_cursor *c, const bc_file *f) {
  static const bc_section_id required[] = {BC_STRING, BC_DIALECT, BC_ATTR_TYPE, BC_ATTR_TYPE_OFFSET, BC_IR};
  static const char *const names[] = {"string", "dialect", "attribute/type", "attribute/type offset", "IR"};
  for (size_t i = 0; i < sizeof required / sizeof *required; i++)
    if (!f->sections[required[i]].present) {
      err_set(c->err, VMEM_ERR_SYNTAX, f->len, "bytecode: no %s section", names[i]);
      return false;
    }
  if (f->version >= 5 && !f->sections[BC_PROPERTIES].present)
    return fail(c, f->len, "no properties section (required from version 5)");
  if (f->sections[BC_RESOURCE].present != f->sections[BC_RESOURCE_OFFSET].present)
    return fail(c, f->len, "a resource section without its offsets, or the reverse");
  return true;
}

vmem_status bc_read(arena *a, const uint8_t *buf, size_t len, bc_file *out, vmem_error *err) {
  err_clear(err);
  memset(out, 0, sizeof *out);
  out->buf = buf;
  out->len = len;
  bc_cursor c = {buf, 0, len, err};
  if (len < 4 || memcmp(buf, "ML\xefR", 4)) {
    fail(&c, 0, "not MLIR bytecode (no ML\\xefR magic)");
    return VMEM_ERR_SYNTAX;
  }
  c.pos = 4;
  size_t vat = c.pos;
  if (!bc_varint(&c, &out->version))
    return err->code;
  const uint8_t *nul = memchr(buf + c.pos, 0, len - c.pos);
  if (!nul) {
    fail(&c, c.pos, "producer string without its NUL");
    return VMEM_ERR_SYNTAX;
  }
  out->producer = (vmem_str){(const char *)buf + c.pos, (size_t)(nul - (buf + c.pos))};
  c.pos = (size_t)(nul - buf) + 1;
  if (out->version > BC_MAX_VERSION) {
    err_set(err, VMEM_ERR_UNSUPPORTED, vat,
            "bytecode: version %llu (producer '%.*s') is newer than %d, the newest "
            "whose layout is known",
            (unsigned long long)out->version, (int)out->producer.len, out->producer.ptr, BC_MAX_VERSION);
    return VMEM_ERR_UNSUPPORTED;
  }
  while (c.pos < c.end) {
    size_t at = c.pos;
    unsigned id;
    bc_section s;
    if (!bc_section_at(&c, &id, &s))
      return err->code;
    if (id >= BC_NUM_SECTIONS || (id == BC_PROPERTIES && out->version < 5)) {
      fail(&c, at, "unknown section id");
      return VMEM_ERR_SYNTAX;
    }
    if (out->sections[id].present) {
      fail(&c, at, "duplicate top-level section");
      return VMEM_ERR_SYNTAX;
    }
    out->sections[id] = s;
  }
  if (!check_sections(&c, out) || !read_strings(a, out, err) || !read_dialects(a, out, err) ||
      !read_entries(a, out, err))
    return err->code;
  return VMEM_OK;
}

vmem_str bc_entry_text(const bc_file *f, const bc_entry *e) {
  if (e->custom || e->len == 0)
    return (vmem_str){"", 0};
  return (vmem_str){(const char *)f->buf + e->start, e->len - 1};
}

/* The value of a base64 character, or -1. */
static int b64(unsigned char ch) {
  if (ch >= 'A' && ch <= 'Z')
    return ch - 'A';
  if (ch >= 'a' && ch <= 'z')
    return ch - 'a' + 26;
  if (ch >= '0' && ch <= '9')
    return ch - '0' + 52;
  return ch == '+' ? 62 : ch == '/' ? 63 : -1;
}

size_t bc_base64_decode(const char *in, size_t len, uint8_t *out, size_t *bad) {
  if (len % 4) {
    *bad = len;
    return SIZE_MAX;
  }
  size_t n = 0;
  for (size_t i = 0; i < len; i += 4) {
    int v[4], pad = 0;
    for (int j = 0; j < 4; j++) {
      bool last = i + 4 == len;
      if (last && in[i + (size_t)j] == '=' && j >= 2 && (j == 3 || in[i + 3] == '=')) {
        v[j] = 0;
        pad++;
        continue;
      }
      v[j] = b64((unsigned char)in[i + (size_t)j]);
      if (v[j] < 0 || pad) {
        *bad = i + (size_t)j;
        return SIZE_MAX;
      }
    }
    uint32_t w = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 | (uint32_t)v[3];
    out[n++] = (uint8_t)(w >> 16);
    if (pad < 2)
      out[n++] = (uint8_t)(w >> 8);
    if (pad < 1)
      out[n++] = (uint8_t)w;
  }
  return n;
}
