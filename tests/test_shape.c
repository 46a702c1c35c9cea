/* Shape syntax: parsing, canonical printing (round trip), accessors and
 * every kind of bad input with its position. */
#include <stdio.h>
#include <stdlib.h>

#include "test.h"
#include "../src/shape/shape.h"

static char *print(const vmem_shape *s) {
  size_t n = vmem_shape_print(s, NULL, 0);
  char *buf = malloc(n + 1);
  assert_non_null(buf);
  assert_int_equal(vmem_shape_print(s, buf, n + 1), n);
  return buf;
}

/* Parses `in`, expects it to print as `want`, and the printed text to parse
 * and print the same again. */
static void round_trip(const char *in, const char *want) {
  vmem_error err;
  vmem_shape *s = vmem_shape_parse(in, strlen(in), NULL, &err);
  if (!s)
    fail_msg("parse '%s': %s at %zu", in, err.message, err.offset);
  char *out = print(s);
  assert_string_equal(out, want);
  vmem_shape *again = vmem_shape_parse(out, strlen(out), NULL, &err);
  assert_non_null(again);
  char *out2 = print(again);
  assert_string_equal(out2, want);
  free(out);
  free(out2);
  vmem_shape_free(s);
  vmem_shape_free(again);
}

static void test_round_trip(void **state) {
  (void)state;
  round_trip("bf16[2048,4096]{1,0:T(8,128)(2,1)}", "bf16[2048,4096]{1,0:T(8,128)(2,1)}");
  round_trip("f32[]", "f32[]");
  /* found by fuzz_shape: a raw D(...) group longer than 128 bytes was cut in printing */
  round_trip("f32[8]{0:D("
             "dense,compressed,singleton,dense,compressed,singleton,dense,compressed,singleton,dense,"
             "compressed,singleton,dense,compressed)}",
             "f32[8]{0:D("
             "dense,compressed,singleton,dense,compressed,singleton,dense,compressed,singleton,dense,"
             "compressed,singleton,dense,compressed)}");
  round_trip("s32[]{:T(128)}", "s32[]{:T(128)}");
  round_trip("pred[]{}", "pred[]{}");
  round_trip(" ( f32[8]{0} ,s32[] ) ", "(f32[8]{0}, s32[])");
  round_trip("()", "()");
  round_trip("((f32[1]), token[])", "((f32[1]), token[])");
  round_trip("f32[<=10,?,3]", "f32[<=10,?,3]");
  round_trip("bf16[2,3,1004]{2,1,0:T(2,*,128)}", "bf16[2,3,1004]{2,1,0:T(2,*,128)}");
  round_trip("s4[9216,6144]{1,0:T(64,128)(8,1)E(4)}", "s4[9216,6144]{1,0:T(64,128)(8,1)E(4)}");
  round_trip("f32[32,6144]{1,0:T(8,128)S(3)}", "f32[32,6144]{1,0:T(8,128)S(3)}");
  round_trip("f32[8,8]{0,1:D(D,C)T(8,128)L(1024)#(s32)*(s64)E(32)S(1)SC(0:2)P(f32[64]{0})M(16)}",
             "f32[8,8]{0,1:D(D,C)T(8,128)L(1024)#(s32)*(s64)E(32)S(1)SC(0:2)P(f32[64]{0})M(16)}");
  round_trip("f32[8]{0:L(1)}", "f32[8]{0}"); /* L(1) is the default */
  round_trip("f32[4] /*index=5*/", "f32[4]");
  round_trip("(f32[4], /*index=1*/ u8[2])", "(f32[4], u8[2])");
  round_trip("f8e4m3b11fnuz[1]", "f8e4m3b11fnuz[1]");
}

static void test_accessors(void **state) {
  (void)state;
  const char *in = "(bf16[2,<=3]{0,1:T(8,128)(2,1)S(1)}, s32[?])";
  vmem_error err;
  vmem_shape *s = vmem_shape_parse(in, strlen(in), NULL, &err);
  assert_non_null(s);
  assert_true(vmem_shape_is_tuple(s));
  assert_int_equal(vmem_shape_tuple_count(s), 2);
  assert_false(vmem_shape_has_tiles(s));
  const vmem_shape *a = vmem_shape_tuple_at(s, 0), *b = vmem_shape_tuple_at(s, 1);
  assert_null(vmem_shape_tuple_at(s, 2));
  assert_int_equal(vmem_shape_dtype(a), VMEM_BF16);
  assert_int_equal(vmem_shape_rank(a), 2);
  assert_int_equal(vmem_shape_dim(a, 1), 3);
  assert_true(vmem_shape_dim_is_dynamic(a, 1));
  assert_false(vmem_shape_dim_is_dynamic(a, 0));
  assert_true(vmem_shape_has_tiles(a));
  assert_int_equal(vmem_shape_memory_space(a), 1);
  assert_int_equal(vmem_shape_dim(b, 0), -1);
  assert_false(vmem_shape_has_layout(b));
  char lay[64];
  vmem_shape_print_layout(a, lay, sizeof lay);
  assert_string_equal(lay, "{0,1:T(8,128)(2,1)S(1)}");
  vmem_shape_free(s);
}

