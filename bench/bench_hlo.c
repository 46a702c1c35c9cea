/* bench_hlo — the HLO reader against a plain scan of the same bytes.
 *
 *   bench_hlo [MB] [extra.hlo ...]
 *   bench_hlo --write FILE [MB]     (only write the synthetic module)
 *
 * Writes a synthetic module of about MB megabytes (default 100) shaped like a
 * real TPU dump — fusions with long operand and attribute lists, metadata,
 * JSON backend configs with scoped memory configs, tiled layouts, elided
 * constants, tuples — then, for it and each extra file, runs a child
 * process that maps the file, times a memchr newline scan and a full parse
 * (medians of 5), and reports MB/s, instructions/s and the parse/scan
 * ratio; then, in a fresh child, one parse, for its peak RSS against the
 * file size (the mapped file's pages counted: the child reads them all
 * first); then, in another, the whole of `vmemscope check FILE --summary`
 * (parse, sizing every instruction, the standard-op model, program
 * planning) with its own peak RSS. The peak is taken from one parse, not
 * from the timing child: five parses and frees in a row leave malloc's
 * free lists holding what one parse never has (203 against 191 MB on the
 * 100 MB module, performance.md). */
#define _DEFAULT_SOURCE /* wait4, for the child's own peak RSS */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "vmemscope.h"

enum { RUNS = 5 };

static void fused(FILE *f, int n) {
  fprintf(
      f,
      "%%fused_computation.%d (param_0.%d: bf16[8,2048,4096], param_1.%d: bf16[4096], /*index=2*/param_2.%d: f32[]) -> bf16[8,2048,4096] {\n"
      "  %%param_0.%d = bf16[8,2048,4096]{2,1,0:T(8,128)(2,1)} parameter(0)\n"
      "  %%param_1.%d = bf16[4096]{0:T(1024)(128)(2,1)} parameter(1)\n"
      "  %%param_2.%d = f32[]{:T(128)} parameter(2)\n"
      "  %%broadcast.%d = bf16[8,2048,4096]{2,1,0:T(8,128)(2,1)} broadcast(%%param_1.%d), dimensions={2}\n"
      "  %%convert.%d = bf16[]{:T(256)} convert(%%param_2.%d)\n"
      "  %%broadcast.%d.1 = bf16[8,2048,4096]{2,1,0:T(8,128)(2,1)} broadcast(%%convert.%d), dimensions={}\n"
      "  %%multiply.%d = bf16[8,2048,4096]{2,1,0:T(8,128)(2,1)} multiply(%%param_0.%d, %%broadcast.%d.1), metadata={op_type=\"mul\" op_name=\"jit(train_step)/jit(main)/transformer/layer_%d/mlp/mul\" source_file=\"/home/user/model/transformer.py\" source_line=%d}\n"
      "  ROOT %%add.%d = bf16[8,2048,4096]{2,1,0:T(8,128)(2,1)} add(%%multiply.%d, %%broadcast.%d), metadata={op_type=\"add\" op_name=\"jit(train_step)/jit(main)/transformer/layer_%d/mlp/add\" source_file=\"/home/user/model/transformer.py\" source_line=%d}\n"
      "}\n\n",
      n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, 100 + n % 900, n, n, n, n, 100 + n % 900);
}

static void entry_block(FILE *f, int n) {
  fprintf(
      f,
      "  %%constant.%d = bf16[4096]{0:T(1024)(128)(2,1)} constant({...})\n"
      "  %%scale.%d = f32[]{:T(128)} constant(0.125)\n"
      "  %%fusion.%d = bf16[8,2048,4096]{2,1,0:T(8,128)(2,1)} fusion(%%x.%d, %%constant.%d, %%scale.%d), kind=kLoop, calls=%%fused_computation.%d, "
      "metadata={op_type=\"add\" op_name=\"jit(train_step)/jit(main)/transformer/layer_%d/mlp/add\" source_file=\"/home/user/model/transformer.py\" source_line=%d}, "
      "backend_config={\"flag_configs\":[],\"scoped_memory_configs\":[{\"memory_space\":\"1\",\"offset\":\"0\",\"size\":\"16777216\"}],"
      "\"used_scoped_memory_configs\":[{\"memory_space\":\"1\",\"offset\":\"0\",\"size\":\"2359296\"}],\"output_chunk_bound_config\":{\"output_chunk_bound\":[\"1\",\"8\",\"1\"]}}\n"
      "  %%tuple.%d = (bf16[8,2048,4096]{2,1,0:T(8,128)(2,1)}, f32[]{:T(128)}) tuple(%%fusion.%d, %%scale.%d)\n"
      "  %%x.%d = bf16[8,2048,4096]{2,1,0:T(8,128)(2,1)} get-tuple-element(%%tuple.%d), index=0, sharding={devices=[1,4,1]0,1,2,3}\n",
      n, n, n, n - 1, n, n, n, n, 100 + n % 900, n, n, n, n, n);
}

