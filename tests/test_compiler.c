/* The compiler layer (src/compiler/) against a stand-in libtpu
 * (tests/fake_pjrt.c, FAKE_PJRT), one behaviour per FAKE_PJRT_MODE: every
 * answer is read and every failure is a value or a result, never a crash
 * of the caller. Also its wire-format reader on hand-made and broken
 * input, and check --compile's exit statuses. */
#define _POSIX_C_SOURCE 200809L /* setenv, strdup */
#include <stdlib.h>

#include "../src/compiler/compiler.h"
#include "test.h"

static const char module[] = "module @m { func.func @main() { return } }";

static vmem_compile_result *compile_in(const char *mode, double timeout) {
  setenv("FAKE_PJRT_MODE", mode, 1);
  vmem_error e;
  vmem_compiler *c = vmem_compiler_open(FAKE_PJRT, NULL, &e);
  if (!c)
    fail_msg("open: %s", e.message);
  vmem_compile_options o = {.target = vmem_target_find("v6e", 3), .timeout_seconds = timeout};
  vmem_compile_result *r = NULL;
  if (vmem_compile(c, module, sizeof module - 1, &o, &r, &e) != VMEM_OK)
    fail_msg("compile: %s", e.message);
  vmem_compiler_close(c);
  return r;
}

static void test_compiled(void **state) {
  (void)state;
  vmem_compile_result *r = compile_in("ok", 30);
  assert_int_equal(r->status, VMEM_COMPILE_OK);
  assert_string_equal(r->topology, "v6e:2x2");
  assert_int_equal(r->nkernels, 1);
  assert_string_equal(r->kernels[0].name, "kern.1");
  assert_string_equal(r->kernels[0].computation, "main");
  assert_string_equal(r->kernels[0].body, "QUJD");
  assert_true(r->kernels[0].has_figure);
  assert_int_equal(r->kernels[0].scoped_bytes, 12288);
  assert_true(r->has_stats);
  assert_int_equal(r->generated_code_bytes, 4096);
  assert_int_equal(r->argument_bytes, 1 << 20);
  assert_string_equal(r->error_text, "");
  vmem_compile_result_free(r);
}

static void test_refused_and_e1001(void **state) {
  (void)state;
  vmem_compile_result *r = compile_in("refuse", 30);
  assert_int_equal(r->status, VMEM_COMPILE_REFUSED);
  assert_int_equal(r->error_code, 3);
  assert_false(r->scoped_oom);
  assert_non_null(strstr(r->error_text, "takes no module"));
  vmem_compile_result_free(r);
  r = compile_in("e1001", 30);
  assert_int_equal(r->status, VMEM_COMPILE_REFUSED);
  assert_int_equal(r->error_code, 8);
  assert_true(r->scoped_oom);
  vmem_compile_result_free(r);
}

static void test_crash_and_timeout(void **state) {
  (void)state;
  vmem_compile_result *r = compile_in("abort", 30);
  assert_int_equal(r->status, VMEM_COMPILE_CRASHED);
  if (!strstr(r->error_text, "Check failed: the fake compiler aborts") || !strstr(r->error_text, "signal 6"))
    fail_msg("crash named as '%s'", r->error_text);
  vmem_compile_result_free(r);
  r = compile_in("sleep", 0.5);
  assert_int_equal(r->status, VMEM_COMPILE_TIMEOUT);
  assert_true(r->wall_seconds < 10);
  assert_non_null(strstr(r->error_text, "was stopped"));
  vmem_compile_result_free(r);
}

static void test_garbage_answer(void **state) {
  (void)state;
  setenv("FAKE_PJRT_MODE", "garbage", 1);
  vmem_error e;
  vmem_compiler *c = vmem_compiler_open(FAKE_PJRT, NULL, &e);
  assert_non_null(c);
  vmem_compile_result *r = NULL;
  assert_int_equal(vmem_compile(c, module, sizeof module - 1, NULL, &r, &e), VMEM_ERR_SYNTAX);
  assert_null(r);
  assert_non_null(strstr(e.message, "malformed protobuf"));
  vmem_compiler_close(c);
}