static void test_dtypes(void **state) {
  (void)state;
  static const struct {
    const char *name;
    int bits, bytes;
  } want[] = {{"pred", 1, 1},    {"s2", 2, 1},       {"s4", 4, 1},        {"u4", 4, 1},   {"s8", 8, 1},
              {"u16", 16, 2},    {"bf16", 16, 2},    {"f32", 32, 4},      {"s64", 64, 8}, {"c64", 64, 8},
              {"c128", 128, 16}, {"f4e2m1fn", 4, 1}, {"f8e8m0fnu", 8, 1}, {"token", 0, 0}};
  for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
    vmem_dtype t;
    assert_true(vmem_dtype_from_name(want[i].name, strlen(want[i].name), &t));
    assert_string_equal(vmem_dtype_name(t), want[i].name);
    assert_int_equal(vmem_dtype_bits(t), want[i].bits);
    assert_int_equal(vmem_dtype_bytes(t), want[i].bytes);
  }
  for (int t = 0; t < VMEM_DTYPE_COUNT; t++) {
    vmem_dtype back;
    const char *n = vmem_dtype_name((vmem_dtype)t);
    assert_true(vmem_dtype_from_name(n, strlen(n), &back));
    assert_int_equal(back, t);
  }
  vmem_dtype t;
  assert_false(vmem_dtype_from_name("F32", 3, &t)); /* XLA names are lowercase */
  assert_false(vmem_dtype_from_name("f31", 3, &t));
}

static void expect_error(const char *in, vmem_status code, size_t offset) {
  vmem_error err;
  vmem_shape *s = vmem_shape_parse(in, strlen(in), NULL, &err);
  if (s)
    fail_msg("'%s' parsed; expected an error", in);
  if (err.code != code || err.offset != offset)
    fail_msg("'%s': got %s at %zu (%s), want %s at %zu", in, vmem_status_name(err.code), err.offset, err.message,
             vmem_status_name(code), offset);
  assert_true(strlen(err.message) > 0);
}

static void test_errors(void **state) {
  (void)state;
  expect_error("", VMEM_ERR_SYNTAX, 0);
  expect_error("   ", VMEM_ERR_SYNTAX, 3);
  expect_error("f31[8]", VMEM_ERR_UNKNOWN, 0);
  expect_error("F32[8]", VMEM_ERR_SYNTAX, 0);
  expect_error("f32", VMEM_ERR_SYNTAX, 3);
  expect_error("f32[8", VMEM_ERR_SYNTAX, 5);
  expect_error("f32[8,]", VMEM_ERR_SYNTAX, 6);
  expect_error("f32[-1]", VMEM_ERR_SYNTAX, 4);
  expect_error("f32[99999999999999999999]", VMEM_ERR_OVERFLOW, 4);
  expect_error("f32[8]{1}", VMEM_ERR_RANGE, 7);
  expect_error("f32[8,8]{0,0}", VMEM_ERR_RANGE, 8);
  expect_error("f32[8,8]{0}", VMEM_ERR_RANGE, 8);
  expect_error("f32[8]{0:T(0)}", VMEM_ERR_RANGE, 11);
  expect_error("f32[8]{0:S(1)T(8)}", VMEM_ERR_SYNTAX, 13);
  expect_error("f32[8]{0:T(8)T(8)}", VMEM_ERR_SYNTAX, 13);
  expect_error("f32[8,8]{1,0:D(x\001)}", VMEM_ERR_SYNTAX, 16); /* found by fuzz_shape: would not print back */
  expect_error("f32[8]{0:Q(1)}", VMEM_ERR_SYNTAX, 9);
  expect_error("f32[8]{0:D(D}", VMEM_ERR_SYNTAX, 11);
  expect_error("f32[8]{0", VMEM_ERR_SYNTAX, 8);
  expect_error("f32[8] x", VMEM_ERR_SYNTAX, 7);
  expect_error("(f32[8]", VMEM_ERR_SYNTAX, 7);
  expect_error("(f32[8],", VMEM_ERR_SYNTAX, 8);
  expect_error("f32[4] /* open", VMEM_ERR_SYNTAX, 7);
  expect_error("f32[8]{0:E(0)}", VMEM_ERR_RANGE, 13);
  expect_error("f32[8]{0:#(f31)}", VMEM_ERR_UNKNOWN, 11);
  expect_error("\x01\xff\xfe", VMEM_ERR_SYNTAX, 0);
}

