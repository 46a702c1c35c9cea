/* The caller's allocator: every byte taken is given back, and an allocator
 * that fails gives a NOMEM error, never a crash or a leak. */
#include <stdlib.h>

#include "test.h"

static const char *const inputs[] = {
    "bf16[2048,4096]{1,0:T(8,128)(2,1)}",
    "(f32[8]{0}, (s32[], u8[1,2,3,4,5,6,7,8,9,10]{9,8,7,6,5,4,3,2,1,0:T(8,128)(4,1)S(1)}), token[])",
    "f32[8,8]{0,1:D(D,C)T(8,128)L(1024)#(s32)*(s64)E(32)S(1)SC(0:2)P(f32[64]{0})M(16)}",
    "f32[8]{0:T(1,2,3,4,5,6,7,8,9,10,11,12)(1)(2)(3)(4)(5)(6)(7)(8)(9)(10)}",
};

static void test_everything_is_freed(void **state) {
  (void)state;
  const vmem_target *t = vmem_target_find("v5e", 3);
  for (size_t i = 0; i < sizeof inputs / sizeof *inputs; i++) {
    counting c = {0, 0, -1};
    vmem_allocator a = {c_alloc, c_free, &c};
    vmem_error err;
    vmem_shape *s = vmem_shape_parse(inputs[i], strlen(inputs[i]), &a, &err);
    assert_non_null(s);
    vmem_shape *l = vmem_shape_with_tpu_layout(s, t, &a, &err);
    assert_non_null(l);
    assert_true(c.calls > 0);
    vmem_shape_free(s);
    vmem_shape_free(l);
    assert_int_equal(c.live, 0);
  }
}

static void test_failing_allocator(void **state) {
  (void)state;
  const vmem_target *t = vmem_target_find("v5e", 3);
  for (size_t i = 0; i < sizeof inputs / sizeof *inputs; i++) {
    for (long k = 0; k < 8; k++) {
      counting c = {0, 0, k};
      vmem_allocator a = {c_alloc, c_free, &c};
      vmem_error err;
      vmem_shape *s = vmem_shape_parse(inputs[i], strlen(inputs[i]), &a, &err);
      if (s) {
        vmem_shape *l = vmem_shape_with_tpu_layout(s, t, &a, &err);
        if (!l)
          assert_int_equal(err.code, VMEM_ERR_NOMEM);
        vmem_shape_free(l);
        vmem_shape_free(s);
      } else {
        assert_int_equal(err.code, VMEM_ERR_NOMEM);
      }
      assert_int_equal(c.live, 0);
    }
  }
}

/* A footprint and a program copy the allocator they were made with: each
 * is freed after the kernel, the module and the caller's allocator struct
 * are gone (they kept pointers once, a use after free under ASan). */
static void test_results_outlive_their_makers(void **state) {
  (void)state;
  const vmem_target *t = vmem_target_find("v5e", 3);
  counting c = {0, 0, -1};
  static const char spec[] = "{\"grid\":[4],\"in_specs\":[{\"array\":\"f32[512,128]\",\"block\":[128,128],"
                             "\"index_map\":[\"i\",0]}],\"grid_axes\":[\"i\"]}";
  static const char hlo[] = "HloModule m\nENTRY %e (p: f32[8]) -> f32[8] {\n  %p = f32[8]{0} parameter(0)\n"
                            "  ROOT %n = f32[8]{0} negate(%p)\n}\n";
  vmem_error err;
  vmem_footprint f;
  vmem_program pr;
  {
    vmem_allocator *a = malloc(sizeof *a);
    assert_non_null(a);
    *a = (vmem_allocator){c_alloc, c_free, &c};
    vmem_kernel *k = vmem_kernel_from_spec(spec, strlen(spec), a, &err);
    assert_non_null(k);
    assert_int_equal(vmem_kernel_footprint(k, t, NULL, &f, &err), VMEM_OK);
    vmem_kernel_free(k);
    vmem_hlo_module *m = vmem_hlo_parse(hlo, strlen(hlo), a, &err);
    assert_non_null(m);
    assert_int_equal(vmem_hlo_program_vmem(m, t, NULL, &pr, a, &err), VMEM_OK);
    vmem_hlo_free(m);
    memset(a, 0xA5, sizeof *a); /* what a freed or reused struct may hold */
    free(a);
  }
  assert_true(c.live > 0);
  vmem_footprint_free(&f);
  vmem_program_free(&pr);
  assert_int_equal(c.live, 0);
}

