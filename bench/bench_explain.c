/* bench_explain — explaining a large log against a plain scan.
 *
 *   bench_explain [MB]
 *
 * Builds a log of about MB megabytes (default 100) in memory: training
 * output, tracebacks and logger-prefixed lines, with a few real-format
 * memory errors (an E1001, a program-wide VMEM report with a listing, an
 * HBM error) spread through it. Reports medians of 5 runs of a memchr
 * newline scan and of vmem_explain over the same bytes, and the ratio. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "vmemscope.h"

enum { RUNS = 5 };

static const char *const noise[] = {
    "(EngineCore pid=106339) INFO 06-03 07:41:11 [core.py:1184] step 1234: loss=2.3456 lr=3.0e-4 tokens/s=123456\n",
    "I1111 07:35:00.272763  1234 tpu_compiler.cc:81] Compiling module jit_train_step for 8 devices\n",
    "  File \"/home/user/model/transformer.py\", line 123, in __call__\n    return self.mlp(x) + x\n",
    "WARNING:root:libtpu.so and TPU device found. Setting PJRT_DEVICE=TPU.\n",
};

static const char scoped[] =
    "jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Ran out of memory in memory space vmem while allocating on stack "
    "for %flash_attention_kernel.7 = bf16[8,2048,128]{2,1,0:T(16,128)(2,1)} custom-call(%a, %b), "
    "custom_call_target=\"tpu_custom_call\", metadata={op_name=\"jit(f)/flash_attention_kernel/pallas_call\"}. "
    "Scoped allocation with size 36.25M and limit 32.00M exceeded scoped vmem limit by 4.25M.\n";

static const char program[] =
    "RuntimeError: Bad StatusOr access: RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in "
    "memory space vmem. Used 32.42M of 16.00M vmem. Exceeded vmem capacity by 16.42M\n"
    "  Largest program allocations in vmem:\n\n"
    "  1. Size: 64.0K\n     Shape: f32[128,6]{1,0}\n     Unpadded size: 3.0K\n"
    "     Extra memory due to padding: 61.0K (21.3x expansion)\n     XLA label: reduce-window.4 = reduce-window(x)\n"
    "     Allocation type: scoped\n     ==========================\n";

static char *make_log(size_t target, size_t *len) {
  char *buf = malloc(target + 4096);
  size_t n = 0, i = 0;
  while (n < target) {
    const char *s = noise[i % 4];
    if (i % 200000 == 100000)
      s = (i / 200000) % 2 ? scoped : program;
    size_t k = strlen(s);
    memcpy(buf + n, s, k);
    n += k;
    i++;
  }
  *len = n;
  return buf;
}

int main(int argc, char **argv) {
  long mb = argc > 1 ? atol(argv[1]) : 100;
  size_t len;
  char *log = make_log((size_t)(mb > 0 ? mb : 100) * 1000000, &len);
  double ts[RUNS], te[RUNS];
  size_t errors = 0;
  volatile size_t sink = 0;
  for (int r = 0; r < RUNS; r++) {
    double t0 = bench_now();
    for (const char *p = log, *end = log + len; (p = memchr(p, '\n', (size_t)(end - p))); p++)
      sink++;
    double t1 = bench_now();
    vmem_error err;
    vmem_log_report *rep = vmem_explain(log, len, NULL, NULL, &err);
    double t2 = bench_now();
    if (!rep)
      return 1;
    errors = vmem_log_error_count(rep);
    vmem_log_report_free(rep);
    ts[r] = t1 - t0, te[r] = t2 - t1;
  }
  double s = bench_median(ts, RUNS), e = bench_median(te, RUNS);
  printf("log: %.1f MB, %zu distinct errors found\n", (double)len / 1e6, errors);
  printf("  memchr scan  %8.2f ms  %7.0f MB/s\n", s * 1e3, (double)len / s / 1e6);
  printf("  explain      %8.2f ms  %7.0f MB/s  %5.1fx scan\n", e * 1e3, (double)len / e / 1e6, e / s);
  printf("(medians of %d runs)\n", RUNS);
  free(log);
  return 0;
}
