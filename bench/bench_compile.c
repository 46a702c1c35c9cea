/* bench_compile — the model against the real compiler on the same module:
 * what check --compile adds to check.
 *
 *   bench_compile [MODULE.stablehlo.mlir] [TARGET]
 *
 * MODULE (default: examples/matmul_fits_v5e.stablehlo.mlir, a Pallas matmul
 * as JAX lowers it that fits, then examples/matmul_v5e.stablehlo.mlir, the
 * same at blocks that do not) is judged two ways, each the median of 5 runs: the model
 * (parse, every kernel decoded, its footprint and verdict) and libtpu
 * (vmem_compile: a child process that loads libtpu and compiles ahead of
 * time for the target's topology; its compile call and its whole process
 * apart). Prints the times and the ratio. Needs a libtpu
 * ($VMEMSCOPE_LIBTPU, or a Python environment's): without one it says so
 * and exits 0. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "vmemscope.h"

enum { RUNS = 5 };

static char *read_all(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *b = size > 0 ? malloc((size_t)size) : NULL;
  *n = b ? fread(b, 1, (size_t)size, f) : 0;
  fclose(f);
  return b;
}

/* The model's whole answer: every kernel's footprint and verdict. */
static int model(const char *text, size_t len, const vmem_target *t) {
  vmem_error err;
  vmem_stablehlo *m = vmem_stablehlo_parse(text, len, NULL, &err);
  int over = 0;
  for (size_t i = 0; m && i < vmem_stablehlo_op_count(m); i++) {
    vmem_kernel *k = vmem_stablehlo_op_kernel(m, i, NULL, &err);
    vmem_footprint f;
    vmem_limits l;
    vmem_verdict v;
    vmem_limit_inputs in = {.vmem_limit_bytes = k ? vmem_kernel_vmem_limit_bytes(k) : -1};
    if (k && vmem_kernel_footprint(k, t, NULL, &f, &err) == VMEM_OK) {
      if (vmem_limits_resolve(t, &in, &l, &err) == VMEM_OK && vmem_kernel_verdict(&f, &l, t, &v, &err) == VMEM_OK)
        over += !v.fits;
      vmem_footprint_free(&f);
    }
    vmem_kernel_free(k);
  }
  vmem_stablehlo_free(m);
  return over;
}

static int bench_one(const char *path, const vmem_target *t);

int main(int argc, char **argv) {
  const vmem_target *t = vmem_target_find(argc > 2 ? argv[2] : "v5e", strlen(argc > 2 ? argv[2] : "v5e"));
  if (argc > 1)
    return bench_one(argv[1], t);
  int rc = bench_one("examples/matmul_fits_v5e.stablehlo.mlir", t);
  return rc ? rc : bench_one("examples/matmul_v5e.stablehlo.mlir", t);
}

static int bench_one(const char *path, const vmem_target *t) {
  size_t len;
  char *text = read_all(path, &len);
  if (!text || !t) {
    fprintf(stderr, "bench_compile: cannot read %s (or unknown target)\n", path);
    return 2;
  }
  vmem_error err;
  vmem_compiler *c = vmem_compiler_open(NULL, NULL, &err);
  if (!c) {
    printf("bench_compile: skipped: %s\n", err.message);
    free(text);
    return 0;
  }
  double tm[RUNS], tc[RUNS], tw[RUNS];
  int over = 0;
  const char *status = "";
  for (int r = 0; r < RUNS; r++) {
    double t0 = bench_now();
    over = model(text, len, t);
    tm[r] = bench_now() - t0;
    vmem_compile_options o = {.target = t};
    vmem_compile_result *res = NULL;
    if (vmem_compile(c, text, len, &o, &res, &err) != VMEM_OK) {
      fprintf(stderr, "bench_compile: %s\n", err.message);
      return 2;
    }
    tc[r] = res->compile_seconds;
    tw[r] = res->wall_seconds;
    status = vmem_compile_status_name(res->status);
    vmem_compile_result_free(res);
  }
  double m = bench_median(tm, RUNS), cc = bench_median(tc, RUNS), cw = bench_median(tw, RUNS);
  printf("%s on %s (%s): model %.3f ms (%s); compiler %s: compile %.3f s, with its process %.3f s\n", path,
         vmem_target_name(t), vmem_compiler_version(c), m * 1e3, over ? "over" : "fits", status, cc, cw);
  printf("the compiler takes %.0fx the model's time (%.0fx with loading libtpu)\n", cc / m, cw / m);
  vmem_compiler_close(c);
  free(text);
  return 0;
}
