/* The generation table: names, aliases, and that every value has a source. */
#include <stdio.h>

#include "test.h"

static void expect_alias(const char *alias, const char *name) {
  const vmem_target *t = vmem_target_find(alias, strlen(alias));
  if (!t)
    fail_msg("alias '%s' not found", alias);
  assert_string_equal(vmem_target_name(t), name);
}

static void test_aliases(void **state) {
  (void)state;
  static const char *const pairs[][2] = {
      {"v2", "v2"},         {"v3", "v3"},      {"v4", "v4"},           {"v5e", "v5e"},         {"V5E", "v5e"},
      {"v5litepod", "v5e"}, {"v5lite", "v5e"}, {"TPU v5 lite", "v5e"}, {"tpu-v5-lite", "v5e"}, {"v5p", "v5p"},
      {"TPU v5", "v5p"},    {"v6e", "v6e"},    {"trillium", "v6e"},    {"Trillium", "v6e"},    {"TPU v6 lite", "v6e"},
      {"7x", "7x"},         {"v7x", "7x"},     {"tpu7x", "7x"},        {"TPU7x", "7x"},        {"ironwood", "7x"},
      {"IRONWOOD", "7x"},   {"8i", "8i"},      {"tpu8i", "8i"},        {"8t", "8t"},
  };
  for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++)
    expect_alias(pairs[i][0], pairs[i][1]);
  assert_null(vmem_target_find("v9", 2));
  assert_null(vmem_target_find("", 0));
  assert_null(vmem_target_find("v5", 2)); /* ambiguous between v5e and v5p */
  assert_null(vmem_target_find(NULL, 0));
}

static void test_every_target_is_complete(void **state) {
  (void)state;
  static const vmem_fact_id required[] = {
      VMEM_FACT_VMEM_BYTES, VMEM_FACT_SMEM_BYTES,      VMEM_FACT_SCOPED_DEFAULT_BYTES,
      VMEM_FACT_HBM_BYTES,  VMEM_FACT_HBM_BYTES_PER_S, VMEM_FACT_BF16_FLOPS,
      VMEM_FACT_MXU_DIM,    VMEM_FACT_CORES_PER_CHIP,  VMEM_FACT_VREG_SUBLANES,
      VMEM_FACT_VREG_LANES};
  assert_true(vmem_target_count() >= 7);
  for (size_t i = 0; i < vmem_target_count(); i++) {
    const vmem_target *t = vmem_target_at(i);
    for (size_t k = 0; k < sizeof required / sizeof *required; k++) {
      const vmem_fact *f = vmem_target_fact(t, required[k]);
      if (!f)
        fail_msg("%s lacks %s", vmem_target_name(t), vmem_fact_name(required[k]));
      assert_true(f->value > 0);
      assert_true(strlen(f->source) > 5);
    }
    /* The default limit is a share of physical VMEM, never more. */
    assert_true(vmem_target_u64(t, VMEM_FACT_SCOPED_DEFAULT_BYTES) <= vmem_target_u64(t, VMEM_FACT_VMEM_BYTES));
    /* Every target finds itself by its own name and device kind. */
    const char *n = vmem_target_name(t), *dk = vmem_target_device_kind(t);
    assert_ptr_equal(vmem_target_find(n, strlen(n)), t);
    assert_ptr_equal(vmem_target_find(dk, strlen(dk)), t);
  }
  assert_null(vmem_target_at(vmem_target_count()));
}

static void test_known_values(void **state) {
  (void)state;
  const vmem_target *v5e = vmem_target_find("v5e", 3), *v7 = vmem_target_find("7x", 2);
  assert_int_equal(vmem_target_u64(v5e, VMEM_FACT_VMEM_BYTES), 128u << 20);
  assert_int_equal(vmem_target_u64(v5e, VMEM_FACT_SCOPED_DEFAULT_BYTES), 16u << 20);
  assert_int_equal(vmem_target_u64(v5e, VMEM_FACT_INTERNAL_SCRATCH_BYTES), 73728);
  assert_int_equal(vmem_target_u64(v7, VMEM_FACT_VMEM_BYTES), 64u << 20);
  assert_int_equal(vmem_target_u64(v7, VMEM_FACT_SCOPED_DEFAULT_BYTES), 32u << 20);
  assert_int_equal(vmem_target_generation(v7), 7);
  /* A conflict resolved in the table names the rejected value. */
  const vmem_fact *f = vmem_target_fact(v5e, VMEM_FACT_VMEM_BYTES);
  assert_non_null(f->note);
  assert_non_null(strstr(f->note, "64 MiB"));
  assert_int_equal(vmem_target_fact(v5e, VMEM_FACT_SCOPED_DEFAULT_BYTES)->provenance, VMEM_PROV_OBSERVED);
  assert_null(vmem_target_fact(v5e, VMEM_FACT_FP8_FLOPS));
  assert_int_equal(vmem_target_u64(v5e, VMEM_FACT_FP8_FLOPS), 0);
  assert_null(vmem_target_fact(v5e, VMEM_FACT_COUNT));
  assert_string_equal(vmem_fact_name(VMEM_FACT_VMEM_BYTES), "vmem_bytes");
  assert_string_equal(vmem_fact_unit(VMEM_FACT_HBM_BYTES_PER_S), "bytes/s");
  assert_string_equal(vmem_provenance_name(VMEM_PROV_OBSERVED), "observed");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_aliases),
      cmocka_unit_test(test_every_target_is_complete),
      cmocka_unit_test(test_known_values),
  };
  return RUN(tests);
}
