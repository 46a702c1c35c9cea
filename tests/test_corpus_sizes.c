/* Corpus test: every Size / Shape / Unpadded size triple that a real
 * compiler report prints in the corpus errors folder (.txt files) is recomputed
 * and must fall in the byte interval the printed figure stands for; so
 * must "Extra memory due to padding" and its "(N.Nx expansion)".
 * Skips (exit 77, with the reason) when the corpus folder is absent. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>

#include "test.h"

static const char *corpus_dir;
static int triples_checked, files_with_triples;

typedef struct entry {
  char size[32], shape[512], unpadded[32], extra[32], expansion[32];
} entry;

/* Copies the text after `key` up to one of `stops` (or the line end). */
static bool field(const char *line, const char *key, char *out, size_t cap, const char *stops) {
  const char *p = strstr(line, key);
  if (!p)
    return false;
  p += strlen(key);
  while (*p == ' ')
    p++;
  size_t n = strcspn(p, stops);
  if (n >= cap)
    n = cap - 1;
  memcpy(out, p, n);
  out[n] = '\0';
  return true;
}

static bool in_interval(const char *human, uint64_t v) {
  uint64_t lo, hi;
  vmem_error err;
  if (vmem_parse_human_bytes(human, strlen(human), &lo, &hi, &err) != VMEM_OK)
    fail_msg("corpus figure '%s' does not parse: %s", human, err.message);
  return lo <= v && v <= hi;
}

/* The target a file's name points at; v5e when it names none. The corpus
 * triples are f32/u8 arrays whose default tiling is the same on v4+. */
static const vmem_target *target_for(const char *file) {
  static const char *const names[] = {"v2", "v3", "v4", "v5e", "v5p", "v6e", "tpu7x"};
  const vmem_target *t = vmem_target_find("v5e", 3);
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
    char key[16];
    snprintf(key, sizeof key, "_%s", names[i]);
    if (strstr(file, key))
      t = vmem_target_find(names[i], strlen(names[i]));
  }
  return t;
}

static void check_entry(const char *file, const entry *e) {
  vmem_error err;
  vmem_shape *s = vmem_shape_parse(e->shape, strlen(e->shape), NULL, &err);
  if (!s)
    fail_msg("%s: shape '%s': %s", file, e->shape, err.message);
  vmem_shape *l = vmem_shape_with_tpu_layout(s, target_for(file), NULL, &err);
  assert_non_null(l);
  vmem_size z;
  assert_int_equal(vmem_shape_size(l, &z, &err), VMEM_OK);
  if (!in_interval(e->size, z.bytes) || !in_interval(e->unpadded, z.unpadded_bytes))
    fail_msg("%s: %s is %llu/%llu bytes; the report prints Size %s, Unpadded %s", file, e->shape,
             (unsigned long long)z.bytes, (unsigned long long)z.unpadded_bytes, e->size, e->unpadded);
  if (e->extra[0]) {
    char x[32];
    snprintf(x, sizeof x, "%.1fx", (double)z.bytes / (double)z.unpadded_bytes);
    assert_true(in_interval(e->extra, z.bytes - z.unpadded_bytes));
    assert_string_equal(x, e->expansion);
  }
  triples_checked++;
  vmem_shape_free(s);
  vmem_shape_free(l);
}

static void scan_file(const char *dir, const char *name) {
  char path[2048], line[8192];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  entry e = {0};
  int before = triples_checked;
  /* An entry ends at the next "Size:", a label line, a separator, or EOF:
   * some retrieved excerpts are cut before their last lines. */
  while (fgets(line, sizeof line, f)) {
    if (line[0] == '#')
      continue; /* notes, not log */
    bool ends = strstr(line, "Allocation type:") || strstr(line, "XLA label:") || strstr(line, "=====") ||
                (strstr(line, "Size:") && !strstr(line, "Unpadded"));
    if (ends && e.size[0] && e.shape[0] && e.unpadded[0]) {
      check_entry(name, &e);
      memset(&e, 0, sizeof e);
    }
    if (field(line, "Size:", e.size, sizeof e.size, " ]\r\n") && !strstr(line, "Unpadded")) {
      e.shape[0] = e.unpadded[0] = e.extra[0] = '\0';
    } else if (field(line, "Shape:", e.shape, sizeof e.shape, "\r\n")) {
      /* The bracketed form "[Shape: f32[8]{0}]" ends in one extra ']'. */
      size_t n = strlen(e.shape);
      if (strstr(line, "[Shape:") && n && e.shape[n - 1] == ']')
        e.shape[n - 1] = '\0';
    } else if (field(line, "Unpadded size:", e.unpadded, sizeof e.unpadded, " ]\r\n")) {
    } else if (field(line, "Extra memory due to padding:", e.extra, sizeof e.extra, " ]\r\n")) {
      field(line, "(", e.expansion, sizeof e.expansion, " ");
    }
  }
  if (e.size[0] && e.shape[0] && e.unpadded[0])
    check_entry(name, &e);
  fclose(f);
  files_with_triples += triples_checked > before;
}

static void test_corpus_triples(void **state) {
  (void)state;
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/errors", corpus_dir);
  DIR *d = opendir(dir);
  assert_non_null(d);
  struct dirent *de;
  while ((de = readdir(d)))
    if (strstr(de->d_name, ".txt"))
      scan_file(dir, de->d_name);
  closedir(d);
  printf("checked %d Size/Shape/Unpadded triples in %d report files\n", triples_checked, files_with_triples);
  assert_true(triples_checked >= 8);
}

int main(int argc, char **argv) {
  corpus_dir = argc > 1 ? argv[1] : "../shared/corpus";
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/errors", corpus_dir);
  DIR *d = opendir(dir);
  if (!d) {
    printf("SKIP: corpus folder %s not found (it sits beside the checkout as ../shared)\n", dir);
    return 77;
  }
  closedir(d);
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_corpus_triples)};
  return RUN(tests);
}
