/* bench.h — timing helpers shared by the benchmarks: a monotonic clock and
 * the median of a few runs (the machines are shared and noisy). */
#ifndef VMEM_BENCH_H
#define VMEM_BENCH_H

#include <stdlib.h>
#include <time.h>

static inline double bench_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline int bench_cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Sorts the n times in place and returns their median. */
static inline double bench_median(double *t, size_t n) {
  qsort(t, n, sizeof *t, bench_cmp);
  return t[n / 2];
}

#endif
