/* Every error code with the input docs/api.md gives for it: the code, the
 * message and the offset are what the page says. */
#include <stdlib.h>

#include "test.h"

static void expect(const vmem_error *e, vmem_status code, const char *message, size_t offset) {
  assert_string_equal(vmem_status_name(e->code), vmem_status_name(code));
  if (!strstr(e->message, message))
    fail_msg("message '%s' lacks '%s'", e->message, message);
  assert_int_equal(e->offset, offset);
}

static void test_syntax_unknown_overflow(void **state) {
  (void)state;
  vmem_error e;
  assert_null(vmem_shape_parse("f32[8,", 6, NULL, &e));
  expect(&e, VMEM_ERR_SYNTAX, "expected an integer", 6);
  assert_null(vmem_shape_parse("q32[8]", 6, NULL, &e));
  expect(&e, VMEM_ERR_UNKNOWN, "unknown element type 'q32'", 0);
  static const char big[] = "f32[4294967296,4294967296,16]";
  vmem_shape *s = vmem_shape_parse(big, strlen(big), NULL, &e);
  assert_non_null(s);
  vmem_size z;
  assert_int_equal(vmem_shape_size(s, &z, &e), VMEM_ERR_OVERFLOW);
  expect(&e, VMEM_ERR_OVERFLOW, "the element count overflows 64 bits at dimension 1", 15);
  vmem_shape_free(s);
}

static void test_range_unsupported(void **state) {
  (void)state;
  vmem_error e;
  static const char range[] = "HloModule m\nENTRY %e () -> f32[] {\n  ROOT %p = f32[] parameter(99999999999)\n}\n";
  assert_null(vmem_hlo_parse(range, strlen(range), NULL, &e));
  expect(&e, VMEM_ERR_RANGE, "parameter number out of range", (size_t)(strstr(range, "9999") - range));
  static const char nested[] = "HloModule m\nENTRY %e (x: f32[]) -> f32[] {\n  %x = f32[] parameter(0)\n"
                               "  ROOT %a = f32[] add(%x (%x), %x)\n}\n";
  assert_null(vmem_hlo_parse(nested, strlen(nested), NULL, &e));
  expect(&e, VMEM_ERR_UNSUPPORTED, "nested instructions as operands are not supported",
         (size_t)(strstr(nested, "(%x)") - nested));
}

static void *no_memory(void *ctx, size_t n) {
  (void)ctx, (void)n;
  return NULL;
}
static void no_free(void *ctx, void *p) { (void)ctx, (void)p; }

static void test_nomem_argument_internal(void **state) {
  (void)state;
  vmem_error e;
  vmem_allocator none = {no_memory, no_free, NULL};
  assert_null(vmem_shape_parse("f32[8]", 6, &none, &e));
  expect(&e, VMEM_ERR_NOMEM, "out of memory", 0);
  assert_null(vmem_hlo_open("/nonexistent.hlo", NULL, &e));
  expect(&e, VMEM_ERR_ARGUMENT, "cannot open: No such file or directory", 0);
  vmem_program_buffer b[2] = {{NULL, 0, 512, 512, 0, 3, 0, 1}, {NULL, 0, 512, 512, 1, 2, 0, 1}};
  vmem_program p = {
      .count = 2, .buffers = b, .peak_bytes = 1024, .used_bytes = 512, .lower_bound_bytes = 1024, .peak_time = 1};
  assert_int_equal(vmem_program_check(&p, 0, &e), VMEM_ERR_INTERNAL);
  expect(&e, VMEM_ERR_INTERNAL, "plan check: two buffers live at once overlap", 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_syntax_unknown_overflow),
      cmocka_unit_test(test_range_unsupported),
      cmocka_unit_test(test_nomem_argument_internal),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
