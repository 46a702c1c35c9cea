/* The MLIR bytecode container reader, on bytecode this test writes itself:
 * the varint forms at every width, a small file with each table, base64,
 * and every way a file can be cut short or corrupted — each a positioned
 * error, none a crash. Uses the internal header on purpose. */
#include <stdio.h>
#include <stdlib.h>

#include "test.h"
#include "../src/mosaic/bytecode.h"
#include "bcwrite.h"

static void test_varints(void **state) {
  (void)state;
  static const uint64_t vals[] = {0,         1, 63, 127, 128, 16383, 16384, ((uint64_t)1 << 56) - 1, (uint64_t)1 << 56,
                                  UINT64_MAX};
  for (size_t i = 0; i < sizeof vals / sizeof *vals; i++) {
    wbuf w = {.n = 0};
    put_varint(&w, vals[i]);
    vmem_error err;
    bc_cursor c = {w.b, 0, w.n, &err};
    uint64_t v;
    assert_true(bc_varint(&c, &v));
    assert_true(v == vals[i]);
    assert_int_equal(c.pos, w.n);
    /* One byte short is an error at the varint's first byte. */
    bc_cursor cut = {w.b, 0, w.n - 1, &err};
    if (w.n > 1) {
      assert_false(bc_varint(&cut, &v));
      assert_int_equal(err.offset, 0);
    }
  }
  /* The documented encodings of 2^56-1 and 2^56. */
  wbuf w = {.n = 0};
  put_varint(&w, ((uint64_t)1 << 56) - 1);
  assert_int_equal(w.n, 8);
  assert_int_equal(w.b[0], 0x80);
  wbuf w9 = {.n = 0};
  put_varint(&w9, (uint64_t)1 << 56);
  assert_int_equal(w9.n, 9);
  assert_int_equal(w9.b[0], 0);
  assert_int_equal(w9.b[8], 1);
  /* Zigzag: -1 is 1, 1 is 2. */
  uint8_t neg[] = {(1 << 1) | 1, (2 << 1) | 1};
  vmem_error err;
  bc_cursor c = {neg, 0, 2, &err};
  int64_t s;
  assert_true(bc_signed_varint(&c, &s));
  assert_int_equal(s, -1);
  assert_true(bc_signed_varint(&c, &s));
  assert_int_equal(s, 1);
}

/* A version-0 file: strings, two dialects with three op names, two
 * attributes (one textual) and a type, an IR section left opaque. */
static const char *const strs[] = {"builtin", "tpu", "module", "memref_slice", "#tpu.memory_space<vmem>", "func"};

static size_t build(wbuf *f, uint64_t version) {
  wbuf s = {.n = 0}, d = {.n = 0}, off = {.n = 0}, at = {.n = 0}, ir = {.n = 0};
  size_t n = sizeof strs / sizeof *strs;
  put_varint(&s, n);
  for (size_t i = n; i-- > 0;)
    put_varint(&s, strlen(strs[i]) + 1);
  for (size_t i = 0; i < n; i++)
    put_bytes(&s, strs[i], strlen(strs[i]) + 1);
  put_varint(&d, 2);
  put_varint(&d, version >= 1 ? 0 << 1 : 0); /* builtin, no version */
  put_varint(&d, version >= 1 ? 1 << 1 : 1); /* tpu */
  if (version >= 4)
    put_varint(&d, 3);
  put_varint(&d, 0), put_varint(&d, 1), put_varint(&d, version >= 5 ? (2 << 1) | 1 : 2);
  put_varint(&d, 1), put_varint(&d, 2), put_varint(&d, version >= 5 ? (3 << 1) | 1 : 3),
      put_varint(&d, version >= 5 ? (5 << 1) | 0 : 5);
  const char *text = "#tpu.memory_space<vmem>";
  put_varint(&off, 2), put_varint(&off, 1);
  put_varint(&off, 1), put_varint(&off, 1), put_varint(&off, (strlen(text) + 1) << 1);
  put_varint(&off, 0), put_varint(&off, 1), put_varint(&off, (3 << 1) | 1);
  put_varint(&off, 0), put_varint(&off, 1), put_varint(&off, (2 << 1) | 1);
  put_bytes(&at, text, strlen(text) + 1);
  put(&at, 7), put(&at, 8), put(&at, 9), put(&at, 10), put(&at, 11);
  put(&ir, 0x42);
  f->n = 0;
  put_bytes(f, "ML\xefR", 4);
  put_varint(f, version);
  put_bytes(f, "vmemscope-test", 15);
  put_section(f, BC_DIALECT, &d);
  put_section(f, BC_ATTR_TYPE_OFFSET, &off);
  put_section(f, BC_ATTR_TYPE, &at);
  put_section(f, BC_IR, &ir);
  if (version >= 5) {
    wbuf p = {.n = 0};
    put_varint(&p, 0);
    put_section(f, BC_PROPERTIES, &p);
  }
  size_t string_at = f->n;
  put_section(f, BC_STRING, &s);
  return string_at;
}

