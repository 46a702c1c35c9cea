/* Corpus test: every base64 Mosaic body ("TUzvUg..." = "ML\xefR") in the
 * corpus's mosaic and hlo folders decodes and its container reads: version,
 * producer, string/dialect/op-name tables and the attribute/type entries,
 * among them the textual #tpu.memory_space attributes the kernels use.
 * Then the whole body decodes (no forward reference, no undecoded entry),
 * its kernel reads, and the kernel read back from the printed text has the
 * same footprint as the one read from the bytecode.
 * Skips (exit 77, with the reason) when the corpus folder is absent. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>

#include "test.h"
#include "../src/mosaic/bytecode.h"

static const char *corpus_dir;
static int bodies, with_vmem;

static bool is_b64(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/' || c == '=';
}

static void check_body(const char *path, const char *b, size_t n) {
  uint8_t *raw = malloc(n / 4 * 3 + 3);
  size_t bad, len = bc_base64_decode(b, n, raw, &bad);
  if (len == SIZE_MAX)
    fail_msg("%s: base64 invalid at %zu of %zu", path, bad, n);
  arena a;
  arena_init(&a, NULL);
  bc_file f;
  vmem_error err;
  if (bc_read(&a, raw, len, &f, &err) != VMEM_OK)
    fail_msg("%s: %s", path, err.message);
  assert_true(f.version <= BC_MAX_VERSION);
  assert_true(f.producer.len > 0);
  assert_true(f.nstrings > 0 && f.ndialects > 0 && f.nops > 0 && f.nattrs > 0 && f.ntypes > 0);
  bool vmem = false;
  for (size_t i = 0; i < f.nattrs; i++) {
    vmem_str t = bc_entry_text(&f, &f.entries[i]);
    vmem = vmem || (t.len == 23 && !memcmp(t.ptr, "#tpu.memory_space<vmem>", 23));
  }
  with_vmem += vmem;
  printf("  %s: %zu bytes, version %llu, producer %.*s, %zu strings, %zu dialects, %zu op names, %zu attributes, "
         "%zu types\n",
         strrchr(path, '/') + 1, len, (unsigned long long)f.version, (int)f.producer.len, f.producer.ptr, f.nstrings,
         f.ndialects, f.nops, f.nattrs, f.ntypes);
  bodies++;
  vmem_str text;
  if (bc_print(&a, &f, &text, &err) != VMEM_OK)
    fail_msg("%s: %s", path, err.message);
  assert_null(strstr(text.ptr, "%fwd"));
  assert_null(strstr(text.ptr, "undecoded"));
  vmem_kernel *kb = vmem_kernel_from_bytecode(b, n, NULL, &err);
  if (!kb)
    fail_msg("%s: %s", path, err.message);
  vmem_kernel *kt = vmem_kernel_from_mlir(text.ptr, text.len, NULL, &err);
  assert_non_null(kt);
  assert_true(vmem_kernel_operand_count(kb) > 0);
  const vmem_target *t = vmem_target_find("v5e", 3);
  vmem_footprint fb, ft;
  assert_int_equal(vmem_kernel_footprint(kb, t, NULL, &fb, &err), VMEM_OK);
  assert_int_equal(vmem_kernel_footprint(kt, t, NULL, &ft, &err), VMEM_OK);
  assert_true(fb.scoped_bytes == ft.scoped_bytes && fb.scoped_bytes > 0);
  printf("    kernel %s: %zu operands, grid rank %zu, scoped %llu bytes\n", vmem_kernel_name(kb),
         vmem_kernel_operand_count(kb), vmem_kernel_grid_rank(kb), (unsigned long long)fb.scoped_bytes);
  vmem_footprint_free(&fb);
  vmem_footprint_free(&ft);
  vmem_kernel_free(kb);
  vmem_kernel_free(kt);
  arena_destroy(&a);
  free(raw);
}

static void scan_dir(const char *sub) {
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/%s", corpus_dir, sub);
  DIR *d = opendir(dir);
  if (!d)
    return;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.')
      continue;
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    size_t len;
    char *s = test_read_file(path, &len);
    for (char *p = s ? strstr(s, "TUzvUg") : NULL; p; p = strstr(p, "TUzvUg")) {
      size_t n = 0;
      while (is_b64(p[n]))
        n++;
      check_body(path, p, n);
      p += n;
    }
    free(s);
  }
  closedir(d);
}

static void test_bodies(void **state) {
  (void)state;
  scan_dir("mosaic");
  scan_dir("hlo");
  printf("%d bodies read, %d with #tpu.memory_space<vmem>\n", bodies, with_vmem);
  assert_true(bodies >= 4);
  assert_true(with_vmem >= 1);
}

int main(int argc, char **argv) {
  corpus_dir = argc > 1 ? argv[1] : "../shared/corpus";
  DIR *d = opendir(corpus_dir);
  if (!d) {
    printf("skipped: no corpus at %s\n", corpus_dir);
    return 77;
  }
  closedir(d);
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_bodies)};
  return RUN(tests);
}
