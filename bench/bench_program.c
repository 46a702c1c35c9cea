/* bench_program — program-scoped VMEM of a long schedule against a plain
 * scan of the same bytes.
 *
 *   bench_program [INSTRUCTIONS [TARGET]]
 *
 * Builds a scheduled HLO module in memory: a chain of INSTRUCTIONS
 * (default 200,000) elementwise adds, every 100th laid out in S(1), each
 * step reserving the default scoped limit. Reports medians of 5 runs of a
 * memchr newline scan, of vmem_hlo_parse, and of vmem_hlo_program_vmem
 * (live ranges, reservations, packing), with the ratios to the scan. On
 * 7x (TARGET) every step's reservation is packed beside the values. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "vmemscope.h"

enum { RUNS = 5 };

static char *make_module(long n, size_t *len) {
  size_t cap = (size_t)n * 80 + 4096, k = 0;
  char *b = malloc(cap);
  k += (size_t)sprintf(b, "HloModule chain, is_scheduled=true\n\nENTRY %%main (p: f32[8,128]) -> f32[8,128] {\n"
                          "  %%p = f32[8,128]{1,0:T(8,128)} parameter(0)\n");
  for (long i = 0; i < n; i++) {
    char prev[32];
    snprintf(prev, sizeof prev, i ? "a%ld" : "p", i - 1);
    k += (size_t)sprintf(b + k, "  %%a%ld = f32[8,128]{1,0:T(8,128)%s} add(%%%s, %%p)\n", i, i % 100 ? "" : "S(1)",
                         prev);
  }
  k += (size_t)sprintf(b + k, "  ROOT %%r = f32[8,128]{1,0:T(8,128)} copy(%%a%ld)\n}\n", n - 1);
  *len = k;
  return b;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 200000;
  if (n < 1) {
    fprintf(stderr, "usage: bench_program [INSTRUCTIONS]\n");
    return 2;
  }
  size_t len;
  char *text = make_module(n, &len);
  const char *tn = argc > 2 ? argv[2] : "v5e";
  const vmem_target *t = vmem_target_find(tn, strlen(tn));
  if (!t) {
    fprintf(stderr, "bench_program: unknown target %s\n", tn);
    return 2;
  }
  vmem_program_options o = {0, 16 << 20, false, NULL};
  double ts[RUNS], tp[RUNS], tg[RUNS];
  size_t lines = 0, values = 0;
  uint64_t used = 0;
  for (int r = 0; r < RUNS; r++) {
    double t0 = bench_now();
    lines = 0;
    for (const char *p = text, *e = text + len; (p = memchr(p, '\n', (size_t)(e - p))); p++)
      lines++;
    double t1 = bench_now();
    vmem_error err;
    vmem_hlo_module *m = vmem_hlo_parse(text, len, NULL, &err);
    double t2 = bench_now();
    vmem_program prog;
    if (!m || vmem_hlo_program_vmem(m, t, &o, &prog, NULL, &err) != VMEM_OK) {
      fprintf(stderr, "bench_program: %s\n", err.message);
      return 2;
    }
    double t3 = bench_now();
    values = prog.count;
    used = prog.used_bytes;
    vmem_program_free(&prog);
    vmem_hlo_free(m);
    ts[r] = t1 - t0, tp[r] = t2 - t1, tg[r] = t3 - t2;
  }
  double s = bench_median(ts, RUNS), p = bench_median(tp, RUNS), g = bench_median(tg, RUNS);
  printf("module: %.1f MB, %zu lines, %ld instructions, %zu S(1) values, target %s, used %llu bytes\n",
         (double)len / 1e6, lines, n, values, vmem_target_name(t), (unsigned long long)used);
  printf("  memchr newline scan       %8.2f ms\n", s * 1e3);
  printf("  parse                     %8.2f ms  %.1fx the scan\n", p * 1e3, p / s);
  printf("  program-scoped planning   %8.2f ms  %.1fx the scan\n", g * 1e3, g / s);
  free(text);
  return 0;
}
