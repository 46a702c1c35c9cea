/* Limit resolution: default <- flag <- vmem_limit_bytes, and its warnings. */
#include <stdio.h>

#include "test.h"

static const vmem_target *target(const char *n) { return vmem_target_find(n, strlen(n)); }

static vmem_limits resolve(const char *t, const char *lib, const char *xla, const char *flags, int64_t kernel) {
  vmem_limit_inputs in = {lib, xla, flags, kernel};
  vmem_limits l;
  vmem_error err;
  if (vmem_limits_resolve(target(t), &in, &l, &err) != VMEM_OK)
    fail_msg("resolve: %s", err.message);
  return l;
}

static bool has_warning(const vmem_limits *l, vmem_limit_warning_code c) {
  for (size_t i = 0; i < l->warning_count; i++)
    if (l->warnings[i].code == c)
      return true;
  return false;
}

static void test_default(void **state) {
  (void)state;
  vmem_limits l = resolve("v5e", NULL, NULL, NULL, -1);
  assert_int_equal(l.effective_bytes, 16u << 20);
  assert_int_equal(l.origin, VMEM_LIMIT_DEFAULT);
  assert_int_equal(l.physical_bytes, 128u << 20);
  assert_false(l.has_flag);
  assert_int_equal(l.warning_count, 0);
  l = resolve("v6e", "", "", "", -1);
  assert_int_equal(l.effective_bytes, 32u << 20);
}

static void test_flag_from_libtpu_init_args(void **state) {
  (void)state;
  vmem_limits l = resolve("v5e", "--foo=1 --xla_tpu_scoped_vmem_limit_kib=65536 --bar", NULL, NULL, -1);
  assert_int_equal(l.effective_bytes, 64u << 20);
  assert_int_equal(l.origin, VMEM_LIMIT_FLAG);
  assert_string_equal(l.flag_origin, "LIBTPU_INIT_ARGS");
  assert_true(l.flag_applied);
  assert_int_equal(l.warning_count, 0);
  /* "--flag value" is accepted too. */
  l = resolve("v5e", "--xla_tpu_scoped_vmem_limit_kib 32768", NULL, NULL, -1);
  assert_int_equal(l.effective_bytes, 32u << 20);
  /* A longer flag that starts the same way is another flag. */
  l = resolve("v5e", "--xla_tpu_scoped_vmem_limit_kib_extra=1", NULL, NULL, -1);
  assert_false(l.has_flag);
}

static void test_xla_flags_only_is_not_applied(void **state) {
  (void)state;
  vmem_limits l = resolve("v5e", NULL, "--xla_tpu_scoped_vmem_limit_kib=65536", NULL, -1);
  assert_true(l.has_flag);
  assert_false(l.flag_applied);
  assert_string_equal(l.flag_origin, "XLA_FLAGS");
  assert_int_equal(l.effective_bytes, 16u << 20);
  assert_true(has_warning(&l, VMEM_WARN_XLA_FLAGS_ONLY));
}

static void test_precedence_and_duplicates(void **state) {
  (void)state;
  vmem_limits l = resolve("v6e", "--xla_tpu_scoped_vmem_limit_kib=65536", "--xla_tpu_scoped_vmem_limit_kib=1000",
                          "--xla_tpu_scoped_vmem_limit_kib=98304", -1);
  assert_int_equal(l.effective_bytes, 98304u * 1024);
  assert_string_equal(l.flag_origin, "--flags");
  assert_true(has_warning(&l, VMEM_WARN_OVERRIDDEN));
  l = resolve("v6e", "--xla_tpu_scoped_vmem_limit_kib=4096 --xla_tpu_scoped_vmem_limit_kib=8192", NULL, NULL, -1);
  assert_int_equal(l.effective_bytes, 8192u * 1024); /* the last wins */
  assert_true(has_warning(&l, VMEM_WARN_DUPLICATE));
  l = resolve("v6e", "---xla_tpu_scoped_vmem_limit_kib=65536", NULL, NULL, -1);
  assert_int_equal(l.effective_bytes, 64u << 20);
  assert_true(has_warning(&l, VMEM_WARN_DASHES));
  l = resolve("v6e", "--xla_tpu_scoped_vmem_limit_kib=1024", NULL, NULL, -1);
  assert_true(has_warning(&l, VMEM_WARN_BELOW_RANGE));
  /* libtpu aborts on a reduce-window at 4096 KiB and compiles at 4097 */
  l = resolve("v6e", "--xla_tpu_scoped_vmem_limit_kib=4096", NULL, NULL, -1);
  assert_true(has_warning(&l, VMEM_WARN_BELOW_RANGE));
  assert_non_null(strstr(l.warnings[0].message, "reduce-window"));
  l = resolve("v6e", "--xla_tpu_scoped_vmem_limit_kib=4097", NULL, NULL, -1);
  assert_false(has_warning(&l, VMEM_WARN_BELOW_RANGE));
}

