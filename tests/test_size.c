/* Exact byte sizes by XLA's ArraySize rule, worked by hand. */
#include <stdio.h>

#include "test.h"

static void expect_size(const char *in, uint64_t bytes, uint64_t unpadded) {
  vmem_error err;
  vmem_shape *s = vmem_shape_parse(in, strlen(in), NULL, &err);
  if (!s)
    fail_msg("parse '%s': %s", in, err.message);
  vmem_size z;
  if (vmem_shape_size(s, &z, &err) != VMEM_OK)
    fail_msg("size '%s': %s", in, err.message);
  if (z.bytes != bytes || z.unpadded_bytes != unpadded)
    fail_msg("'%s': got %llu/%llu, want %llu/%llu", in, (unsigned long long)z.bytes,
             (unsigned long long)z.unpadded_bytes, (unsigned long long)bytes, (unsigned long long)unpadded);
  vmem_shape_free(s);
}

static void test_untiled(void **state) {
  (void)state;
  expect_size("f32[128,6]{1,0}", 3072, 3072); /* no tiles: ByteSizeOfElements */
  expect_size("f32[]", 4, 4);
  expect_size("pred[10]", 10, 10);
  expect_size("s4[3]", 3, 3);         /* one byte each without E(4) */
  expect_size("s4[3]{0:E(4)}", 2, 2); /* ceil(12 bits / 8) */
  expect_size("c128[2]", 32, 32);
  expect_size("token[]", 0, 0);
  expect_size("f32[<=10]", 40, 40); /* bounded: at the bound */
  expect_size("f32[0,128]{1,0:T(8,128)}", 0, 0);
}

static void test_first_tile_pads(void **state) {
  (void)state;
  expect_size("f32[128,6]{1,0:T(8,128)}", 65536, 3072);              /* 6 -> 128 */
  expect_size("f32[3,5]{1,0:T(2,2)}", 96, 60);                       /* 4 x 6 x 4 */
  expect_size("bf16[129,1024]{1,0:T(8,128)(2,1)}", 278528, 264192);  /* 136 rows */
  expect_size("bf16[129,1024]{1,0:T(16,128)(2,1)}", 294912, 264192); /* 144 rows */
  expect_size("bf16[3,5]{1,0:T(8,128)(2,1)}", 2048, 30);
  /* minor_to_major {0,2,1}: dim 0 (14) is most minor, dim 2 (100) next. */
  expect_size("f32[14,40,100]{0,2,1:T(8,128)}", 2129920, 224000);
  expect_size("u8[327680,327680]{1,0:T(8,128)(4,1)}", 107374182400ULL, 107374182400ULL);
  expect_size("f32[32,4096,4096]{1,2,0:T(8,128)}", 2147483648ULL, 2147483648ULL);
}

static void test_missing_dims_count_as_one(void **state) {
  (void)state;
  expect_size("f32[]{:T(128)}", 512, 4);
  expect_size("s32[]{:T(128)}", 512, 4);
  expect_size("u32[]{:T(256)}", 1024, 4);
  expect_size("pred[]{:T(512)}", 512, 1);
  expect_size("f32[5]{0:T(8,128)}", 4096, 20); /* the tile's row dim pads a missing dim */
}

static void test_tail_alignment_and_bits(void **state) {
  (void)state;
  expect_size("f32[5]{0:L(8)}", 20, 20);      /* L only applies with tiles */
  expect_size("f32[5]{0:T(4)L(16)}", 64, 20); /* 8 elements -> 16 */
  expect_size("s4[9216,6144]{1,0:T(64,128)(8,1)E(4)}", 28311552, 28311552);
  expect_size("s4[1,1]{1,0:T(64,128)(8,1)E(4)}", 4096, 1);
  expect_size("pred[8,8]{1,0:T(8,128)E(32)}", 4096, 256);
  expect_size("bf16[2,3,1004]{2,1,0:T(2,*,128)}", 12288, 12048); /* '*' adds no padding */
  expect_size("f32[7,300]{1,0:T(8,128)(2,1)}", 12288, 8400);     /* sub-tiles add none */
}

static void test_tuples_sum_their_leaves(void **state) {
  (void)state;
  expect_size("(f32[128,6]{1,0:T(8,128)}, s32[]{:T(128)})", 65536 + 512, 3072 + 4);
  expect_size("((f32[2]), ())", 8, 8);
}

static void expect_size_error(const char *in, vmem_status code) {
  vmem_error err;
  vmem_shape *s = vmem_shape_parse(in, strlen(in), NULL, &err);
  assert_non_null(s);
  vmem_size z;
  assert_int_equal(vmem_shape_size(s, &z, &err), code);
  assert_int_equal(err.code, code);
  vmem_shape_free(s);
}

static void test_overflow_is_an_error(void **state) {
  (void)state;
  expect_size_error("f32[9223372036854775807,2]", VMEM_ERR_OVERFLOW);
  expect_size_error("u8[4294967296,4294967296]", VMEM_ERR_OVERFLOW);
  expect_size_error("u8[4611686018427387904,2]", VMEM_ERR_OVERFLOW); /* 2^63: above int64 */
  expect_size_error("f32[9223372036854775807]{0:T(1024)}", VMEM_ERR_OVERFLOW);
  expect_size_error("(u8[9223372036854775807], u8[9223372036854775807])", VMEM_ERR_OVERFLOW);
  expect_size_error("f32[?]", VMEM_ERR_UNSUPPORTED);
  expect_size_error("opaque[]", VMEM_ERR_UNSUPPORTED);
  /* Large but representable: 96 GiB of f32 in host memory. */
  expect_size("f32[25769803776]{0:T(1024)S(5)}", 103079215104ULL, 103079215104ULL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_untiled),
      cmocka_unit_test(test_first_tile_pads),
      cmocka_unit_test(test_missing_dims_count_as_one),
      cmocka_unit_test(test_tail_alignment_and_bits),
      cmocka_unit_test(test_tuples_sum_their_leaves),
      cmocka_unit_test(test_overflow_is_an_error),
  };
  return RUN(tests);
}
