/* bench_shape — shape parsing and exact sizing, against a plain scan.
 *
 * Generates a buffer of realistic TPU shapes (one per line, as they stand in
 * HLO dumps: tiled layouts, tuples, memory spaces), then measures in one
 * process: (a) a memchr newline scan of the bytes, (b) parse + print-free
 * ArraySize of every line, (c) parse + default TPU layout + size. Reports
 * medians of 7 runs and the ratio to the scan. Not a test: run `make bench`. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "vmemscope.h"

enum { LINES = 200000, RUNS = 7 };

/* One realistic shape line; the formats are literals so -Wformat checks
 * them. */
static int one_shape(char *out, size_t cap, int form, int a, int b) {
  switch (form) {
  case 0:
    return snprintf(out, cap, "bf16[%d,%d]{1,0:T(8,128)(2,1)}", a, b);
  case 1:
    return snprintf(out, cap, "f32[%d,%d]{1,0:T(8,128)S(1)}", a, b);
  case 2:
    return snprintf(out, cap, "(f32[%d]{0:T(1024)}, s32[]{:T(128)}, bf16[8,%d,128]{2,1,0:T(16,128)(2,1)})", a, b);
  case 3:
    return snprintf(out, cap, "s8[2,%d,%d,256]{3,1,0,2:T(32,128)(4,1)}", a, b);
  case 4:
    return snprintf(out, cap, "f32[%d,%d]", a, b);
  default:
    return snprintf(out, cap, "pred[%d,%d]{1,0:T(8,128)(4,1)}", a, b);
  }
}

static char *make_input(size_t *len) {
  size_t cap = (size_t)LINES * 96, n = 0;
  char *buf = malloc(cap);
  unsigned x = 12345;
  for (int i = 0; i < LINES; i++) {
    x = x * 1103515245u + 12345u;
    int a = 1 + (int)(x >> 8) % 4096, b = 1 + (int)(x >> 4) % 8192;
    n += (size_t)one_shape(buf + n, cap - n, i % 6, a, b);
    buf[n++] = '\n';
  }
  *len = n;
  return buf;
}

static size_t scan(const char *buf, size_t len) {
  size_t lines = 0;
  for (const char *p = buf, *end = buf + len; (p = memchr(p, '\n', (size_t)(end - p))); p++)
    lines++;
  return lines;
}

static uint64_t parse_all(const char *buf, size_t len, const vmem_target *t) {
  uint64_t total = 0;
  const char *p = buf, *end = buf + len;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    vmem_error err;
    vmem_shape *s = vmem_shape_parse(p, (size_t)(nl - p), NULL, &err);
    if (!s) {
      fprintf(stderr, "bench: %s\n", err.message);
      exit(1);
    }
    vmem_shape *l = t ? vmem_shape_with_tpu_layout(s, t, NULL, &err) : s;
    vmem_size z = {0, 0};
    vmem_shape_size(l, &z, &err);
    total += z.bytes;
    if (l != s)
      vmem_shape_free(l);
    vmem_shape_free(s);
    p = nl + 1;
  }
  return total;
}

int main(void) {
  size_t len;
  char *buf = make_input(&len);
  const vmem_target *v5e = vmem_target_find("v5e", 3);
  double ts[RUNS], tp[RUNS], tl[RUNS];
  volatile uint64_t sink = 0;
  for (int r = 0; r < RUNS; r++) {
    double t0 = bench_now();
    sink += scan(buf, len);
    double t1 = bench_now();
    sink += parse_all(buf, len, NULL);
    double t2 = bench_now();
    sink += parse_all(buf, len, v5e);
    double t3 = bench_now();
    ts[r] = t1 - t0, tp[r] = t2 - t1, tl[r] = t3 - t2;
  }
  double s = bench_median(ts, RUNS), p = bench_median(tp, RUNS), l = bench_median(tl, RUNS);
  printf("input: %d shapes, %.1f MB\n", LINES, (double)len / 1e6);
  printf("memchr scan           %8.2f ms  %8.0f MB/s\n", s * 1e3, (double)len / s / 1e6);
  printf("parse + size          %8.2f ms  %8.0f MB/s  %6.2f M shapes/s  %6.1fx scan\n", p * 1e3, (double)len / p / 1e6,
         LINES / p / 1e6, p / s);
  printf("parse + layout + size %8.2f ms  %8.0f MB/s  %6.2f M shapes/s  %6.1fx scan\n", l * 1e3, (double)len / l / 1e6,
         LINES / l / 1e6, l / s);
  printf("(medians of %d runs; checksum %llu)\n", RUNS, (unsigned long long)sink);
  free(buf);
  return 0;
}