/* Each reader as one signature, for the failing-allocator loop below. */
typedef void *(*reader)(const char *text, size_t len, const vmem_allocator *a, vmem_error *err);
static void *read_bytecode(const char *t, size_t n, const vmem_allocator *a, vmem_error *e) {
  return vmem_kernel_from_bytecode(t, n, a, e);
}
static void *read_mlir(const char *t, size_t n, const vmem_allocator *a, vmem_error *e) {
  return vmem_kernel_from_mlir(t, n, a, e);
}
static void *read_hlo(const char *t, size_t n, const vmem_allocator *a, vmem_error *e) {
  return vmem_hlo_parse(t, n, a, e);
}
static void *read_stablehlo(const char *t, size_t n, const vmem_allocator *a, vmem_error *e) {
  return vmem_stablehlo_parse(t, n, a, e);
}
static void free_kernel(void *k) { vmem_kernel_free(k); }
static void free_hlo(void *m) { vmem_hlo_free(m); }
static void free_stablehlo(void *m) { vmem_stablehlo_free(m); }

/* Reads `path` under an allocator that fails at its k-th call, for every k
 * until it does not: each failure must be NOMEM with every byte given back. */
static void fail_each_allocation(const char *path, reader read, void (*release)(void *)) {
  FILE *fp = fopen(path, "rb");
  assert_non_null(fp);
  static char in[1 << 20];
  size_t n = fread(in, 1, sizeof in, fp);
  fclose(fp);
  long k = 0;
  for (;; k++) {
    counting c = {0, 0, k};
    vmem_allocator a = {c_alloc, c_free, &c};
    vmem_error err;
    void *got = read(in, n, &a, &err);
    if (got) {
      release(got);
      assert_int_equal(c.live, 0);
      break;
    }
    if (err.code != VMEM_ERR_NOMEM)
      fail_msg("%s, allocation %ld failing: %s (%s)", path, k, vmem_status_name(err.code), err.message);
    assert_int_equal(c.live, 0);
    assert_true(k < 100000);
  }
  assert_true(k > 0);
}

/* A Mosaic kernel from bytecode and from MLIR text: the decoder, the text it
 * prints through a buffer that grows, the reader and the body walk. */
static void test_kernel_readers_under_failing_allocator(void **state) {
  (void)state;
  fail_each_allocation(GOLDEN_DIR "/body_value_attention.mlirbc", read_bytecode, free_kernel);
  fail_each_allocation(GOLDEN_DIR "/body_value_attention.mlir", read_mlir, free_kernel);
}

/* The module readers: an HLO module with a Pallas kernel in its
 * backend_config, and StableHLO with its custom calls. */
static void test_module_readers_under_failing_allocator(void **state) {
  (void)state;
  fail_each_allocation(GOLDEN_DIR "/kernel.hlo", read_hlo, free_hlo);
  fail_each_allocation(GOLDEN_DIR "/../../examples/jit_model.stablehlo.mlir", read_stablehlo, free_stablehlo);
}

static void test_null_arguments(void **state) {
  (void)state;
  vmem_error err;
  assert_null(vmem_shape_parse(NULL, 0, NULL, &err));
  assert_int_equal(err.code, VMEM_ERR_ARGUMENT);
  assert_null(vmem_shape_with_tpu_layout(NULL, NULL, NULL, &err));
  vmem_size z;
  assert_int_equal(vmem_shape_size(NULL, &z, &err), VMEM_ERR_ARGUMENT);
  vmem_shape_free(NULL);
  /* A NULL error pointer is allowed everywhere. */
  assert_null(vmem_shape_parse("x", 1, NULL, NULL));
  assert_string_equal(vmem_status_name(VMEM_ERR_NOMEM), "nomem");
  assert_string_equal(vmem_status_name((vmem_status)99), "invalid");
  assert_string_equal(vmem_version(), VMEM_VERSION_STRING);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_everything_is_freed),
      cmocka_unit_test(test_failing_allocator),
      cmocka_unit_test(test_results_outlive_their_makers),
      cmocka_unit_test(test_kernel_readers_under_failing_allocator),
      cmocka_unit_test(test_module_readers_under_failing_allocator),
      cmocka_unit_test(test_null_arguments),
  };
  return RUN(tests);
}
