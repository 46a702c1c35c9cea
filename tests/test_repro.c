/* vmem_hlo_print_repro: for every instruction of the fixture modules (and
 * of the corpus modules, when the corpus is there), the repro parses, holds
 * the instruction as its entry root with the same opcode, shape text and
 * attributes, and a Pallas custom call in it reads to a kernel with the
 * same footprint as in the whole module. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>

#include "test.h"

static char *shape_str(const vmem_shape *s) {
  size_t n = vmem_shape_print(s, NULL, 0);
  char *b = malloc(n + 1);
  vmem_shape_print(s, b, n + 1);
  return b;
}

static uint64_t kernel_bytes(const vmem_hlo_instruction *in) {
  vmem_error err;
  vmem_hlo_scoped sc;
  if (vmem_hlo_instruction_scoped(in, &sc, &err) != VMEM_OK || !sc.has_kernel_body)
    return 0;
  vmem_kernel *k = vmem_hlo_instruction_kernel(in, NULL, &err);
  if (!k)
    return 0;
  vmem_footprint f;
  uint64_t b = vmem_kernel_footprint(k, vmem_target_find("v5e", 3), NULL, &f, &err) == VMEM_OK ? f.scoped_bytes : 0;
  vmem_footprint_free(&f);
  vmem_kernel_free(k);
  return b;
}

static bool same(vmem_str a, vmem_str b) { return a.len == b.len && !memcmp(a.ptr, b.ptr, a.len); }

/* Checks one instruction's repro; returns false for parameters (none). */
static bool check_one(const char *path, const vmem_hlo_instruction *in) {
  vmem_error err;
  size_t n = vmem_hlo_print_repro(in, NULL, 0, &err);
  if (n == SIZE_MAX) {
    assert_int_equal(err.code, VMEM_ERR_ARGUMENT); /* a parameter */
    return false;
  }
  char *text = malloc(n + 1);
  assert_int_equal(vmem_hlo_print_repro(in, text, n + 1, &err), n);
  vmem_hlo_module *r = vmem_hlo_parse(text, n, NULL, &err);
  if (!r)
    fail_msg("%s: repro of %.*s does not parse: %s at %zu\n%s", path, (int)vmem_hlo_instruction_name(in).len,
             vmem_hlo_instruction_name(in).ptr, err.message, err.offset, text);
  const vmem_hlo_instruction *root = vmem_hlo_computation_root(vmem_hlo_entry(r));
  assert_true(same(vmem_hlo_instruction_name(root), vmem_hlo_instruction_name(in)));
  assert_true(same(vmem_hlo_instruction_opcode(root), vmem_hlo_instruction_opcode(in)));
  assert_int_equal(vmem_hlo_instruction_attr_count(root), vmem_hlo_instruction_attr_count(in));
  assert_int_equal(vmem_hlo_instruction_operand_count(root), vmem_hlo_instruction_operand_count(in));
  char *a = shape_str(vmem_hlo_instruction_shape(in)), *b = shape_str(vmem_hlo_instruction_shape(root));
  assert_string_equal(a, b);
  assert_true(kernel_bytes(root) == kernel_bytes(in));
  free(a);
  free(b);
  vmem_hlo_free(r);
  free(text);
  return true;
}

static size_t check_module(const char *path, size_t limit) {
  vmem_error err;
  vmem_hlo_module *m = vmem_hlo_open(path, NULL, &err);
  if (!m)
    fail_msg("%s: %s", path, err.message);
  size_t done = 0;
  for (size_t c = 0; c < vmem_hlo_computation_count(m); c++) {
    const vmem_hlo_computation *comp = vmem_hlo_computation_at(m, c);
    for (size_t i = 0; i < vmem_hlo_computation_instruction_count(comp) && done < limit; i++)
      done += check_one(path, vmem_hlo_computation_instruction_at(comp, i));
  }
  vmem_hlo_free(m);
  return done;
}

static void test_fixtures(void **state) {
  (void)state;
  static const char *const files[] = {"kernel.hlo", "two_kernels.hlo", "program_s1.hlo"};
  size_t n = 0;
  for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", GOLDEN_DIR, files[i]);
    n += check_module(path, SIZE_MAX);
  }
  assert_true(n >= 15);
}

static void test_corpus(void **state) {
  (void)state;
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/../../../shared/corpus/hlo", GOLDEN_DIR);
  DIR *d = opendir(dir);
  if (!d) {
    printf("  skipped: no corpus at %s\n", dir);
    return;
  }
  size_t n = 0;
  struct dirent *e;
  while ((e = readdir(d)))
    if (strstr(e->d_name, ".hlo")) {
      char path[2048];
      snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
      n += check_module(path, 300); /* the first 300 of each: enough, and quick */
    }
  closedir(d);
  printf("  %zu corpus instructions reproduced\n", n);
  assert_true(n > 100);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_fixtures), cmocka_unit_test(test_corpus)};
  return RUN(tests);
}