static void test_kernel_request(void **state) {
  (void)state;
  vmem_limits l = resolve("v5e", NULL, NULL, NULL, 100 << 20);
  assert_int_equal(l.effective_bytes, 100u << 20);
  assert_int_equal(l.origin, VMEM_LIMIT_KERNEL);
  assert_true(has_warning(&l, VMEM_WARN_KERNEL_ABOVE_FLAG));
  assert_false(has_warning(&l, VMEM_WARN_ABOVE_PHYSICAL));
  l = resolve("7x", NULL, NULL, NULL, 128 << 20);
  assert_int_equal(l.effective_bytes, 128u << 20); /* reported, not clamped */
  assert_true(has_warning(&l, VMEM_WARN_ABOVE_PHYSICAL));
  l = resolve("7x", "--xla_tpu_scoped_vmem_limit_kib=131072", NULL, NULL, -1);
  assert_true(has_warning(&l, VMEM_WARN_ABOVE_PHYSICAL));
  l = resolve("v5e", NULL, NULL, NULL, 0);
  assert_int_equal(l.effective_bytes, 0);
}

static void expect_error(const char *lib, vmem_status code, size_t offset) {
  vmem_limit_inputs in = {lib, NULL, NULL, -1};
  vmem_limits l;
  vmem_error err;
  assert_int_equal(vmem_limits_resolve(target("v5e"), &in, &l, &err), code);
  assert_int_equal(err.offset, offset);
  assert_non_null(strstr(err.message, "LIBTPU_INIT_ARGS"));
}

static void test_malformed(void **state) {
  (void)state;
  expect_error("--xla_tpu_scoped_vmem_limit_kib=12x", VMEM_ERR_SYNTAX, 34);
  expect_error("--xla_tpu_scoped_vmem_limit_kib=", VMEM_ERR_SYNTAX, 32);
  expect_error("--xla_tpu_scoped_vmem_limit_kib=-5", VMEM_ERR_SYNTAX, 32);
  expect_error("--xla_tpu_scoped_vmem_limit_kib", VMEM_ERR_SYNTAX, 31);
  expect_error("--xla_tpu_scoped_vmem_limit_kib=99999999999999999999", VMEM_ERR_OVERFLOW, 32);
  expect_error("--xla_tpu_scoped_vmem_limit_kib=18014398509481984", VMEM_ERR_OVERFLOW, 32);
  vmem_limits l;
  vmem_error err;
  vmem_limit_inputs in = {NULL, NULL, NULL, -1};
  assert_int_equal(vmem_limits_resolve(NULL, &in, &l, &err), VMEM_ERR_ARGUMENT);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_default),
      cmocka_unit_test(test_flag_from_libtpu_init_args),
      cmocka_unit_test(test_xla_flags_only_is_not_applied),
      cmocka_unit_test(test_precedence_and_duplicates),
      cmocka_unit_test(test_kernel_request),
      cmocka_unit_test(test_malformed),
  };
  return RUN(tests);
}
