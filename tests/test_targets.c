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

/* ## A target from facts alone (issue 40: no rule keys on the generation) */

static const char *const fixtures[] = {
    "body_value_attention.mlir",
    "body_value_bcast.mlir",
    "body_value_fp8.mlir",
    "body_value_heads.mlir",
    "body_value_matmul.mlir",
    "body_value_reduction.mlir",
    "body_value_reshape.mlir",
    "body_value_transpose.mlir",
    "body_value_widen.mlir",
    "fit_mm.mlir",
    "k_modes.mlir",
};
enum { NFIX = sizeof fixtures / sizeof *fixtures };

static vmem_kernel *fixture(size_t i) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", GOLDEN_DIR, fixtures[i]);
  size_t len = 0;
  char *text = test_read_file(path, &len);
  if (!text)
    fail_msg("cannot read %s", path);
  vmem_error e;
  vmem_kernel *k = vmem_kernel_from_mlir(text, len, NULL, &e);
  free(text);
  if (!k)
    fail_msg("%s: %s", fixtures[i], e.message);
  return k;
}

/* A copy of t made from its facts alone, with one fact changed (id < 0: none). */
static vmem_target *copy_of(const vmem_target *t, int id, double value) {
  vmem_fact facts[VMEM_FACT_COUNT] = {0};
  for (int f = 0; f < VMEM_FACT_COUNT; f++) {
    const vmem_fact *x = vmem_target_fact(t, (vmem_fact_id)f);
    if (x)
      facts[f] = *x;
  }
  if (id >= 0)
    facts[id] = (vmem_fact){value, VMEM_PROV_DERIVED, "test", NULL};
  vmem_error e;
  vmem_target *c = vmem_target_new("fake", facts, VMEM_FACT_COUNT, NULL, &e);
  if (!c)
    fail_msg("vmem_target_new: %s", e.message);
  return c;
}

static void sizes_of(const vmem_kernel *k, const vmem_target *t, uint64_t out[4]) {
  vmem_footprint f;
  vmem_error e;
  if (vmem_kernel_footprint(k, t, NULL, &f, &e) != VMEM_OK)
    fail_msg("footprint: %s", e.message);
  out[0] = f.scoped_bytes, out[1] = f.modelled_bytes, out[2] = f.modelled_high_bytes, out[3] = f.stack_bytes;
  vmem_footprint_free(&f);
}

/* Every table target, rebuilt from its facts, sizes every fixture kernel and
 * lays out every shape as the target itself does: nothing but the facts
 * decides. */
static void test_fake_target_from_facts(void **state) {
  (void)state;
  static const char *const shapes[] = {"bf16[1,1024]", "s8[40,256]",  "bf16[24,384]",
                                       "f32[10]",      "pred[3,128]", "s4[64,128]"};
  for (size_t i = 0; i < vmem_target_count(); i++) {
    const vmem_target *t = vmem_target_at(i);
    vmem_target *fake = copy_of(t, -1, 0);
    assert_int_equal(vmem_target_generation(fake), 0);
    for (size_t j = 0; j < NFIX; j++) {
      vmem_kernel *k = fixture(j);
      uint64_t a[4], b[4];
      sizes_of(k, t, a);
      sizes_of(k, fake, b);
      if (memcmp(a, b, sizeof a))
        fail_msg("%s on %s and on its facts: scoped %llu/%llu modelled %llu/%llu", fixtures[j], vmem_target_name(t),
                 (unsigned long long)a[0], (unsigned long long)b[0], (unsigned long long)a[1],
                 (unsigned long long)b[1]);
      vmem_kernel_free(k);
    }
    for (size_t j = 0; j < sizeof shapes / sizeof *shapes; j++) {
      vmem_error e;
      vmem_shape *s = vmem_shape_parse(shapes[j], strlen(shapes[j]), NULL, &e);
      vmem_shape *x = vmem_shape_with_tpu_layout(s, t, NULL, &e), *y = vmem_shape_with_tpu_layout(s, fake, NULL, &e);
      vmem_size zx, zy;
      assert_int_equal(vmem_shape_size(x, &zx, &e), VMEM_OK);
      assert_int_equal(vmem_shape_size(y, &zy, &e), VMEM_OK);
      assert_int_equal(zx.bytes, zy.bytes);
      vmem_shape_free(x), vmem_shape_free(y), vmem_shape_free(s);
    }
    vmem_target_free(fake);
  }
}

/* And a fact changed changes the behaviour it names, on a target of its own. */
static void test_a_fact_decides(void **state) {
  (void)state;
  const vmem_target *v6e = vmem_target_find("v6e", 3);
  static const struct {
    vmem_fact_id id;
    double value;
  } flips[] = {{VMEM_FACT_BF16_IN_F32, 1},
               {VMEM_FACT_KEPT_SPARED_BYTES, 0},
               {VMEM_FACT_ROW_BROADCAST_TILE, 1},
               {VMEM_FACT_TRANSPOSE16_KEPT_BYTES, 0}};
  for (size_t f = 0; f < sizeof flips / sizeof *flips; f++) {
    vmem_target *fake = copy_of(v6e, (int)flips[f].id, flips[f].value);
    bool changed = false;
    for (size_t j = 0; j < NFIX && !changed; j++) {
      vmem_kernel *k = fixture(j);
      uint64_t a[4], b[4];
      sizes_of(k, v6e, a);
      sizes_of(k, fake, b);
      changed = memcmp(a, b, sizeof a) != 0;
      vmem_kernel_free(k);
    }
    if (!changed)
      fail_msg("%s changed on v6e changes no fixture's footprint", vmem_fact_name(flips[f].id));
    vmem_target_free(fake);
  }
  /* The tiling facts decide the layout: 16-bit rows tiled large on a v6e
   * told it takes 7x's tiling. */
  vmem_target *large = copy_of(v6e, VMEM_FACT_LARGE_TILING_NARROW, 1);
  vmem_error e;
  vmem_shape *s = vmem_shape_parse("bf16[48,256]", 12, NULL, &e);
  vmem_shape *x = vmem_shape_with_tpu_layout(s, v6e, NULL, &e), *y = vmem_shape_with_tpu_layout(s, large, NULL, &e);
  char a[64], b[64];
  vmem_shape_print(x, a, sizeof a);
  vmem_shape_print(y, b, sizeof b);
  assert_string_equal(a, "bf16[48,256]{1,0:T(8,128)(2,1)}");
  assert_string_equal(b, "bf16[48,256]{1,0:T(16,128)(2,1)}");
  vmem_shape_free(x), vmem_shape_free(y), vmem_shape_free(s);
  vmem_target_free(large);
  assert_null(vmem_target_new(NULL, NULL, 0, NULL, &e));
  assert_int_equal(e.code, VMEM_ERR_ARGUMENT);
  vmem_fact many[VMEM_FACT_COUNT + 1] = {{0}};
  assert_null(vmem_target_new("x", many, VMEM_FACT_COUNT + 1, NULL, &e));
  assert_int_equal(e.code, VMEM_ERR_RANGE);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_aliases),        cmocka_unit_test(test_every_target_is_complete),
      cmocka_unit_test(test_known_values),   cmocka_unit_test(test_fake_target_from_facts),
      cmocka_unit_test(test_a_fact_decides),
  };
  return RUN(tests);
}