static void test_open_failures(void **state) {
  (void)state;
  vmem_error e;
  setenv("FAKE_PJRT_MODE", "old-api", 1);
  assert_null(vmem_compiler_open(FAKE_PJRT, NULL, &e));
  assert_int_equal(e.code, VMEM_ERR_UNSUPPORTED);
  assert_non_null(strstr(e.message, "speaks PJRT C API 1.3"));
  setenv("FAKE_PJRT_MODE", "ok", 1);
  assert_null(vmem_compiler_open("/nonexistent/libtpu.so", NULL, &e));
  assert_int_equal(e.code, VMEM_ERR_UNKNOWN);
  assert_non_null(strstr(e.message, "no such file"));
  assert_null(vmem_compiler_open(GOLDEN_DIR "/../fake_pjrt.c", NULL, &e)); /* a file, not a library */
  assert_int_equal(e.code, VMEM_ERR_UNSUPPORTED);
  assert_non_null(strstr(e.message, "is not a loadable libtpu"));
  assert_null(vmem_compiler_open(NOT_PJRT, NULL, &e)); /* a library without GetPjrtApi */
  assert_int_equal(e.code, VMEM_ERR_UNSUPPORTED);
  assert_non_null(strstr(e.message, "exports no GetPjrtApi"));
  /* Nothing found: the search says where it looked and how to install. */
  char *path = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
  unsetenv("VMEMSCOPE_LIBTPU");
  unsetenv("VIRTUAL_ENV");
  setenv("PATH", "/nonexistent", 1);
  assert_null(vmem_compiler_open(NULL, NULL, &e));
  assert_int_equal(e.code, VMEM_ERR_UNKNOWN);
  assert_non_null(strstr(e.message, "pip install libtpu"));
  if (path)
    setenv("PATH", path, 1);
  free(path);
}

static void test_bad_arguments(void **state) {
  (void)state;
  vmem_error e;
  setenv("FAKE_PJRT_MODE", "ok", 1);
  vmem_compiler *c = vmem_compiler_open(FAKE_PJRT, NULL, &e);
  vmem_compile_result *r = NULL;
  assert_int_equal(vmem_compile(c, "", 0, NULL, &r, &e), VMEM_ERR_ARGUMENT);
  vmem_compile_options o = {.target = vmem_target_find("8i", 2)};
  assert_int_equal(vmem_compile(c, module, sizeof module - 1, &o, &r, &e), VMEM_ERR_UNSUPPORTED);
  assert_non_null(strstr(e.message, "--topology"));
  o = (vmem_compile_options){.scoped_vmem_limit_kib = -5};
  assert_int_equal(vmem_compile(c, module, sizeof module - 1, &o, &r, &e), VMEM_ERR_RANGE);
  vmem_compiler_close(c);
}

/* The wire reader on every prefix of a module: each cut is an error or a
 * shorter read, never past the end (ASan watches). */
static void test_proto_cuts(void **state) {
  (void)state;
  pb_out o = {0}, ins = {0}, comp = {0}, mod = {0};
  pb_bytes_field(&ins, 1, "k", 1);
  pb_bytes_field(&ins, 2, "custom-call", 11);
  pb_bytes_field(&ins, 28, "tpu_custom_call", 15);
  static const char cfg[] = "{\"used_scoped_memory_configs\":[{\"memory_space\":1,\"size\":\"7\"},"
                            "{\"memory_space\":\"0\",\"size\":\"9\"}]}";
  pb_bytes_field(&ins, 43, cfg, sizeof cfg - 1);
  pb_message_field(&comp, 2, &ins);
  pb_message_field(&mod, 3, &comp);
  pb_message_field(&o, 1, &mod);
  for (size_t cut = 0; cut <= o.len; cut++) {
    arena a;
    arena_init(&a, NULL);
    unsigned char *copy = malloc(cut + 1); /* exactly cut bytes readable */
    memcpy(copy, o.buf, cut);
    cc_call *calls;
    size_t n;
    vmem_error e;
    vmem_status st = cc_read_calls(copy, cut, true, &a, &calls, &n, &e);
    if (cut == o.len) {
      assert_int_equal(st, VMEM_OK);
      assert_int_equal(n, 1);
      assert_int_equal(calls[0].scoped_bytes, 7); /* memory space 1 alone */
      assert_int_equal(calls[0].nconfigs, 2);
    } else {
      assert_true(st != VMEM_OK || n == 0);
    }
    free(copy);
    arena_destroy(&a);
  }
  pb_out_free(&o), pb_out_free(&ins), pb_out_free(&comp), pb_out_free(&mod);
}

static int cli(const char *mode, const char *const *argv, int argc, char **out) {
  setenv("FAKE_PJRT_MODE", mode, 1);
  char *err = NULL;
  int rc = vmem_cli_capture(argc, argv, out, &err);
  vmem_cli_free(err);
  return rc;
}

/* check --compile's exit statuses: 0 when the compiler compiles what the
 * model says fits, 1 when it runs out of scoped VMEM, 2 when it refuses
 * for another reason or never answers. */
static void test_check_compile_exit(void **state) {
  (void)state;
  const char *argv[] = {
      "check", GOLDEN_DIR "/../../examples/jit_model.stablehlo.mlir", "--compile", "--libtpu", FAKE_PJRT, "--json"};
  char *out = NULL;
  assert_int_equal(cli("refuse", argv, 6, &out), 2);
  assert_non_null(strstr(out, "\"status\": \"refused\""));
  vmem_cli_free(out);
  assert_int_equal(cli("e1001", argv, 6, &out), 1);
  vmem_cli_free(out);
  const char *timeout[] = {"check",     GOLDEN_DIR "/../../examples/jit_model.stablehlo.mlir",
                           "--compile", "--libtpu",
                           FAKE_PJRT,   "--compile-timeout",
                           "0.5"};
  assert_int_equal(cli("sleep", timeout, 7, &out), 2);
  vmem_cli_free(out);
  const char *spec[] = {"check", GOLDEN_DIR "/../../examples/gated_matmul.json", "--compile"};
  assert_int_equal(cli("ok", spec, 3, &out), 2);
  vmem_cli_free(out);
}

