/* bcwrite.h — a small MLIR bytecode writer for the tests: the primitive
 * encodings, sections, and a module builder with string, attribute and
 * type tables, so that each encoding rule can be written byte by byte and
 * read back. The layout follows docs/bytecode.md. */
#ifndef VMEM_TEST_BCWRITE_H
#define VMEM_TEST_BCWRITE_H

#include <stdbool.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

typedef struct wbuf {
  uint8_t b[8192];
  size_t n;
} wbuf;

static inline void put(wbuf *w, uint8_t x) { w->b[w->n++] = x; }
static inline void put_bytes(wbuf *w, const void *p, size_t n) {
  memcpy(w->b + w->n, p, n);
  w->n += n;
}

/* The writer's shortest form: n extra bytes when v fits 7(n+1) bits. */
static inline void put_varint(wbuf *w, uint64_t v) {
  if (v >> 56) {
    put(w, 0);
    for (int i = 0; i < 8; i++)
      put(w, (uint8_t)(v >> (8 * i)));
    return;
  }
  int extra = 0;
  while (v >> (7 * (extra + 1)))
    extra++;
  uint64_t enc = ((v << 1) | 1) << extra;
  for (int i = 0; i <= extra; i++)
    put(w, (uint8_t)(enc >> (8 * i)));
}

static inline void put_svarint(wbuf *w, int64_t v) { put_varint(w, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63)); }

static inline void put_section(wbuf *w, unsigned id, const wbuf *data) {
  put(w, (uint8_t)id);
  put_varint(w, data->n);
  put_bytes(w, data->b, data->n);
}

/* A module under construction. Dialects are fixed: 0 builtin, 1 tpu,
 * 2 stable_mosaic; op names: 0 builtin.module, 1 func.func, 2 func.return,
 * 3 arith.constant, 4 scf.if (the last four under stable_mosaic). */
enum { MINI_MAX = 256 };
typedef struct mini {
  uint64_t version;
  const char *strings[MINI_MAX];
  size_t nstrings;
  wbuf entry[2][MINI_MAX]; /* [0] attributes, [1] types */
  uint8_t dialect[2][MINI_MAX];
  bool custom[2][MINI_MAX];
  size_t nentries[2];
  wbuf ir;
} mini;

static inline uint64_t mini_string(mini *m, const char *s) {
  for (size_t i = 0; i < m->nstrings; i++)
    if (!strcmp(m->strings[i], s))
      return i;
  m->strings[m->nstrings] = s;
  return m->nstrings++;
}

static inline void mini_init(mini *m, uint64_t version) {
  memset(m, 0, sizeof *m);
  m->version = version;
  static const char *const fixed[] = {"builtin",   "tpu",         "stable_mosaic",  "module",
                                      "func.func", "func.return", "arith.constant", "scf.if"};
  for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
    mini_string(m, fixed[i]);
}

/* An entry of kind 0 (attribute) or 1 (type): custom bytes, or text. */
static inline uint64_t mini_entry(mini *m, int kind, uint8_t dialect, bool custom, const void *p, size_t n) {
  size_t i = m->nentries[kind]++;
  if (i >= MINI_MAX || n + 1 > sizeof m->entry[kind][i].b)
    abort(); /* a test that outgrew the builder: make MINI_MAX larger */
  m->dialect[kind][i] = dialect;
  m->custom[kind][i] = custom;
  put_bytes(&m->entry[kind][i], p, n);
  if (!custom)
    put(&m->entry[kind][i], 0);
  return i;
}

/* A builtin entry from varints: code, then the fields. */
static inline uint64_t mini_builtin(mini *m, int kind, size_t nfields, const uint64_t *fields) {
  wbuf w = {.n = 0};
  for (size_t i = 0; i < nfields; i++)
    put_varint(&w, fields[i]);
  return mini_entry(m, kind, 0, true, w.b, w.n);
}
#define MINI_ATTR(m, ...) \
  mini_builtin(m, 0, sizeof((uint64_t[]){__VA_ARGS__}) / sizeof(uint64_t), (uint64_t[]){__VA_ARGS__})
#define MINI_TYPE(m, ...) \
  mini_builtin(m, 1, sizeof((uint64_t[]){__VA_ARGS__}) / sizeof(uint64_t), (uint64_t[]){__VA_ARGS__})

static inline uint64_t mini_str_attr(mini *m, const char *s) { return MINI_ATTR(m, 2, mini_string(m, s)); }

/* The whole file, sections in the order MLIR's writer uses. */
static inline void mini_file(mini *m, wbuf *f) {
  static wbuf s, d, off, at;
  s.n = d.n = off.n = at.n = 0;
  put_varint(&s, m->nstrings);
  for (size_t i = m->nstrings; i-- > 0;)
    put_varint(&s, strlen(m->strings[i]) + 1);
  for (size_t i = 0; i < m->nstrings; i++)
    put_bytes(&s, m->strings[i], strlen(m->strings[i]) + 1);
  put_varint(&d, 3);
  for (uint64_t i = 0; i < 3; i++)
    put_varint(&d, m->version >= 1 ? i << 1 : i);
  if (m->version >= 4)
    put_varint(&d, 5);
  uint64_t reg = m->version >= 5 ? 1 : 0;
  put_varint(&d, 0), put_varint(&d, 1), put_varint(&d, reg ? 3 << 1 | 1 : 3);
  put_varint(&d, 2), put_varint(&d, 4);
  for (uint64_t i = 4; i < 8; i++)
    put_varint(&d, reg ? i << 1 : i); /* stable_mosaic ops are unregistered */
  put_varint(&off, m->nentries[0]), put_varint(&off, m->nentries[1]);
  for (int kind = 0; kind < 2; kind++)
    for (size_t i = 0; i < m->nentries[kind]; i++) {
      put_varint(&off, m->dialect[kind][i]), put_varint(&off, 1);
      put_varint(&off, m->entry[kind][i].n << 1 | m->custom[kind][i]);
      put_bytes(&at, m->entry[kind][i].b, m->entry[kind][i].n);
    }
  f->n = 0;
  put_bytes(f, "ML\xefR", 4);
  put_varint(f, m->version);
  put_bytes(f, "vmemscope-test", 15);
  put_section(f, 0, &s);
  put_section(f, 1, &d);
  put_section(f, 2, &at);
  put_section(f, 3, &off);
  put_section(f, 4, &m->ir);
  if (m->version >= 5) {
    wbuf p = {.n = 0};
    put_varint(&p, 0);
    put_section(f, 8, &p);
  }
}

#endif
