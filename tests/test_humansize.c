/* Sizes printed as the compiler prints them, and the reverse mapping. */
#include <stdio.h>
#include <stdlib.h>

#include "test.h"

static void expect_format(int64_t bytes, const char *want) {
  char buf[32];
  size_t n = vmem_format_bytes(bytes, buf, sizeof buf);
  assert_string_equal(buf, want);
  assert_int_equal(n, strlen(want));
}

static void test_format_examples(void **state) {
  (void)state;
  expect_format(0, "0B");
  expect_format(512, "512B");
  expect_format(1023, "1023B");
  expect_format(1024, "1.0K");
  expect_format(1536, "1.5K");
  expect_format(65536, "64.0K");
  expect_format(3072, "3.0K");
  expect_format(62464, "61.0K");
  expect_format(16777216, "16.00M");
  expect_format(23592960, "22.50M");
  expect_format(34359738368LL, "32.00G");
  expect_format(1048575, "1024.0K"); /* just under 1 MiB stays in K */
  expect_format(1048576, "1.00M");
  expect_format(-2048, "-2.0K");
  expect_format(INT64_MIN, "-8E");
  expect_format(INT64_MAX, "8.00E");
}

static void test_format_truncates_like_snprintf(void **state) {
  (void)state;
  char buf[4];
  size_t n = vmem_format_bytes(16777216, buf, sizeof buf);
  assert_int_equal(n, 6);
  assert_string_equal(buf, "16.");
}

static void expect_interval(const char *s, uint64_t lo, uint64_t hi) {
  uint64_t a, b;
  vmem_error err;
  assert_int_equal(vmem_parse_human_bytes(s, strlen(s), &a, &b, &err), VMEM_OK);
  assert_int_equal(a, lo);
  assert_int_equal(b, hi);
}

static void test_parse_intervals(void **state) {
  (void)state;
  expect_interval("512B", 512, 512);
  expect_interval("65536", 65536, 65536);
  /* 64.0K: v/1024 rounds to 64.0 with one decimal. */
  expect_interval("64.0K", 65485, 65587);
  /* 16.00M: the KiB count (bytes/1024, truncated) / 1024 rounds to 16.00. */
  expect_interval("16.00M", 16772096, 16783359);
}

/* Every interval is tight: its ends print as the text, their neighbours do
 * not. Checked over a spread of byte counts. */
static void test_parse_inverts_format(void **state) {
  (void)state;
  uint64_t x = 88172645463325252ULL;
  for (int i = 0; i < 2000; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    int64_t b = (int64_t)(x >> (i % 63 + 1));
    char s[32], t[32];
    vmem_format_bytes(b, s, sizeof s);
    uint64_t lo, hi;
    vmem_error err;
    assert_int_equal(vmem_parse_human_bytes(s, strlen(s), &lo, &hi, &err), VMEM_OK);
    assert_true(lo <= (uint64_t)b && (uint64_t)b <= hi);
    vmem_format_bytes((int64_t)lo, t, sizeof t);
    assert_string_equal(s, t);
    vmem_format_bytes((int64_t)hi, t, sizeof t);
    assert_string_equal(s, t);
    if (lo > 0) {
      vmem_format_bytes((int64_t)lo - 1, t, sizeof t);
      assert_string_not_equal(s, t);
    }
    if (hi < (uint64_t)INT64_MAX) {
      vmem_format_bytes((int64_t)hi + 1, t, sizeof t);
      assert_string_not_equal(s, t);
    }
  }
}

static void expect_parse_error(const char *s, vmem_status code, size_t offset) {
  uint64_t lo, hi;
  vmem_error err;
  assert_int_equal(vmem_parse_human_bytes(s, strlen(s), &lo, &hi, &err), code);
  assert_int_equal(err.code, code);
  assert_int_equal(err.offset, offset);
}

static void test_parse_errors(void **state) {
  (void)state;
  expect_parse_error("", VMEM_ERR_SYNTAX, 0);
  expect_parse_error("64K", VMEM_ERR_SYNTAX, 2);   /* K needs one decimal */
  expect_parse_error("16.0M", VMEM_ERR_SYNTAX, 4); /* M needs two */
  expect_parse_error("1.5B", VMEM_ERR_SYNTAX, 3);
  expect_parse_error("12Q", VMEM_ERR_SYNTAX, 2);
  expect_parse_error("64.0KiB", VMEM_ERR_SYNTAX, 4);
  expect_parse_error("0.5K", VMEM_ERR_RANGE, 0);
  expect_parse_error("04.0K", VMEM_ERR_SYNTAX, 0);    /* found by fuzz_humansize */
  expect_parse_error("5565335.", VMEM_ERR_SYNTAX, 8); /* no unit: found by fuzz_humansize */
  expect_parse_error("12.5", VMEM_ERR_SYNTAX, 4);     /* below 1024 prints as B */
  expect_parse_error("99999999999999999999", VMEM_ERR_OVERFLOW, 19);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_format_examples), cmocka_unit_test(test_format_truncates_like_snprintf),
      cmocka_unit_test(test_parse_intervals), cmocka_unit_test(test_parse_inverts_format),
      cmocka_unit_test(test_parse_errors),
  };
  return RUN(tests);
}