/* Writes the synthetic module; returns its size. */
static long write_module(const char *path, long target_bytes) {
  FILE *f = fopen(path, "w");
  if (!f)
    return -1;
  fprintf(
      f,
      "HloModule jit_train_step, is_scheduled=true, entry_computation_layout={(bf16[8,2048,4096]{2,1,0:T(8,128)(2,1)})->bf16[8,2048,4096]{2,1,0:T(8,128)(2,1)}}\n\n");
  /* Each block is about 3 KB: fused computations first (callees before
   * callers), then one entry computation that calls them all. */
  int blocks = (int)(target_bytes / 2000);
  for (int n = 1; n <= blocks; n++)
    fused(f, n);
  fprintf(f, "ENTRY %%main (x.0: bf16[8,2048,4096]) -> bf16[8,2048,4096] {\n"
             "  %%x.0 = bf16[8,2048,4096]{2,1,0:T(8,128)(2,1)} parameter(0)\n");
  for (int n = 1; n <= blocks; n++)
    entry_block(f, n);
  fprintf(f, "  ROOT %%copy = bf16[8,2048,4096]{2,1,0:T(8,128)(2,1)} copy(%%x.%d)\n}\n", blocks);
  long size = ftell(f);
  fclose(f);
  return size;
}

static size_t scan(const char *p, size_t len) {
  size_t lines = 0;
  for (const char *end = p + len; (p = memchr(p, '\n', (size_t)(end - p))); p++)
    lines++;
  return lines;
}

/* The file mapped (NULL when it cannot be), its length in *len. */
static const char *map_file(const char *path, size_t *len) {
  int fd = open(path, O_RDONLY);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) {
    if (fd >= 0)
      close(fd);
    return NULL;
  }
  *len = (size_t)st.st_size;
  const char *map = mmap(NULL, *len, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  return map == MAP_FAILED ? NULL : map;
}

/* Resident bytes of this process now (0 when /proc cannot tell). */
static size_t resident(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  unsigned long size = 0, pages = 0;
  if (f) {
    if (fscanf(f, "%lu %lu", &size, &pages) != 2)
      pages = 0;
    fclose(f);
  }
  return (size_t)pages * (size_t)sysconf(_SC_PAGESIZE);
}

/* ---- the floor -----------------------------------------------------------
 * What any reader that builds this IR pays on this machine, whatever its
 * grammar: two threads (as the reader runs) each read their half of the
 * bytes once through a 256-entry class table — the least per-byte work of
 * a reader that looks at every byte without SIMD — and write one byte in
 * each page of fresh memory as large as their half of the IR. On a VM where
 * a fresh page costs microseconds, this alone can be most of a target. */
typedef struct floor_job {
  const char *s;
  size_t len, ir, sink;
} floor_job;

static void *floor_half(void *arg) {
  static const unsigned char cls[256] = {
      ['{'] = 1, ['}'] = 1, ['('] = 1, [')'] = 1, ['"'] = 1, [','] = 1, [' '] = 1, ['\n'] = 1, ['='] = 1, ['%'] = 1};
  floor_job *j = arg;
  size_t n = 0;
  for (size_t i = 0; i < j->len; i++)
    n += cls[(unsigned char)j->s[i]];
  char *ir = j->ir ? mmap(NULL, j->ir, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) : MAP_FAILED;
  if (ir != MAP_FAILED) {
    for (size_t i = 0; i < j->ir; i += 4096)
      ir[i] = (char)i;
    n += (size_t)ir[j->ir / 2];
    munmap(ir, j->ir);
  }
  j->sink = n;
  return NULL;
}

/* One run of the floor for len bytes and an IR of ir bytes, in seconds. */
static double floor_once(const char *map, size_t len, size_t ir) {
  floor_job a = {map, len / 2, ir / 2, 0}, b = {map + len / 2, len - len / 2, ir - ir / 2, 0};
  pthread_t th;
  double t0 = bench_now();
  bool two = pthread_create(&th, NULL, floor_half, &b) == 0;
  floor_half(&a);
  if (two)
    pthread_join(th, NULL);
  else
    floor_half(&b);
  return bench_now() - t0;
}