static void test_tables(void **state) {
  (void)state;
  for (uint64_t version = 0; version <= 6; version++) {
    wbuf f;
    build(&f, version);
    arena a;
    arena_init(&a, NULL);
    bc_file bf;
    vmem_error err;
    if (bc_read(&a, f.b, f.n, &bf, &err) != VMEM_OK)
      fail_msg("version %llu: %s", (unsigned long long)version, err.message);
    assert_true(bf.version == version);
    assert_int_equal(bf.producer.len, 14);
    assert_int_equal(bf.nstrings, 6);
    assert_memory_equal(bf.strings[4].ptr, "#tpu.memory_space<vmem>", 23);
    assert_int_equal(bf.ndialects, 2);
    assert_int_equal(bf.dialects[1], 1);
    assert_int_equal(bf.nops, 3);
    assert_int_equal(bf.ops[1].dialect, 1);
    assert_int_equal(bf.ops[2].name, 5);
    assert_int_equal(bf.ops[2].registered, version < 5);
    assert_int_equal(bf.nattrs, 2);
    assert_int_equal(bf.ntypes, 1);
    vmem_str t = bc_entry_text(&bf, &bf.entries[0]);
    assert_int_equal(t.len, 23);
    assert_memory_equal(t.ptr, "#tpu.memory_space<vmem>", 23);
    assert_true(bf.entries[1].custom && bf.entries[1].len == 3 && bf.entries[2].len == 2);
    assert_int_equal(bc_entry_text(&bf, &bf.entries[1]).len, 0);
    arena_destroy(&a);
  }
}

static vmem_status read_status(const uint8_t *b, size_t n, vmem_error *err) {
  arena a;
  arena_init(&a, NULL);
  bc_file bf;
  vmem_status st = bc_read(&a, b, n, &bf, err);
  arena_destroy(&a);
  return st;
}

static void test_bad_input(void **state) {
  (void)state;
  wbuf f;
  size_t string_at = build(&f, 0);
  vmem_error err;
  /* Every truncation fails, with an offset inside the input. */
  for (size_t n = 0; n < f.n; n++) {
    assert_int_not_equal(read_status(f.b, n, &err), VMEM_OK);
    assert_true(err.offset <= n);
  }
  /* Every single-byte corruption either reads or fails in place. */
  for (size_t i = 0; i < f.n; i++)
    for (int bit = 0; bit < 8; bit++) {
      wbuf g = f;
      g.b[i] ^= (uint8_t)(1 << bit);
      if (read_status(g.b, g.n, &err) != VMEM_OK)
        assert_true(err.offset <= g.n);
    }
  wbuf g = f;
  g.b[0] = 'X';
  assert_int_equal(read_status(g.b, g.n, &err), VMEM_ERR_SYNTAX);
  assert_non_null(strstr(err.message, "magic"));
  g = f;
  g.b[4] = (7 << 1) | 1; /* version 7 */
  assert_int_equal(read_status(g.b, g.n, &err), VMEM_ERR_UNSUPPORTED);
  assert_non_null(strstr(err.message, "version 7"));
  assert_non_null(strstr(err.message, "vmemscope-test"));
  g = f;
  g.b[string_at] = 9; /* an id past the known sections */
  assert_int_equal(read_status(g.b, g.n, &err), VMEM_ERR_SYNTAX);
  assert_non_null(strstr(err.message, "unknown section"));
  assert_int_equal(err.offset, string_at);
  g = f;
  g.b[string_at] = BC_IR; /* the IR twice, and no strings */
  assert_int_equal(read_status(g.b, g.n, &err), VMEM_ERR_SYNTAX);
  assert_non_null(strstr(err.message, "duplicate"));
  g = f;
  g.n = string_at; /* no string section */
  assert_int_equal(read_status(g.b, g.n, &err), VMEM_ERR_SYNTAX);
  assert_non_null(strstr(err.message, "no string section"));
  g = f;
  g.b[g.n - 1] = 'x'; /* the last string loses its NUL */
  assert_int_equal(read_status(g.b, g.n, &err), VMEM_ERR_SYNTAX);
  assert_non_null(strstr(err.message, "NUL"));
}

static void test_base64(void **state) {
  (void)state;
  uint8_t out[16];
  size_t bad;
  assert_int_equal(bc_base64_decode("TUzvUg==", 8, out, &bad), 4);
  assert_memory_equal(out, "ML\xefR", 4);
  assert_int_equal(bc_base64_decode("TUzvUgA=", 8, out, &bad), 5);
  assert_int_equal(bc_base64_decode("TUzv", 4, out, &bad), 3);
  assert_int_equal(bc_base64_decode("TUz", 3, out, &bad), SIZE_MAX);
  assert_int_equal(bad, 3);
  assert_int_equal(bc_base64_decode("TU\"vUg==", 8, out, &bad), SIZE_MAX);
  assert_int_equal(bad, 2);
  assert_int_equal(bc_base64_decode("TU=vUg==", 8, out, &bad), SIZE_MAX);
  assert_int_equal(bad, 2);
  assert_int_equal(bc_base64_decode("TUzvU=g=", 8, out, &bad), SIZE_MAX);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_varints),
      cmocka_unit_test(test_tables),
      cmocka_unit_test(test_bad_input),
      cmocka_unit_test(test_base64),
  };
  return RUN(tests);
}
