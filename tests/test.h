/* test.h — cmocka with the includes it needs first. */
#ifndef VMEM_TEST_H
#define VMEM_TEST_H
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "vmemscope.h"

#define RUN(tests) cmocka_run_group_tests(tests, NULL, NULL)

/* A whole file, NUL-terminated (free it); NULL when it cannot be read. */
static inline char *test_read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  rewind(f);
  char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (s) {
    *len = fread(s, 1, (size_t)n, f);
    s[*len] = 0;
  }
  fclose(f);
  return s;
}

/* An allocator that counts live blocks and can fail from the n-th call on,
 * to prove that every failure path frees what it took. */
typedef struct counting {
  long live;
  long calls;
  long fail_after; /* < 0: never fail */
} counting;

static inline void *c_alloc(void *ctx, size_t n) {
  counting *c = ctx;
  if (c->fail_after >= 0 && c->calls >= c->fail_after)
    return NULL;
  c->calls++;
  c->live++;
  return malloc(n);
}

static inline void c_free(void *ctx, void *p) {
  counting *c = ctx;
  if (p)
    c->live--;
  free(p);
}
#endif
