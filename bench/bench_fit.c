/* bench_fit — candidate evaluations per second through the template, and
 * the time to search a matmul space of over a million candidates.
 * Targets: >= 5 million evaluations/s on one core for a 3-operand matmul;
 * a >= 1M-candidate search in < 1 s. Medians of 5 runs. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "vmemscope.h"

enum { RUNS = 5 };

static const char spec[] =
    "{\"name\": \"mm\", \"grid_axes\": [\"i\", \"j\", \"k\"], \"params\": {\"bm\": 512, \"bk\": 512, \"bn\": 512},"
    " \"flops\": 1.1e12,"
    " \"in_specs\": [{\"array\": \"bf16[8192,8192]\", \"block\": [\"bm\", \"bk\"], \"index_map\": [\"i\", \"k\"]},"
    "               {\"array\": \"bf16[8192,8192]\", \"block\": [\"bk\", \"bn\"], \"index_map\": [\"k\", \"j\"]}],"
    " \"out_specs\": [{\"array\": \"bf16[8192,8192]\", \"block\": [\"bm\", \"bn\"], \"index_map\": [\"i\", \"j\"]}]}";

int main(void) {
  vmem_error err;
  vmem_kernel *k = vmem_kernel_from_spec(spec, strlen(spec), NULL, &err);
  vmem_template *tpl = k ? vmem_template_new(k, vmem_target_find("v6e", 3), NULL, NULL, NULL, &err) : NULL;
  if (!tpl) {
    fprintf(stderr, "bench_fit: %s\n", err.message);
    return 1;
  }
  /* The space: bm, bk, bn each in 8..8192 step 8 where legal (bm: multiples
   * of 8; bk, bn: multiples of 128) -> 1024 x 64 x 64 = 4.2M candidates;
   * the timed search takes the first 1M..: bm 8..2048 x bk x bn. */
  int64_t bm[1024], bk[64], bn[64];
  size_t nm = 0, nk = 0, nn = 0;
  for (int64_t v = 8; v <= 2048; v += 8)
    bm[nm++] = v;
  for (int64_t v = 128; v <= 8192; v += 128)
    bk[nk++] = v, bn[nn++] = v;
  double tv[RUNS];
  size_t fitting = 0, total = nm * nk * nn;
  volatile double sink = 0;
  for (int r = 0; r < RUNS; r++) {
    double t0 = bench_now();
    fitting = 0;
    for (size_t a = 0; a < nm; a++)
      for (size_t b = 0; b < nk; b++)
        for (size_t c = 0; c < nn; c++) {
          int64_t v[3] = {bm[a], bk[b], bn[c]};
          vmem_eval e;
          vmem_template_eval(tpl, v, &e);
          fitting += e.needed_bytes <= (32u << 20);
          sink += e.time_s;
        }
    tv[r] = bench_now() - t0;
  }
  double t = bench_median(tv, RUNS);
  printf("matmul 8192^3 bf16 on v6e: %zu candidates (bm x bk x bn), %zu fit 32 MiB\n", total, fitting);
  printf("  search     %8.1f ms   %6.2f M evaluations/s   (%.0f ns each)\n", t * 1e3, (double)total / t / 1e6,
         t / (double)total * 1e9);
  printf("(medians of %d runs, one core)\n", RUNS);
  (void)sink;
  vmem_template_free(tpl);
  vmem_kernel_free(k);
  return 0;
}