/* In a child: map, scan, parse; print one result line. */
static int measure(const char *path) {
  size_t len;
  const char *map = map_file(path, &len);
  if (!map)
    return 1;
  double ts[RUNS], tp[RUNS], tf[RUNS], tb[RUNS], tm[RUNS];
  size_t instrs = 0, ir = 0;
  volatile size_t sink = 0;
  for (int r = 0; r < RUNS; r++) {
    double t0 = bench_now();
    sink += scan(map, len);
    double t1 = bench_now();
    vmem_error err;
    size_t before = r == 0 ? resident() : 0;
    vmem_hlo_module *m = vmem_hlo_parse(map, len, NULL, &err);
    double t2 = bench_now();
    if (!m) {
      fprintf(stderr, "bench_hlo: %s: %s at byte %zu\n", path, err.message, err.offset);
      return 1;
    }
    if (r == 0) /* the first parse's new pages: what the IR takes */
      ir = resident() - before;
    instrs = vmem_hlo_instruction_total(m);
    vmem_hlo_free(m);
    ts[r] = t1 - t0, tp[r] = t2 - t1;
    tf[r] = floor_once(map, len, ir);
    tb[r] = floor_once(map, len, 0);
    tm[r] = floor_once(map, 0, ir);
  }
  double s = bench_median(ts, RUNS), p = bench_median(tp, RUNS), f = bench_median(tf, RUNS);
  double fb = bench_median(tb, RUNS), fm = bench_median(tm, RUNS);
  printf("  %.1f MB, %zu instructions\n", (double)len / 1e6, instrs);
  printf("  memchr scan  %9.2f ms  %7.0f MB/s\n", s * 1e3, (double)len / s / 1e6);
  printf("  parse        %9.2f ms  %7.0f MB/s  %6.2f M instructions/s  %5.1fx scan\n", p * 1e3, (double)len / p / 1e6,
         (double)instrs / p / 1e6, p / s);
  printf("  floor        %9.2f ms  %7.0f MB/s  %22s  %5.1fx scan  (no parsing: the parts below, together)\n", f * 1e3,
         (double)len / f / 1e6, "", f / s);
  printf("    each byte once through a table, two threads    %9.2f ms  %5.1fx scan\n", fb * 1e3, fb / s);
  printf("    fresh pages for the IR's %6.1f MB, two threads %9.2f ms  %5.1fx scan\n", (double)ir / 1e6, fm * 1e3,
         fm / s);
  (void)sink;
  fflush(stdout);
  return 0;
}

/* In a child: map the file, read every page of it, parse it once. */
static int measure_once(const char *path) {
  size_t len;
  const char *map = map_file(path, &len);
  if (!map)
    return 1;
  volatile size_t sink = scan(map, len);
  (void)sink;
  vmem_error err;
  vmem_hlo_module *m = vmem_hlo_parse(map, len, NULL, &err);
  if (!m)
    return 1;
  vmem_hlo_free(m);
  return 0;
}

enum { CHILD_TIMES, CHILD_ONCE, CHILD_CHECK };

/* In a child: `check PATH --summary` once, through the library's CLI entry,
 * its output discarded; prints its time. */
static int measure_check(const char *path) {
  FILE *null = fopen("/dev/null", "w");
  if (!null)
    return 1;
  const char *argv[] = {"check", path, "--summary", NULL};
  double t0 = bench_now();
  int rc = vmem_cli_run(3, argv, null, null);
  double t1 = bench_now();
  fclose(null);
  printf("  check --summary %6.0f ms (exit %d)", (t1 - t0) * 1e3, rc);
  fflush(stdout);
  return rc == 2;
}

static void run_child(const char *path, long size, int what) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0)
    _exit(what == CHILD_CHECK ? measure_check(path) : what == CHILD_ONCE ? measure_once(path) : measure(path));
  int status;
  struct rusage ru;
  if (wait4(pid, &status, 0, &ru) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    printf("  FAILED\n");
    return;
  }
  double rss = (double)ru.ru_maxrss * 1024.0; /* kB on Linux */
  if (what == CHILD_CHECK)
    printf(", peak RSS %.1f MB, %.2fx the file\n", rss / 1e6, rss / (double)size);
  else if (what == CHILD_ONCE)
    printf("  peak RSS     %9.1f MB  %5.2fx the file (one parse; the mapped file's pages included)\n", rss / 1e6,
           rss / (double)size);
}

static void run_children(const char *path, long size) {
  run_child(path, size, CHILD_TIMES);
  run_child(path, size, CHILD_ONCE);
  run_child(path, size, CHILD_CHECK);
}

int main(int argc, char **argv) {
  if (argc > 2 && !strcmp(argv[1], "--write")) {
    long size = write_module(argv[2], (argc > 3 ? atol(argv[3]) : 100) * 1000000L);
    printf("wrote %s (%ld bytes)\n", argv[2], size);
    return size < 0;
  }
  long mb = argc > 1 ? atol(argv[1]) : 100;
  if (mb <= 0)
    mb = 100;
  char path[] = "/tmp/vmemscope-bench-XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0)
    return 1;
  close(fd);
  long size = write_module(path, mb * 1000000L);
  printf("synthetic module (%s):\n", path);
  run_children(path, size);
  unlink(path);
  for (int i = 2; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) != 0) {
      printf("%s: not found, skipped\n", argv[i]);
      continue;
    }
    printf("%s:\n", argv[i]);
    run_children(argv[i], (long)st.st_size);
  }
  printf("(medians of %d runs)\n", RUNS);
  return 0;
}