/* fit --confirm: each candidate lowered by --lower and compiled; those
 * that compile listed first; a --lower that fails is exit 2. */
static void test_fit_confirm(void **state) {
  (void)state;
  const char *argv[] = {
      "fit",     GOLDEN_DIR "/../../examples/matmul_v5e.stablehlo.mlir",        "--top",    "3",      "--confirm", "3",
      "--lower", "cat " GOLDEN_DIR "/../../examples/matmul_v5e.stablehlo.mlir", "--libtpu", FAKE_PJRT};
  char *out = NULL;
  assert_int_equal(cli("ok", argv, 10, &out), 0);
  if (!strstr(out, "confirmed by the compiler") || !strstr(out, "3 of 3 compiled"))
    fail_msg("fit --confirm printed:\n%s", out);
  vmem_cli_free(out);
  assert_int_equal(cli("e1001", argv, 10, &out), 1); /* none compiles */
  assert_non_null(strstr(out, "0 of 3 compiled"));
  vmem_cli_free(out);
  argv[7] = "false";
  assert_int_equal(cli("ok", argv, 10, &out), 2);
  vmem_cli_free(out);
  const char *no_lower[] = {"fit", GOLDEN_DIR "/../../examples/matmul_v5e.stablehlo.mlir", "--confirm", "3"};
  assert_int_equal(cli("ok", no_lower, 4, &out), 2);
  vmem_cli_free(out);
  /* A compile refused for another reason than memory is no answer: exit 2. */
  argv[7] = "cat " GOLDEN_DIR "/../../examples/matmul_v5e.stablehlo.mlir";
  assert_int_equal(cli("refuse", argv, 10, &out), 2);
  vmem_cli_free(out);
  /* Many placeholders, each a few bytes that become many digits (a shell
   * comment keeps them out of the command's way). */
  char many[4096];
  int at = snprintf(many, sizeof many, "cat %s #", GOLDEN_DIR "/../../examples/matmul_v5e.stablehlo.mlir");
  for (int i = 0; i < 300 && at + 8 < (int)sizeof many; i++)
    at += snprintf(many + at, sizeof many - (size_t)at, "{g0}");
  argv[7] = many;
  assert_int_equal(cli("ok", argv, 10, &out), 0);
  vmem_cli_free(out);
}

/* explain --recompile: the module compiled again says whether the log's
 * E1001 recurs. */
static void test_explain_recompile(void **state) {
  (void)state;
  const char *argv[] = {"explain",     GOLDEN_DIR "/explain_recompile.log",
                        "--recompile", GOLDEN_DIR "/../../examples/jit_model.stablehlo.mlir",
                        "--libtpu",    FAKE_PJRT};
  char *out = NULL;
  assert_int_equal(cli("e1001", argv, 6, &out), 1); /* an error was explained */
  if (!strstr(out, "the same E1001 as the log's (20.00M against 16.00M)"))
    fail_msg("explain --recompile printed:\n%s", out);
  vmem_cli_free(out);
  assert_int_equal(cli("ok", argv, 6, &out), 1);
  assert_non_null(strstr(out, "not the log's E1001"));
  assert_non_null(strstr(out, "kernel kern.1: scoped 12.0K"));
  vmem_cli_free(out);
  argv[5] = "/nonexistent/libtpu.so";
  assert_int_equal(cli("ok", argv, 6, &out), 2);
  vmem_cli_free(out);
  /* The module is read as check reads it before any compile: an empty one
   * is named; a refusal for another reason than memory exits 2; and the
   * compiler's options go with --recompile alone. */
  argv[5] = FAKE_PJRT;
  argv[3] = GOLDEN_DIR "/../golden/explain_empty_module.mlir";
  assert_int_equal(cli("ok", argv, 6, &out), 2);
  vmem_cli_free(out);
  argv[3] = GOLDEN_DIR "/../../examples/jit_model.stablehlo.mlir";
  assert_int_equal(cli("refuse", argv, 6, &out), 2);
  vmem_cli_free(out);
  const char *stray[] = {"explain", GOLDEN_DIR "/explain_recompile.log", "--libtpu", FAKE_PJRT};
  assert_int_equal(cli("ok", stray, 4, &out), 2);
  vmem_cli_free(out);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_compiled),          cmocka_unit_test(test_refused_and_e1001),
      cmocka_unit_test(test_crash_and_timeout), cmocka_unit_test(test_garbage_answer),
      cmocka_unit_test(test_open_failures),     cmocka_unit_test(test_bad_arguments),
      cmocka_unit_test(test_proto_cuts),        cmocka_unit_test(test_check_compile_exit),
      cmocka_unit_test(test_fit_confirm),       cmocka_unit_test(test_explain_recompile),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
