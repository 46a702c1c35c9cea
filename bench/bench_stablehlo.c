/* bench_stablehlo — checking the Pallas kernels of a large StableHLO
 * module against a plain scan of the same bytes.
 *
 *   bench_stablehlo [MB] [BODY.b64]
 *
 * Builds about MB megabytes (default 100) of StableHLO text in memory, as
 * jax.jit(f).lower(x).as_text() prints it: elementwise ops, one
 * tpu_custom_call every 2,000 lines carrying BODY (base64 Mosaic bytecode;
 * default tests/golden/body_flash_attention.b64) in a \22-escaped
 * backend_config. Times, as medians of 5 runs: a memchr newline scan;
 * vmem_stablehlo_parse; and parse plus every kernel decoded and read
 * (vmem_stablehlo_op_kernel), with the ratios to the scan. Also the time to
 * decode one body alone, against a scan of its own bytes. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "vmemscope.h"

enum { RUNS = 5 };

static volatile size_t sink; /* keeps the scans from being optimised away */

static char *read_body(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  char *b = malloc(1 << 20);
  *n = fread(b, 1, (1 << 20) - 1, f);
  fclose(f);
  while (*n && (b[*n - 1] == '\n' || b[*n - 1] == ' '))
    (*n)--;
  b[*n] = '\0';
  return b;
}

static char *make_module(size_t target, const char *body, size_t *len, size_t *kernels) {
  char *buf = malloc(target + (1 << 20));
  size_t n = 0, line = 0;
  *kernels = 0;
  n += (size_t)sprintf(buf, "module @jit_model attributes {mhlo.num_partitions = 1 : i32} {\n"
                            "  func.func public @main(%%arg0: tensor<8x512x128xbf16>, %%arg1: tensor<8x512x128xbf16>) "
                            "-> tensor<8x512x128xbf16> {\n");
  while (n < target) {
    if (++line % 2000 == 0) {
      n += (size_t)sprintf(buf + n,
                           "    %%k%zu:2 = stablehlo.custom_call @tpu_custom_call(%%arg0, %%arg1) "
                           "{backend_config = \"{\\22custom_call_config\\22: {\\22body\\22: \\22",
                           line);
      memcpy(buf + n, body, strlen(body));
      n += strlen(body);
      n += (size_t)sprintf(buf + n,
                           "\\22}}\", kernel_name = \"flash_attention_kernel\"} : "
                           "(tensor<8x2048x128xbf16>, tensor<8x2048x128xbf16>) -> "
                           "(tensor<8x2048x128xbf16>, tensor<8x2048x128xf32>) loc(#loc%zu)\n",
                           line);
      (*kernels)++;
    } else {
      n += (size_t)sprintf(buf + n, "    %%%zu = stablehlo.add %%arg0, %%arg1 : tensor<8x512x128xbf16> loc(#loc%zu)\n",
                           line, line % 97);
    }
  }
  n += (size_t)sprintf(buf + n, "    return %%arg0 : tensor<8x512x128xbf16>\n  }\n}\n");
  *len = n;
  return buf;
}

static size_t scan(const char *s, size_t n) {
  size_t lines = 0;
  for (const char *p = s, *e = s + n; (p = memchr(p, '\n', (size_t)(e - p))); p++)
    lines++;
  return lines;
}

int main(int argc, char **argv) {
  long mb = argc > 1 ? atol(argv[1]) : 100;
  size_t blen, len, kernels;
  char *body = read_body(argc > 2 ? argv[2] : "tests/golden/body_flash_attention.b64", &blen);
  if (!body || mb <= 0) {
    fprintf(stderr, "usage: bench_stablehlo [MB] [BODY.b64] (run from the checkout)\n");
    return 2;
  }
  char *text = make_module((size_t)mb << 20, body, &len, &kernels);
  double ts[RUNS], tp[RUNS], tk[RUNS];
  size_t lines = 0, ops = 0, read = 0;
  for (int r = 0; r < RUNS; r++) {
    double t0 = bench_now();
    lines = scan(text, len);
    double t1 = bench_now();
    vmem_error err;
    vmem_stablehlo *m = vmem_stablehlo_parse(text, len, NULL, &err);
    double t2 = bench_now();
    read = 0;
    for (size_t i = 0; m && i < vmem_stablehlo_op_count(m); i++)
      if (vmem_stablehlo_op_at(m, i)->target.len) {
        vmem_kernel *k = vmem_stablehlo_op_kernel(m, i, NULL, &err);
        read += k != NULL;
        vmem_kernel_free(k);
      }
    double t3 = bench_now();
    ops = m ? vmem_stablehlo_op_count(m) : 0;
    vmem_stablehlo_free(m);
    ts[r] = t1 - t0, tp[r] = t2 - t1, tk[r] = t3 - t1;
  }
  double s = bench_median(ts, RUNS), p = bench_median(tp, RUNS), k = bench_median(tk, RUNS);
  printf("module: %.1f MB, %zu lines, %zu ops, %zu kernels (%zu read)\n", (double)len / 1e6, lines, ops, kernels, read);
  printf("  memchr newline scan     %8.2f ms  %7.0f MB/s\n", s * 1e3, (double)len / s / 1e6);
  printf("  parse                   %8.2f ms  %7.0f MB/s  %.1fx the scan\n", p * 1e3, (double)len / p / 1e6, p / s);
  printf("  parse + every kernel    %8.2f ms  %7.0f MB/s  %.1fx the scan\n", k * 1e3, (double)len / k / 1e6, k / s);
  enum { N = 2000 };
  double tb[RUNS], tbs[RUNS];
  for (int r = 0; r < RUNS; r++) {
    double t0 = bench_now();
    size_t x = 0;
    for (int i = 0; i < N; i++)
      x += scan(body, blen);
    double t1 = bench_now();
    for (int i = 0; i < N; i++) {
      vmem_error err;
      vmem_kernel_free(vmem_kernel_from_bytecode(body, blen, NULL, &err));
    }
    double t2 = bench_now();
    sink += x;
    tbs[r] = (t1 - t0) / N, tb[r] = (t2 - t1) / N;
  }
  double bs = bench_median(tbs, RUNS), bk = bench_median(tb, RUNS);
  printf(
      "one body (%zu base64 chars): decoded, printed and read in %.1f us (%.0f bodies/s); %.0fx a scan of its bytes\n",
      blen, bk * 1e6, 1 / bk, bk / bs);
  free(text);
  free(body);
  return 0;
}
