/* The StableHLO reader through the public API: ops listed with their
 * results, opcodes and funcs; custom calls in their custom and generic
 * forms with the operand and result tensor types; MLIR string escapes in
 * the backend_config; the kernel of a tpu_custom_call completed with its
 * arrays; and bad input (empty, binary, a call without a body, a body that
 * is not bytecode) as positioned errors. */
#include "test.h"

static vmem_stablehlo *parse(const char *text) {
  vmem_error err;
  vmem_stablehlo *m = vmem_stablehlo_parse(text, strlen(text), NULL, &err);
  if (!m)
    fail_msg("%s", err.message);
  return m;
}

static bool is(vmem_str s, const char *want) { return s.len == strlen(want) && !memcmp(s.ptr, want, s.len); }

static void test_ops(void **state) {
  (void)state;
  vmem_stablehlo *m = parse("module @jit_f {\n"
                            "  func.func public @main(%arg0: tensor<4x8xf32>) -> tensor<4x8xf32> {\n"
                            "    %0 = stablehlo.add %arg0, %arg0 : tensor<4x8xf32> loc(#loc1)\n"
                            "    %1:2 = \"stablehlo.custom_call\"(%0, %arg0) {call_target_name = \"foo\", "
                            "backend_config = \"a\\22b\\5Cc\"} : (tensor<4x8xf32>, tensor<4x8xi1>) -> "
                            "(tensor<4x8xbf16>, tensor<ui8>)\n"
                            "    %2 = call @helper(%0) : (tensor<4x8xf32>) -> tensor<4x8xf32>\n"
                            "    return %2 : tensor<4x8xf32>\n"
                            "  }\n"
                            "}\n");
  assert_true(is(vmem_stablehlo_name(m), "jit_f"));
  assert_int_equal(vmem_stablehlo_op_count(m), 3);
  const vmem_stablehlo_op *add = vmem_stablehlo_op_at(m, 0), *cc = vmem_stablehlo_op_at(m, 1);
  assert_true(is(add->opcode, "stablehlo.add") && is(add->result, "%0") && is(add->func, "main"));
  assert_true(is(cc->opcode, "stablehlo.custom_call") && is(cc->result, "%1:2"));
  assert_true(is(cc->target, "foo"));
  assert_true(is(cc->backend_config, "a\"b\\c"));
  assert_int_equal(cc->noperands, 2);
  assert_int_equal(cc->noperand_types, 2);
  assert_int_equal(cc->nresults, 2);
  char buf[64];
  vmem_shape_print(cc->operand_types[1], buf, sizeof buf);
  assert_string_equal(buf, "pred[4,8]");
  vmem_shape_print(cc->result_types[0], buf, sizeof buf);
  assert_string_equal(buf, "bf16[4,8]");
  vmem_shape_print(cc->result_types[1], buf, sizeof buf);
  assert_string_equal(buf, "u8[]");
  const vmem_stablehlo_op *call = vmem_stablehlo_op_at(m, 2);
  assert_true(is(call->opcode, "call") && is(call->target, "helper"));
  vmem_error err;
  assert_null(vmem_stablehlo_op_at(m, 3));
  assert_null(vmem_stablehlo_op_kernel(m, 3, NULL, &err));
  /* A custom call whose config is not Mosaic: no body, said so. */
  assert_null(vmem_stablehlo_op_kernel(m, 1, NULL, &err));
  assert_int_equal(err.code, VMEM_ERR_SYNTAX); /* "a\"b\\c" is not JSON */
  vmem_stablehlo_free(m);
}

static void test_bad_input(void **state) {
  (void)state;
  vmem_error err;
  assert_null(vmem_stablehlo_parse("", 0, NULL, &err));
  assert_int_equal(err.code, VMEM_ERR_SYNTAX);
  assert_null(vmem_stablehlo_parse("module {\0}", 10, NULL, &err));
  assert_int_equal(err.offset, 8);
  /* A tpu_custom_call whose body is not bytecode: the error points into its line. */
  const char *text = "func.func @main() {\n"
                     "  %0 = stablehlo.custom_call @tpu_custom_call() {backend_config = "
                     "\"{\\22custom_call_config\\22: {\\22body\\22: \\22TUzvUgAAAAAA\\22}}\"} : () -> tensor<8xf32>\n"
                     "}\n";
  vmem_stablehlo *m = parse(text);
  assert_int_equal(vmem_stablehlo_op_count(m), 1);
  assert_null(vmem_stablehlo_op_kernel(m, 0, NULL, &err));
  assert_int_not_equal(err.code, VMEM_OK);
  const char *body = strstr(text, "TUzvUg");
  assert_true(err.offset >= (size_t)(body - text) && err.offset < (size_t)(body - text) + 12);
  vmem_stablehlo_free(m);
  /* No config at all. */
  m = parse("%0 = stablehlo.custom_call @tpu_custom_call(%a) : (tensor<8xf32>) -> tensor<8xf32>\n");
  assert_null(vmem_stablehlo_op_kernel(m, 0, NULL, &err));
  assert_int_equal(err.code, VMEM_ERR_UNSUPPORTED);
  vmem_stablehlo_free(m);
}

/* The fixture's matmul kernel: arrays from the call, the limit and FLOPs
 * from its config, the name from kernel_name. */
static void test_kernel(void **state) {
  (void)state;
  size_t len = 0;
  char *text = test_read_file(GOLDEN_DIR "/jit_model.stablehlo.mlir", &len);
  assert_non_null(text);
  vmem_error err;
  vmem_stablehlo *m = vmem_stablehlo_parse(text, len, NULL, &err);
  assert_non_null(m);
  size_t found = 0;
  for (size_t i = 0; i < vmem_stablehlo_op_count(m); i++) {
    const vmem_stablehlo_op *op = vmem_stablehlo_op_at(m, i);
    if (!is(op->kernel_name, "matmul_kernel"))
      continue;
    vmem_kernel *k = vmem_stablehlo_op_kernel(m, i, NULL, &err);
    assert_non_null(k);
    assert_string_equal(vmem_kernel_name(k), "matmul_kernel");
    assert_int_equal(vmem_kernel_vmem_limit_bytes(k), 33554432);
    assert_true(vmem_kernel_roles_known(k));
    const vmem_operand *x = vmem_kernel_operand(k, 0), *out = vmem_kernel_operand(k, 2);
    assert_int_equal(x->role, VMEM_ROLE_INPUT);
    assert_int_equal(out->role, VMEM_ROLE_OUTPUT);
    char buf[64];
    vmem_shape_print(x->array, buf, sizeof buf);
    assert_string_equal(buf, "bf16[8192,2048]");
    vmem_shape_print(out->array, buf, sizeof buf);
    assert_string_equal(buf, "f32[8192,8192]");
    assert_int_equal(vmem_kernel_operand(k, 3)->role, VMEM_ROLE_SCRATCH);
    vmem_kernel_free(k);
    found++;
  }
  assert_int_equal(found, 1);
  vmem_stablehlo_free(m);
  free(text);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_ops), cmocka_unit_test(test_bad_input),
                                     cmocka_unit_test(test_kernel)};
  return RUN(tests);
}
