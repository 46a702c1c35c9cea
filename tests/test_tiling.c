/* The default TPU layout per generation: each case is a layout seen in a
 * real TPU dump or a rule stated by a public source (docs/layouts.md). */
#include <stdio.h>
#include <stdlib.h>

#include "test.h"

static void expect_layout(const char *target, const char *in, const char *want, uint64_t bytes) {
  vmem_error err;
  const vmem_target *t = vmem_target_find(target, strlen(target));
  assert_non_null(t);
  vmem_shape *s = vmem_shape_parse(in, strlen(in), NULL, &err);
  assert_non_null(s);
  vmem_shape *l = vmem_shape_with_tpu_layout(s, t, NULL, &err);
  assert_non_null(l);
  char buf[256];
  vmem_shape_print(l, buf, sizeof buf);
  if (strcmp(buf, want) != 0)
    fail_msg("%s on %s: got %s, want %s", in, target, buf, want);
  vmem_size z;
  assert_int_equal(vmem_shape_size(l, &z, &err), VMEM_OK);
  if (z.bytes != bytes)
    fail_msg("%s on %s: %llu bytes, want %llu", in, target, (unsigned long long)z.bytes, (unsigned long long)bytes);
  vmem_shape_free(s);
  vmem_shape_free(l);
}

static void test_two_d(void **state) {
  (void)state;
  expect_layout("v5e", "f32[32,6144]", "f32[32,6144]{1,0:T(8,128)}", 32 * 6144 * 4);
  expect_layout("v5e", "f32[128,6]{1,0}", "f32[128,6]{1,0:T(8,128)}", 65536);
  expect_layout("v5e", "f32[128,3]", "f32[128,3]{1,0:T(8,128)}", 65536);
  expect_layout("v5e", "bf16[129,1024]", "bf16[129,1024]{1,0:T(8,128)(2,1)}", 278528);
  expect_layout("v6e", "bf16[32,128]", "bf16[32,128]{1,0:T(8,128)(2,1)}", 8192);
  expect_layout("v5e", "s8[56,4096]", "s8[56,4096]{1,0:T(8,128)(4,1)}", 56 * 4096);
}

static void test_large_tiling_from_7x(void **state) {
  (void)state;
  expect_layout("7x", "bf16[32,128]", "bf16[32,128]{1,0:T(16,128)(2,1)}", 8192);
  /* 129 rows is no multiple of 16: back to 8 rows. */
  expect_layout("7x", "bf16[129,1024]", "bf16[129,1024]{1,0:T(8,128)(2,1)}", 278528);
  expect_layout("7x", "f8e4m3fn[64,768]", "f8e4m3fn[64,768]{1,0:T(32,128)(4,1)}", 64 * 768);
  expect_layout("7x", "f32[32,128]", "f32[32,128]{1,0:T(8,128)}", 16384);
}

static void test_compact_second_minor(void **state) {
  (void)state;
  expect_layout("v5e", "f32[1,128]", "f32[1,128]{1,0:T(1,128)}", 512);
  expect_layout("v5e", "f32[2,128]", "f32[2,128]{1,0:T(2,128)}", 1024);
  expect_layout("v5e", "f32[3,128]", "f32[3,128]{1,0:T(4,128)}", 2048);
  expect_layout("v5e", "bf16[1,128]", "bf16[1,128]{1,0:T(2,128)(2,1)}", 512);
  expect_layout("v5e", "pred[1,1]", "pred[1,1]{1,0:T(4,128)(4,1)}", 512);
  /* Before v4 the smallest tile has twice the rows. */
  expect_layout("v3", "f32[1,128]", "f32[1,128]{1,0:T(2,128)}", 1024);
}

static void test_minor_to_major_is_kept(void **state) {
  (void)state;
  /* {0,1}: dim 0 is most minor, so the second-minor extent is dim 1. */
  expect_layout("v5e", "f32[6,2]{0,1}", "f32[6,2]{0,1:T(2,128)}", 2 * 128 * 4);
  expect_layout("v5e", "s32[1,32,2,256]{3,1,2,0}", "s32[1,32,2,256]{3,1,2,0:T(8,128)}", 2 * 32 * 256 * 4);
}

static void test_one_d(void **state) {
  (void)state;
  expect_layout("v5e", "s32[16]", "s32[16]{0:T(128)}", 512);
  expect_layout("v5e", "u32[1]", "u32[1]{0:T(128)}", 512);
  expect_layout("v5e", "u32[256]", "u32[256]{0:T(256)}", 1024);
  expect_layout("v5e", "f32[512]", "f32[512]{0:T(512)}", 2048);
  expect_layout("v5e", "f32[8192]", "f32[8192]{0:T(1024)}", 32768);
  expect_layout("v5e", "f32[524288]", "f32[524288]{0:T(1024)}", 2097152);
  expect_layout("v5e", "bf16[6144]", "bf16[6144]{0:T(1024)(128)(2,1)}", 12288);
  expect_layout("v3", "f32[10]", "f32[10]{0:T(256)}", 1024); /* the mnist dump's T(256) */
  expect_layout("v5e", "u8[4096]{0}", "u8[4096]{0:T(1024)(128)(4,1)}", 4096);
}

static void test_scalars(void **state) {
  (void)state;
  expect_layout("v5e", "f32[]", "f32[]{:T(128)}", 512);
  expect_layout("v5e", "s32[]", "s32[]{:T(128)}", 512);
  expect_layout("v5e", "bf16[]", "bf16[]{:T(256)}", 512);
  expect_layout("v5e", "s8[]", "s8[]{:T(512)}", 512);
  expect_layout("v5e", "pred[]", "pred[]{:T(512)}", 512);
}

static void test_sub_byte_and_wide(void **state) {
  (void)state;
  expect_layout("v5e", "s4[9216,6144]", "s4[9216,6144]{1,0:T(64,128)(8,1)E(4)}", 28311552);
  expect_layout("v5e", "f64[8,128]", "f64[8,128]{1,0:T(8,128)}", 8192);
  expect_layout("8t", "f32[32,128]", "f32[32,128]{1,0:T(16,128)}", 16384); /* 16 sublanes */
}

static void test_given_tiles_and_tuples(void **state) {
  (void)state;
  expect_layout("7x", "bf16[32,128]{1,0:T(8,128)(2,1)}", "bf16[32,128]{1,0:T(8,128)(2,1)}", 8192);
  expect_layout("v5e", "(f32[8], s32[]{:T(256)}, token[])", "(f32[8]{0:T(128)}, s32[]{:T(256)}, token[])", 512 + 1024);
  expect_layout("v5e", "f32[8]{0:S(1)}", "f32[8]{0:T(128)S(1)}", 512);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_two_d),
      cmocka_unit_test(test_large_tiling_from_7x),
      cmocka_unit_test(test_compact_second_minor),
      cmocka_unit_test(test_minor_to_major_is_kept),
      cmocka_unit_test(test_one_d),
      cmocka_unit_test(test_scalars),
      cmocka_unit_test(test_sub_byte_and_wide),
      cmocka_unit_test(test_given_tiles_and_tuples),
  };
  return RUN(tests);
}