static void test_binary_and_embedded_nul(void **state) {
  (void)state;
  const char in[] = {'f', '3', '2', '[', '8', ']', '\0', 'x'};
  vmem_error err;
  assert_null(vmem_shape_parse(in, sizeof in, NULL, &err));
  assert_int_equal(err.code, VMEM_ERR_SYNTAX);
  assert_int_equal(err.offset, 6);
}

static void test_deep_nesting_is_an_error(void **state) {
  (void)state;
  size_t n = 100000;
  char *in = malloc(2 * n + 8);
  memset(in, '(', n);
  memcpy(in + n, "f32[]", 5);
  memset(in + n + 5, ')', n);
  vmem_error err;
  assert_null(vmem_shape_parse(in, 2 * n + 5, NULL, &err));
  assert_int_equal(err.code, VMEM_ERR_RANGE);
  free(in);
}

static void test_large_rank(void **state) {
  (void)state;
  size_t rank = 5000;
  char *in = malloc(rank * 2 + 16);
  strcpy(in, "u8[");
  for (size_t i = 0; i < rank; i++)
    strcat(in, i ? ",1" : "1");
  strcat(in, "]");
  vmem_error err;
  vmem_shape *s = vmem_shape_parse(in, strlen(in), NULL, &err);
  assert_non_null(s);
  assert_int_equal(vmem_shape_rank(s), rank);
  vmem_size z;
  assert_int_equal(vmem_shape_size(s, &z, &err), VMEM_OK);
  assert_int_equal(z.bytes, 1);
  vmem_shape_free(s);
  free(in);
}

static void test_locate(void **state) {
  (void)state;
  size_t line, col;
  vmem_locate("ab\ncd", 5, 4, &line, &col);
  assert_int_equal(line, 2);
  assert_int_equal(col, 2);
  vmem_locate("ab", 2, 99, &line, &col);
  assert_int_equal(line, 1);
  assert_int_equal(col, 3);
}

/* A split layout's largest chunk (SC(d:i,...)): each piece of dimension d
 * between the cut points, sized with the array's own layout; malformed
 * splits are not read. */
static void test_split_chunk_size(void **state) {
  (void)state;
  static const struct {
    const char *text;
    bool split;
    uint64_t bytes;
  } cases[] = {
      {"s32[4096]{0:T(1024)S(1)SC(0:2048)}", true, 8192},
      {"s32[4096]{0:T(1024)S(1)SC(0:1024,3072)}", true, 8192}, /* 1024, 2048, 1024 */
      {"s32[4096]{0:T(1024)S(1)SC(0:3000)}", true, 12288},     /* 3000 rounds up to 3 tiles */
      {"f32[64,256]{1,0:T(8,128)SC(1:128)}", true, 32768},     /* 64 x 128 x 4 */
      {"s32[4096]{0:T(1024)S(1)}", false, 0},
      {"s32[4096]{0:T(1024)SC(1:2048)}", false, 0},      /* no dimension 1 */
      {"s32[4096]{0:T(1024)SC(0:2048,1024)}", false, 0}, /* not increasing */
      {"s32[4096]{0:T(1024)SC(0:4096)}", false, 0},      /* at the end */
      {"s32[4096]{0:T(1024)SC(0:x)}", false, 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    vmem_error err;
    vmem_shape *s = vmem_shape_parse(cases[i].text, strlen(cases[i].text), NULL, &err);
    if (!s)
      fail_msg("%s: %s", cases[i].text, err.message);
    vmem_size z = {0, 0};
    assert_int_equal(shape_split_chunk_size(s, &z), cases[i].split);
    assert_int_equal(z.bytes, cases[i].bytes);
    vmem_shape_free(s);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_split_chunk_size),
      cmocka_unit_test(test_round_trip),
      cmocka_unit_test(test_accessors),
      cmocka_unit_test(test_dtypes),
      cmocka_unit_test(test_errors),
      cmocka_unit_test(test_binary_and_embedded_nul),
      cmocka_unit_test(test_deep_nesting_is_an_error),
      cmocka_unit_test(test_large_rank),
      cmocka_unit_test(test_locate),
  };
  return RUN(tests);
}
