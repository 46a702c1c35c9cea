/* Corpus test: every module in ../shared/corpus/hlo/ parses, its backend
 * configs decode, and printing it back gives text that parses to the same
 * module (printing that again gives the same text); the program planner
 * runs on every module, and the scoped model of standard ops on every
 * instruction, never above the compiler's own used figure where the text
 * has one (the model is a lower bound). Skips (exit 77, with the reason)
 * when the corpus folder is absent. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>

#include "test.h"

static const char *corpus_dir;

static char *print(const vmem_hlo_module *m) {
  size_t n = vmem_hlo_print(m, NULL, 0);
  char *buf = malloc(n + 1);
  assert_non_null(buf);
  vmem_hlo_print(m, buf, n + 1);
  return buf;
}

static size_t modelled, compared;

/* The model's minimum against the compiler's used figure, and the planner. */
static void check_models(const char *path, const vmem_hlo_module *m) {
  const vmem_target *t = vmem_target_find("v5e", 3);
  vmem_error err;
  for (size_t c = 0; c < vmem_hlo_computation_count(m); c++) {
    const vmem_hlo_computation *comp = vmem_hlo_computation_at(m, c);
    for (size_t i = 0; i < vmem_hlo_computation_instruction_count(comp); i++) {
      const vmem_hlo_instruction *in = vmem_hlo_computation_instruction_at(comp, i);
      vmem_std_scoped s;
      vmem_hlo_scoped sc;
      if (vmem_hlo_instruction_min_scoped(in, t, &s, &err) != VMEM_OK)
        fail_msg("%s: the scoped model at byte %zu: %s", path, err.offset, err.message);
      modelled += s.applies;
      if (s.applies && vmem_hlo_instruction_scoped(in, &sc, &err) == VMEM_OK && sc.used_bytes > 0) {
        compared++;
        if (s.min_bytes > (uint64_t)sc.used_bytes)
          fail_msg("%s: %.*s: modelled minimum %llu above the compiler's used %lld", path,
                   (int)vmem_hlo_instruction_name(in).len, vmem_hlo_instruction_name(in).ptr,
                   (unsigned long long)s.min_bytes, (long long)sc.used_bytes);
      }
    }
  }
  vmem_program p;
  vmem_program_options o = {0, 16 << 20, false, NULL};
  if (vmem_hlo_program_vmem(m, t, &o, &p, NULL, &err) != VMEM_OK)
    fail_msg("%s: program-scoped planning: %s", path, err.message);
  if (vmem_program_check(&p, 0, &err) != VMEM_OK)
    fail_msg("%s: the plan fails its check: %s", path, err.message);
  vmem_program_free(&p);
}

static size_t check_file(const char *path) {
  vmem_error err;
  vmem_hlo_module *m = vmem_hlo_open(path, NULL, &err);
  if (!m)
    fail_msg("%s: byte %zu: %s", path, err.offset, err.message);
  size_t total = vmem_hlo_instruction_total(m);
  for (size_t c = 0; c < vmem_hlo_computation_count(m); c++) {
    const vmem_hlo_computation *comp = vmem_hlo_computation_at(m, c);
    for (size_t i = 0; i < vmem_hlo_computation_instruction_count(comp); i++) {
      vmem_hlo_scoped sc;
      if (vmem_hlo_instruction_scoped(vmem_hlo_computation_instruction_at(comp, i), &sc, &err) != VMEM_OK)
        fail_msg("%s: backend_config at byte %zu: %s", path, err.offset, err.message);
    }
  }
  check_models(path, m);
  char *a = print(m);
  vmem_hlo_module *again = vmem_hlo_parse(a, strlen(a), NULL, &err);
  if (!again)
    fail_msg("%s: the printed module does not parse: byte %zu: %s", path, err.offset, err.message);
  assert_int_equal(vmem_hlo_instruction_total(again), total);
  assert_int_equal(vmem_hlo_computation_count(again), vmem_hlo_computation_count(m));
  char *b = print(again);
  if (strcmp(a, b) != 0)
    fail_msg("%s: printing is not stable across a round trip", path);
  free(a);
  free(b);
  vmem_hlo_free(again);
  vmem_hlo_free(m);
  return total;
}

static void test_corpus_modules(void **state) {
  (void)state;
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/hlo", corpus_dir);
  DIR *d = opendir(dir);
  assert_non_null(d);
  struct dirent *de;
  size_t files = 0, instrs = 0;
  while ((de = readdir(d))) {
    if (!strstr(de->d_name, ".hlo"))
      continue;
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
    instrs += check_file(path);
    files++;
  }
  closedir(d);
  printf("parsed and round-tripped %zu HLO modules (%zu instructions); %zu standard ops modelled, %zu against a "
         "used figure\n",
         files, instrs, modelled, compared);
  assert_true(files >= 10);
}

int main(int argc, char **argv) {
  corpus_dir = argc > 1 ? argv[1] : "../shared/corpus";
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/hlo", corpus_dir);
  DIR *d = opendir(dir);
  if (!d) {
    printf("SKIP: corpus folder %s not found (it sits beside the checkout as ../shared)\n", dir);
    return 77;
  }
  closedir(d);
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_corpus_modules)};
  return RUN(tests);
}
