/* Kernels: the spec and MLIR readers, the footprint rules each in a case
 * worked by hand, the stack allocator, and the remedies. */
#include <stdio.h>
#include <stdlib.h>

#include "test.h"

static const vmem_target *target(const char *n) { return vmem_target_find(n, strlen(n)); }

static vmem_kernel *spec(const char *json) {
  vmem_error err;
  vmem_kernel *k = vmem_kernel_from_spec(json, strlen(json), NULL, &err);
  if (!k)
    fail_msg("spec: %s (offset %zu)", err.message, err.offset);
  return k;
}

static vmem_footprint footprint(const vmem_kernel *k, const char *t) {
  vmem_footprint f;
  vmem_error err;
  if (vmem_kernel_footprint(k, target(t), NULL, &f, &err) != VMEM_OK)
    fail_msg("footprint: %s", err.message);
  if (vmem_footprint_check(&f, &err) != VMEM_OK)
    fail_msg("the footprint fails its check: %s", err.message);
  return f;
}

/* A public TPU dump shows used_scoped_memory_configs of 12,288 bytes for a
 * kernel with no grid and three 8x128 i32 operands: whole operands, one
 * buffer each. */
static void test_no_grid_whole_operands(void **state) {
  (void)state;
  vmem_kernel *k = spec("{\"name\": \"add\", \"in_specs\": [{\"array\": \"s32[8,128]\"}, {\"array\": \"s32[8,128]\"}],"
                        " \"out_specs\": [{\"array\": \"s32[8,128]\"}]}");
  vmem_footprint f = footprint(k, "v5e");
  assert_int_equal(f.scoped_bytes, 12288);
  for (size_t i = 0; i < 3; i++)
    assert_int_equal(vmem_kernel_operand(k, i)->buffers, 1); /* trivial windows */
  vmem_footprint_free(&f);
  vmem_kernel_free(k);
}

/* JAX's own TPU test of pipeline modes (tests/pallas/tpu_pallas_test.py,
 * TPUPipelineModeTest.test_two_input_vadd) asserts that a compiled
 * two-input vadd -- f32 blocks of 1024 over a grid of 128, the inputs
 * Buffered(nx) and Buffered(ny) -- reports used_scoped_memory_configs of
 * 1024 * 4 * (2 + nx + ny) bytes: the output double-buffered, each input
 * with its buffer count, nothing else. */
static void test_buffer_counts_as_jax_asserts(void **state) {
  (void)state;
  for (int nx = 1; nx <= 2; nx++)
    for (int ny = 1; ny <= 2; ny++) {
      char json[768];
      snprintf(
          json, sizeof json,
          "{\"name\": \"vadd\", \"grid_axes\": [\"i\"], \"dimension_semantics\": [\"arbitrary\"],"
          " \"in_specs\": [{\"array\": \"f32[131072]\", \"block\": [1024], \"index_map\": [\"i\"], \"buffers\": %d},"
          "  {\"array\": \"f32[131072]\", \"block\": [1024], \"index_map\": [\"i\"], \"buffers\": %d}],"
          " \"out_specs\": [{\"array\": \"f32[131072]\", \"block\": [1024], \"index_map\": [\"i\"]}]}",
          nx, ny);
      vmem_kernel *k = spec(json);
      assert_int_equal(vmem_kernel_grid_bound(k, 0), 128);
      vmem_footprint f = footprint(k, "v5e");
      assert_int_equal(f.scoped_bytes, 1024 * 4 * (2 + nx + ny));
      vmem_footprint_free(&f);
      vmem_kernel_free(k);
    }
}

static const char matmul[] =
    "{\"name\": \"mm\", \"grid_axes\": [\"i\", \"j\", \"k\"], \"params\": {\"bm\": 512, \"bn\": 512, \"bk\": 512},"
    " \"in_specs\": [{\"name\": \"x\", \"array\": \"bf16[4096,4096]\", \"block\": [\"bm\", \"bk\"], \"index_map\": [\"i\", \"k\"]},"
    "               {\"name\": \"y\", \"array\": \"bf16[4096,4096]\", \"block\": [\"bk\", \"bn\"], \"index_map\": [\"k\", \"j\"]}],"
    " \"out_specs\": [{\"name\": \"z\", \"array\": \"bf16[4096,4096]\", \"block\": [\"bm\", \"bn\"], \"index_map\": [\"i\", \"j\"]}],"
    " \"scratch\": [{\"name\": \"acc\", \"dtype\": \"f32\", \"shape\": [\"bm\", \"bn\"]}]}";

/* 7x copies the kernel's inputs whole into VMEM before the kernel while
 * they fit physical - limit - 10 MiB, in operand order; one whose block is
 * a contiguous run of it is read in place, with no window (the oracle's
 * rows_*, constant_window_*, fixed_* and share_* records). v6e copies none. */
static char *bias_spec(const char *barray, int brows, int bcols, int64_t limit) {
  static char buf[1024];
  snprintf(
      buf, sizeof buf,
      "{\"name\": \"bias\", \"grid_axes\": [\"i\"]%s%.0lld%s,"
      " \"in_specs\": [{\"name\": \"x\", \"array\": \"f32[8192,1024]\", \"block\": [512, 1024], \"index_map\": [\"i\", 0]},"
      "               {\"name\": \"b\", \"array\": \"%s\", \"block\": [%d, %d], \"index_map\": [0, 0], \"buffers\": 1}],"
      " \"out_specs\": [{\"name\": \"o\", \"array\": \"f32[8192,1024]\", \"block\": [512, 1024], \"index_map\": [\"i\", 0]}]}",
      limit ? ", \"vmem_limit_bytes\": " : "", (long long)limit, "", barray, brows, bcols);
  return buf;
}

static uint64_t prefetched_of(const vmem_footprint *f, size_t op) {
  for (size_t i = 0; i < f->count; i++)
    if (f->allocs[i].kind == VMEM_ALLOC_PREFETCHED && f->allocs[i].operand == op) {
      assert_int_equal(f->allocs[i].offset, 0); /* off the stack */
      return f->allocs[i].bytes;
    }
  return 0;
}

static void test_inputs_prefetched_on_7x(void **state) {
  (void)state;
  const uint64_t windows = 4 * 2097152; /* x and o: 2 x 2 MiB each; x (32 MiB) is past the budget */
  vmem_kernel *k = spec(bias_spec("f32[8,1024]", 8, 1024, 0));
  vmem_footprint f6 = footprint(k, "v6e"), f7 = footprint(k, "7x");
  assert_int_equal(f6.scoped_bytes, windows + 32768);
  assert_int_equal(f6.prefetched_bytes, 0);
  assert_int_equal(f7.scoped_bytes, windows); /* the whole bias: copied, read in place */
  assert_int_equal(f7.prefetched_bytes, 32768);
  assert_int_equal(prefetched_of(&f7, 1), 32768);
  assert_int_equal(prefetched_of(&f7, 0), 0);
  assert_int_equal(f7.stack_bytes, f6.stack_bytes - 32768);
  assert_string_equal(vmem_alloc_kind_name(VMEM_ALLOC_PREFETCHED), "prefetched");
  vmem_footprint_free(&f6);
  vmem_footprint_free(&f7);
  vmem_kernel_free(k);
  /* Rows of a small array: a contiguous run, read in place; the array counts. */
  k = spec(bias_spec("f32[64,1024]", 8, 1024, 0));
  f7 = footprint(k, "7x");
  assert_int_equal(f7.scoped_bytes, windows);
  assert_int_equal(f7.prefetched_bytes, 262144);
  vmem_footprint_free(&f7);
  vmem_kernel_free(k);
  /* A tile of a small array: copied, but read through its window. */
  k = spec(bias_spec("f32[64,2048]", 8, 1024, 0));
  f7 = footprint(k, "7x");
  assert_int_equal(f7.scoped_bytes, windows + 32768);
  assert_int_equal(f7.prefetched_bytes, 0);
  vmem_footprint_free(&f7);
  vmem_kernel_free(k);
  /* An array past the budget (32 MiB of 22): not copied. */
  k = spec(bias_spec("f32[8192,1024]", 8, 1024, 0));
  f7 = footprint(k, "7x");
  assert_int_equal(f7.scoped_bytes, windows + 32768);
  vmem_footprint_free(&f7);
  vmem_kernel_free(k);
  /* The budget follows the limit: 48 MiB leaves 6 MiB, 64 MiB none. */
  k = spec(bias_spec("f32[2048,1024]", 8, 1024, 48 << 20)); /* 8 MiB: past 6 */
  f7 = footprint(k, "7x");
  assert_int_equal(f7.prefetched_bytes, 0);
  vmem_footprint_free(&f7);
  vmem_kernel_free(k);
  k = spec(bias_spec("f32[1024,1024]", 8, 1024, 48 << 20)); /* 4 MiB: within 6 */
  f7 = footprint(k, "7x");
  assert_int_equal(f7.prefetched_bytes, 4194304);
  vmem_footprint t;
  vmem_error err;
  vmem_plan_options all = {0, -1, false, 64u << 20};
  assert_int_equal(vmem_kernel_footprint(k, target("7x"), &all, &t, &err), VMEM_OK);
  assert_int_equal(t.prefetched_bytes, 0);
  vmem_footprint_free(&t);
  vmem_footprint_free(&f7);
  vmem_kernel_free(k);
}

/* Every target reads a laid-out operand whose memory space is S(1) in
 * place: XLA put it in VMEM (paged attention's q and output on v5e and v6e,
 * libtpu 0.0.42.1). An output too; one without S(1) keeps its windows. */
static void test_s1_operands_in_place_everywhere(void **state) {
  (void)state;
  vmem_kernel *k = spec(bias_spec("f32[8,1024]", 8, 1024, 0));
  vmem_error err;
  assert_int_equal(vmem_kernel_set_array(k, "x", "f32[8192,1024]{1,0:T(8,128)}", &err), VMEM_OK);
  assert_int_equal(vmem_kernel_set_array(k, "b", "f32[8,1024]{1,0:T(8,128)S(1)}", &err), VMEM_OK);
  assert_int_equal(vmem_kernel_set_array(k, "o", "f32[8192,1024]{1,0:T(8,128)S(1)}", &err), VMEM_OK);
  vmem_footprint f = footprint(k, "v6e");
  assert_int_equal(f.scoped_bytes, 2 * 2097152); /* x's windows alone */
  assert_int_equal(prefetched_of(&f, 0), 0);
  assert_int_equal(prefetched_of(&f, 1), 32768);
  assert_int_equal(prefetched_of(&f, 2), 33554432);
  assert_int_equal(f.prefetched_bytes, 32768 + 33554432);
  vmem_footprint_free(&f);
  vmem_kernel_free(k);
}

/* Contiguity past leading ones (libtpu probes, 2026-12-04): a (1, 128, 128)
 * block of bf16[2,4096,128] is one run of 128 rows, read in place on 7x; a
 * (2, 128, 128) block is two runs, 8 MiB apart, and keeps its windows. */
static void test_prefetched_block_runs(void **state) {
  (void)state;
  static const char fmt[] =
      "{\"name\": \"runs\", \"grid_axes\": [%s\"j\"],"
      " \"in_specs\": [{\"name\": \"x\", \"array\": \"bf16[2,4096,128]\", \"block\": [%d, 128, 128], \"index_map\": "
      "[%s, \"j\", 0]}],"
      " \"out_specs\": [{\"name\": \"o\", \"array\": \"bf16[2,4096,128]\", \"block\": [%d, 128, 128], \"index_map\": "
      "[%s, \"j\", 0]}]}";
  char buf[1024];
  snprintf(buf, sizeof buf, fmt, "\"i\", ", 1, "\"i\"", 1, "\"i\"");
  vmem_kernel *k = spec(buf);
  vmem_footprint f = footprint(k, "7x");
  assert_int_equal(f.scoped_bytes, 2 * 32768); /* the output's windows alone */
  assert_int_equal(f.prefetched_bytes, 2097152);
  vmem_footprint_free(&f);
  vmem_kernel_free(k);
  snprintf(buf, sizeof buf, fmt, "", 2, "0", 2, "0");
  k = spec(buf);
  f = footprint(k, "7x");
  assert_int_equal(f.scoped_bytes, 4 * 65536); /* input and output windows */
  assert_int_equal(f.prefetched_bytes, 0);
  vmem_footprint_free(&f);
  vmem_kernel_free(k);
}

static void test_double_buffered_windows_and_scratch(void **state) {
  (void)state;
  vmem_kernel *k = spec(matmul);
  /* The grid is derived: 4096 / 512 = 8 along each axis. */
  assert_int_equal(vmem_kernel_grid_rank(k), 3);
  assert_int_equal(vmem_kernel_grid_bound(k, 2), 8);
  vmem_footprint f = footprint(k, "v5e");
  /* 3 windows x 2 buffers x 512*512*2 B + one f32 scratch 512*512*4 B. */
  assert_int_equal(f.scoped_bytes, 3 * 2 * 524288 + 1048576);
  assert_int_equal(f.internal_scratch_bytes, 73728);
  assert_int_equal(f.count, 5);
  /* The stack: each allocation at the end of the previous, 512-aligned. */
  assert_int_equal(f.allocs[1].offset, 1048576);
  assert_int_equal(f.allocs[3].offset, 3145728);
  assert_int_equal(f.allocs[4].kind, VMEM_ALLOC_INTERNAL_SCRATCH);
  assert_int_equal(f.stack_bytes, 4194304 + 73728);
  vmem_footprint_free(&f);
  vmem_kernel_free(k);
}

static void test_padding_by_generation(void **state) {
  (void)state;
  /* A bf16 block of 24 rows: (8,128)(2,1) tiles pad 200 lanes to 256. A
   * scratch buffer on v6e may take Mosaic's 16-row tiling, but only when
   * its rows divide by 16, so 24 rows keep 8-row tiles and the same size. */
  vmem_kernel *k = spec("{\"in_specs\": [{\"array\": \"bf16[24,200]\"}],"
                        " \"scratch\": [{\"dtype\": \"bf16\", \"shape\": [24, 256]}]}");
  vmem_footprint f = footprint(k, "v5e");
  assert_int_equal(f.allocs[0].bytes, 24 * 256 * 2);
  assert_int_equal(f.allocs[1].bytes, 24 * 256 * 2);
  vmem_footprint_free(&f);
  f = footprint(k, "v6e");
  assert_int_equal(f.allocs[0].bytes, 24 * 256 * 2); /* a kernel argument: XLA's (8,128) */
  assert_int_equal(f.allocs[1].bytes, 24 * 256 * 2);
  vmem_footprint_free(&f);
  vmem_kernel_free(k);
}

static void test_spaces_and_buffers(void **state) {
  (void)state;
  vmem_kernel *k = spec(
      "{\"grid\": [4], \"grid_axes\": [\"i\"],"
      " \"scalar_prefetch\": [{\"array\": \"s32[100]\"}],"
      " \"in_specs\": [{\"array\": \"f32[1024,128]\", \"block\": [256, 128], \"index_map\": [\"i\", 0], \"buffers\": 1},"
      "               {\"array\": \"f32[1024,128]\", \"memory_space\": \"any\"},"
      "               {\"array\": \"s32[8,128]\", \"memory_space\": \"smem\"}],"
      " \"out_specs\": [{\"array\": \"f32[1024,128]\", \"block\": [256, 128], \"index_map\": [\"i\", 0]}],"
      " \"scratch\": [{\"memory_space\": \"semaphore\"}], \"internal_scratch_in_bytes\": 0}");
  vmem_footprint f = footprint(k, "v5e");
  assert_int_equal(f.scoped_bytes, 131072 + 2 * 131072);
  assert_int_equal(f.internal_scratch_bytes, 0); /* given by the kernel */
  assert_int_equal(f.smem_bytes, 512 + 4096);
  assert_int_equal(vmem_kernel_operand(k, 1)->buffers, 1);
  assert_true(vmem_kernel_operand(k, 1)->buffers_given);
  vmem_footprint_free(&f);
  vmem_kernel_free(k);
}

static void test_remedies(void **state) {
  (void)state;
  vmem_kernel *k = spec(matmul);
  vmem_remedies r;
  vmem_error err;
  /* 4 MiB of windows and scratch against a 3 MiB limit; the internal
   * scratch lies beside the limit, so 4 MiB is the request. */
  assert_int_equal(vmem_kernel_remedies(k, target("v5e"), NULL, 3 << 20, &r, &err), VMEM_OK);
  assert_int_equal(r.needed_bytes, 4194304);
  assert_int_equal(r.request_bytes, 4 << 20);
  assert_true(r.request_within_physical);
  assert_true(r.nshrink >= 1);
  for (size_t i = 0; i < r.nshrink; i++) {
    assert_non_null(r.shrink[i].param_name);
    assert_true(r.shrink[i].to < r.shrink[i].from);
    assert_true(r.shrink[i].scoped_bytes <= 3 << 20); /* the internal scratch beside it */
  }
  /* bk halved to 256: the x and y windows halve, z and acc stay, and the
   * 3 MiB they make is the limit to the byte (the internal scratch lies
   * beside it). */
  bool bk = false;
  for (size_t i = 0; i < r.nshrink; i++)
    if (!strcmp(r.shrink[i].param_name, "bk")) {
      bk = true;
      assert_int_equal(r.shrink[i].to, 256);
      assert_int_equal(r.shrink[i].scoped_bytes, 3 << 20);
    }
  assert_true(bk);
  /* x does not move along the innermost axis (k)? It does; y neither: no
   * Buffered(1) candidate. The coloring what-if adds whole arrays. */
  assert_int_equal(r.nbuffered1, 0);
  assert_int_equal(r.ncoloring, 2);
  assert_int_equal(r.coloring[0].program_added_bytes, 4096 * 4096 * 2);
  vmem_kernel_free(k);
}

typedef struct bad_spec {
  const char *json;
  const char *words;
} bad_spec;

static void test_spec_errors(void **state) {
  (void)state;
  static const bad_spec cases[] = {
      {"", "empty input"},
      {"{\"in_specs\": [", "JSON:"},
      {"[1, 2]", "a JSON object"},
      {"{\"in_specs\": [{\"array\": \"f32[8,128]\", \"block\": [\"bq\", 128]}]}",
       "in_specs[0].block[0]: unknown parameter 'bq'"},
      {"{\"in_specs\": [{\"array\": \"f32[64,256]\", \"block\": [8, 100]}]}", "multiple of 128"},
      {"{\"in_specs\": [{\"array\": \"f32[64,256]\", \"block\": [12, 128]}]}", "multiple of 8"},
      {"{\"in_specs\": [{\"array\": \"f32[64,256]\", \"block\": [8]}]}", "block has 1 dimensions, the array 2"},
      {"{\"in_specs\": [{\"array\": \"f32[64,256]\", \"block\": [128, 256]}]}", "larger than the array"},
      {"{\"in_specs\": [{\"array\": \"f31[8]\"}]}", "unknown element type"},
      {"{\"in_specs\": [{\"array\": \"f32[8]\", \"memory_space\": \"l2\"}]}", "memory_space"},
      {"{\"in_specs\": [{\"array\": \"f32[8]\", \"buffers\": 3}]}", "Buffered(1) or Buffered(2)"},
      {"{\"grid\": [0], \"in_specs\": []}", "grid[0]: a dimension must be positive"},
      {"{\"grid_axes\": [\"i\"], \"in_specs\": [{\"array\": \"f32[64,128]\", \"block\": [8, 128], \"index_map\": [\"j\", 0]}]}",
       "not a grid axis name"},
      {"{\"in_specs\": [{\"block\": [8, 128]}]}", "give \"array\" or a known \"dtype\""},
      {"{\"params\": {\"bm\": -4}}", "params.bm: expected a positive integer"},
      {"{\"in_specs\": [{\"array\": \"f32[?,128]\"}]}", "dynamic dimensions"},
      {"{\"in_specs\": [{\"array\": \"f32[2000]\", \"block\": [1000]}]}", "1-D block"},
      /* found by fuzz_spec: an empty array's whole-array block divided by zero */
      {"{\"grid_axes\": [\"i\"], \"in_specs\": [{\"array\": \"f32[0,128]\", \"index_map\": [\"i\", 0]}]}",
       "no array dimension it drives"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    vmem_error err;
    vmem_kernel *k = vmem_kernel_from_spec(cases[i].json, strlen(cases[i].json), NULL, &err);
    if (k || !strstr(err.message, cases[i].words))
      fail_msg("case %zu: %s; want '%s'", i, k ? "parsed" : err.message, cases[i].words);
  }
}

/* A spec error is found again in the text: the value its JSON path names. */
static void test_spec_error_offsets(void **state) {
  (void)state;
  static const struct {
    const char *json;
    size_t offset;
  } cases[] = {
      {"{\"in_specs\": [{\"array\": \"f32[64,256]\", \"block\": [8, 100]}]}", 14},
      {"{\n  \"params\": {\"a\": 1, \"bm\": -4}\n}", 29},
      {"{\"in_specs\": [{\"array\": \"f32[8]\"}, {\"array\": \"f32[8]\", \"buffers\": 3}]}", 66},
      {"{\"comment\": \"\\\"]}\", \"params\": {\"bm\": 0}}", 37}, /* an escaped quote and brackets in a string */
      {"{\"name\": \"k\", \"in_spec\": []}", 25},                 /* an unknown key, at its value */
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    vmem_error err;
    vmem_kernel *k = vmem_kernel_from_spec(cases[i].json, strlen(cases[i].json), NULL, &err);
    assert_null(k);
    if (err.offset != cases[i].offset)
      fail_msg("case %zu (%s): offset %zu, want %zu", i, err.message, err.offset, cases[i].offset);
  }
}

static void test_mlir_kernel(void **state) {
  (void)state;
  const char *text =
      "module {\n"
      "  func.func @k(%arg0: i32, %arg1: memref<8x256xf32, #tpu.memory_space<vmem>>, %arg2: memref<8x256xf32, "
      "#tpu.memory_space<vmem>>) attributes {dimension_semantics = [#tpu.dimension_semantics<parallel>], "
      "iteration_bounds = array<i64: 3>, scalar_prefetch = 0 : i64, scratch_operands = 0 : i64, window_params = "
      "[{transform_indices = @transform_0, window_bounds = array<i64: 8, 256>}, {transform_indices = @transform_1, "
      "window_bounds = array<i64: 8, 256>}]} {\n"
      "    %0 = vector.load %arg1[%c0, %c0] : memref<8x256xf32, #tpu.memory_space<vmem>>, vector<8x256xf32>\n"
      "    vector.store %0, %arg2[%c0, %c0] : memref<8x256xf32, #tpu.memory_space<vmem>>, vector<8x256xf32>\n"
      "    return\n  }\n"
      "  func.func @transform_0(%arg0: i32) -> (i32, i32) {\n    %c0_i32 = arith.constant 0 : i32\n"
      "    return %arg0, %c0_i32 : i32, i32\n  }\n"
      "  func.func @transform_1(%arg0: i32) -> (i32, i32) {\n    %c0_i32 = arith.constant 0 : i32\n"
      "    return %c0_i32, %arg0 : i32, i32\n  }\n}\n";
  vmem_error err;
  vmem_kernel *k = vmem_kernel_from_mlir(text, strlen(text), NULL, &err);
  if (!k)
    fail_msg("%s at %zu", err.message, err.offset);
  assert_string_equal(vmem_kernel_name(k), "k");
  assert_int_equal(vmem_kernel_grid_bound(k, 0), 3);
  assert_string_equal(vmem_kernel_dimension_semantics(k, 0), "parallel");
  assert_true(vmem_kernel_roles_known(k));
  const vmem_operand *in = vmem_kernel_operand(k, 0), *out = vmem_kernel_operand(k, 1);
  assert_int_equal(in->role, VMEM_ROLE_INPUT);
  assert_int_equal(out->role, VMEM_ROLE_OUTPUT);
  assert_int_equal(in->index_axis[0], 0);
  assert_int_equal(in->index_axis[1], VMEM_INDEX_CONSTANT);
  assert_int_equal(out->index_axis[1], 0);
  vmem_footprint f = footprint(k, "v5e");
  assert_int_equal(f.scoped_bytes, 2 * 2 * 8192);
  vmem_footprint_free(&f);
  vmem_kernel_free(k);
}

/* A window whose block index never changes over the grid (a constant, or an
 * axis of extent 1) gets one buffer; one that moves along an axis of extent 3
 * keeps two; a given pipeline_mode is kept. The compiler's figures behind the
 * rule are the oracle's one-step records (docs/fidelity.md). */
static void test_mlir_fixed_window_single_buffered(void **state) {
  (void)state;
  const char *text =
      "module {\n"
      "  func.func @k(%arg0: i32, %arg1: i32, %arg2: memref<8x256xf32, #tpu.memory_space<vmem>>, %arg3: "
      "memref<8x256xf32, #tpu.memory_space<vmem>>, %arg4: memref<8x256xf32, #tpu.memory_space<vmem>>) attributes "
      "{dimension_semantics = [#tpu.dimension_semantics<parallel>, #tpu.dimension_semantics<arbitrary>], "
      "iteration_bounds = array<i64: 3, 1>, scalar_prefetch = 0 : i64, scratch_operands = 0 : i64, window_params = "
      "[{transform_indices = @transform_0, window_bounds = array<i64: 8, 256>}, {pipeline_mode = "
      "#tpu.pipeline_mode<double_buffered>, transform_indices = @transform_0, window_bounds = array<i64: 8, 256>}, "
      "{transform_indices = @transform_1, window_bounds = array<i64: 8, 256>}]} {\n"
      "    return\n  }\n"
      "  func.func @transform_0(%arg0: i32, %arg1: i32) -> (i32, i32) {\n    %c0_i32 = arith.constant 0 : i32\n"
      "    return %arg1, %c0_i32 : i32, i32\n  }\n"
      "  func.func @transform_1(%arg0: i32, %arg1: i32) -> (i32, i32) {\n    %c0_i32 = arith.constant 0 : i32\n"
      "    return %arg0, %c0_i32 : i32, i32\n  }\n}\n";
  vmem_error err;
  vmem_kernel *k = vmem_kernel_from_mlir(text, strlen(text), NULL, &err);
  if (!k)
    fail_msg("%s at %zu", err.message, err.offset);
  assert_int_equal(vmem_kernel_operand(k, 0)->buffers, 1);
  assert_int_equal(vmem_kernel_operand(k, 1)->buffers, 2);
  assert_int_equal(vmem_kernel_operand(k, 2)->buffers, 2);
  vmem_footprint f = footprint(k, "v5e");
  assert_int_equal(f.scoped_bytes, (1 + 2 + 2) * 8192);
  vmem_footprint_free(&f);
  vmem_kernel_free(k);
}

/* MLIR states a bound known only at run time as INT64_MIN (megablox gmm's
 * tiles per group): the kernel reads, the bound is VMEM_GRID_DYNAMIC, and
 * the windows are sized as ever. Any other bound below 1 is an error. */
static void test_mlir_dynamic_grid(void **state) {
  (void)state;
  static const char head[] =
      "func.func @k(%arg0: i32, %arg1: memref<8x256xf32, #tpu.memory_space<vmem>>) attributes {dimension_semantics = "
      "[#tpu.dimension_semantics<arbitrary>], iteration_bounds = array<i64: ";
  static const char tail[] =
      ">, scalar_prefetch = 0 : i64, scratch_operands = 0 : i64, window_params = [{transform_indices = @t, "
      "window_bounds = array<i64: 8, 256>}]} {\n  return\n}\nfunc.func @t(%arg0: i32) -> (i32, i32) {\n"
      "  %c0_i32 = arith.constant 0 : i32\n  return %arg0, %c0_i32 : i32, i32\n}\n";
  char text[1024];
  snprintf(text, sizeof text, "%s%s%s", head, "-9223372036854775808", tail);
  vmem_error err;
  vmem_kernel *k = vmem_kernel_from_mlir(text, strlen(text), NULL, &err);
  if (!k)
    fail_msg("%s at %zu", err.message, err.offset);
  assert_int_equal(vmem_kernel_grid_bound(k, 0), VMEM_GRID_DYNAMIC);
  assert_int_equal(vmem_kernel_operand(k, 0)->buffers, 2); /* a dynamic axis may move the block */
  vmem_footprint f = footprint(k, "v5e");
  assert_int_equal(f.scoped_bytes, 2 * 8192);
  vmem_footprint_free(&f);
  vmem_kernel_free(k);
  for (size_t i = 0; i < 2; i++) {
    snprintf(text, sizeof text, "%s%s%s", head, i ? "-9223372036854775809" : "-3", tail);
    assert_null(vmem_kernel_from_mlir(text, strlen(text), NULL, &err));
  }
}

/* FLOPs from the body: a matmul is 2·M·N·K with K from the dimension
 * numbers (here the lhs's dim 1 = 256), an addf one per element, exp a
 * transcendental; scalar arithmetic and casts are not counted. Over a
 * grid of 4 steps; the cost model then has real intensity. */
static void test_mlir_body_flops(void **state) {
  (void)state;
  static const char text[] =
      "func.func @k(%arg0: i32, %arg1: memref<128x256xbf16, #tpu.memory_space<vmem>>, %arg2: memref<256x512xbf16, "
      "#tpu.memory_space<vmem>>, %arg3: memref<128x512xf32, #tpu.memory_space<vmem>>) attributes {dimension_semantics = "
      "[#tpu.dimension_semantics<parallel>], iteration_bounds = array<i64: 4>, scalar_prefetch = 0 : i64, "
      "scratch_operands = 0 : i64, window_params = [{transform_indices = @t0, window_bounds = array<i64: 128, 256>}, "
      "{transform_indices = @t1, window_bounds = array<i64: 256, 512>}, {transform_indices = @t0, window_bounds = "
      "array<i64: 128, 512>}]} {\n"
      "  %c0 = arith.constant 0 : index\n"
      "  %s = \"arith.addi\"(%arg0, %arg0) : (i32, i32) -> i32\n"
      "  %0 = \"vector.load\"(%arg1, %c0, %c0) : (memref<128x256xbf16, #tpu.memory_space<vmem>>, index, index) -> vector<128x256xbf16>\n"
      "  %1 = \"vector.load\"(%arg2, %c0, %c0) : (memref<256x512xbf16, #tpu.memory_space<vmem>>, index, index) -> vector<256x512xbf16>\n"
      "  %z = arith.constant dense<0.000000e+00> : vector<128x512xf32>\n"
      "  %2 = \"tpu.matmul\"(%0, %1, %z) {dimension_numbers = #tpu.dot_dimension_numbers<[1], [0], [0], [1], [0, 0, 1, 1], [], []>} : (vector<128x256xbf16>, vector<256x512xbf16>, vector<128x512xf32>) -> vector<128x512xf32>\n"
      "  %3 = \"arith.addf\"(%2, %2) {fastmath = #arith.fastmath<none>} : (vector<128x512xf32>, vector<128x512xf32>) -> vector<128x512xf32>\n"
      "  %4 = \"math.exp\"(%3) : (vector<128x512xf32>) -> vector<128x512xf32>\n"
      "  %5 = \"arith.truncf\"(%4) : (vector<128x512xf32>) -> vector<128x512xbf16>\n"
      "  return\n}\n"
      "func.func @t0(%arg0: i32) -> (i32, i32) {\n  %c0_i32 = arith.constant 0 : i32\n  return %arg0, %c0_i32 : i32, i32\n}\n"
      "func.func @t1(%arg0: i32) -> (i32, i32) {\n  %c0_i32 = arith.constant 0 : i32\n  return %c0_i32, %c0_i32 : i32, i32\n}\n";
  vmem_error err;
  vmem_kernel *k = vmem_kernel_from_mlir(text, strlen(text), NULL, &err);
  if (!k)
    fail_msg("%s at %zu", err.message, err.offset);
  vmem_kernel_cost_report c;
  assert_int_equal(vmem_kernel_cost(k, vmem_target_find("v5e", 3), NULL, NULL, &c, &err), VMEM_OK);
  double per_step = 2.0 * 128 * 512 * 256 + 128 * 512;
  assert_true(c.eval.flops == 4 * per_step);
  assert_true(c.transcendentals == 4.0 * 128 * 512);
  assert_int_equal(c.flops_source, VMEM_FLOPS_BODY);
  assert_int_equal(c.eval.grid_steps, 4);
  assert_true(c.eval.intensity > 0);
  /* --flops wins over the body */
  vmem_cost_options o = {.step_overhead_s = -1, .flops = 1e9};
  assert_int_equal(vmem_kernel_cost(k, vmem_target_find("v5e", 3), NULL, &o, &c, &err), VMEM_OK);
  assert_true(c.eval.flops == 1e9);
  assert_int_equal(c.flops_source, VMEM_FLOPS_OPTION);
  vmem_kernel_free(k);
}

static void test_mlir_errors(void **state) {
  (void)state;
  static const bad_spec cases[] = {
      {"", "empty input"},
      {"module { }", "no func.func"},
      {"func.func @f() { return }", "not a Pallas kernel"},
      {"func.func @f(%a: memref<8xf32>) attributes {dimension_semantics = [], window_params = [{window_bounds = array<i64: 8>}]} { }",
       "without transform_indices"},
      {"func.func @f(%a: memref<8xq7>) attributes {dimension_semantics = []} { }", "unknown element type 'q7'"},
      {"func.func @f(%a: memref<8xf32, #tpu.memory_space<l3>>) attributes {dimension_semantics = []} { }",
       "unknown memory space"},
      {"func.func @f(%a: memref<8xf32> attributes {dimension_semantics = []} { }", "unterminated"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    vmem_error err;
    vmem_kernel *k = vmem_kernel_from_mlir(cases[i].json, strlen(cases[i].json), NULL, &err);
    if (k || !strstr(err.message, cases[i].words))
      fail_msg("case %zu: %s; want '%s'", i, k ? "parsed" : err.message, cases[i].words);
  }
}

/* The verdict, decided once in the library: each boundary of the four
 * scoped verdicts, the cap at physical VMEM, and SMEM judged apart. */
static void test_verdict(void **state) {
  (void)state;
  const vmem_target *t = vmem_target_find("v5e", 3);
  vmem_limits l = {.effective_bytes = 1000, .physical_bytes = 128u << 20};
  /* The internal scratch lies beside the limit: 800 + 100 modelled (200 at
   * their ceiling) of 1000 fits at the ceiling to the byte, whatever the
   * internal scratch. */
  vmem_footprint f = {
      .scoped_bytes = 800, .modelled_bytes = 100, .modelled_high_bytes = 200, .internal_scratch_bytes = 4096};
  vmem_verdict v;
  assert_int_equal(vmem_kernel_verdict(&f, &l, t, &v, NULL), VMEM_OK);
  assert_int_equal(v.scoped, VMEM_VERDICT_FITS);
  assert_true(v.fits);
  assert_int_equal(v.needed_bytes, 900);
  assert_int_equal(v.ceiling_bytes, 1000);
  f.modelled_high_bytes = 201; /* the estimate fits, the ceiling is a byte over: the estimate decides */
  assert_int_equal(vmem_kernel_verdict(&f, &l, t, &v, NULL), VMEM_OK);
  assert_int_equal(v.scoped, VMEM_VERDICT_AT_RISK);
  assert_true(v.fits);
  f.modelled_bytes = 200, f.modelled_high_bytes = 0; /* a ceiling under the estimate counts as the estimate */
  assert_int_equal(vmem_kernel_verdict(&f, &l, t, &v, NULL), VMEM_OK);
  assert_int_equal(v.scoped, VMEM_VERDICT_FITS);
  assert_int_equal(v.ceiling_bytes, 1000);
  f.modelled_high_bytes = 1000; /* 1000 of 1000 with the estimate, far over at the ceiling: at risk */
  assert_int_equal(vmem_kernel_verdict(&f, &l, t, &v, NULL), VMEM_OK);
  assert_int_equal(v.scoped, VMEM_VERDICT_AT_RISK);
  f.scoped_bytes = 1000, f.modelled_bytes = 0, f.modelled_high_bytes = 0; /* exact to the byte, nothing modelled */
  assert_int_equal(vmem_kernel_verdict(&f, &l, t, &v, NULL), VMEM_OK);
  assert_int_equal(v.scoped, VMEM_VERDICT_FITS);
  f.scoped_bytes = 800, f.modelled_bytes = 201, f.modelled_high_bytes = 300;
  /* over with the estimate, but none of it sized by a rule inside its domain: at risk, never likely E1001 */
  assert_int_equal(vmem_kernel_verdict(&f, &l, t, &v, NULL), VMEM_OK);
  assert_int_equal(v.scoped, VMEM_VERDICT_AT_RISK);
  assert_true(v.estimate_over && v.fits);
  f.modelled_firm_bytes = 200; /* the rules inside their domain fit to the byte: still at risk */
  assert_int_equal(vmem_kernel_verdict(&f, &l, t, &v, NULL), VMEM_OK);
  assert_int_equal(v.scoped, VMEM_VERDICT_AT_RISK);
  f.modelled_firm_bytes = 201; /* they are over: likely E1001 */
  assert_int_equal(vmem_kernel_verdict(&f, &l, t, &v, NULL), VMEM_OK);
  assert_int_equal(v.scoped, VMEM_VERDICT_LIKELY_E1001);
  assert_false(v.fits || v.estimate_over);
  f.scoped_bytes = 1001;
  assert_int_equal(vmem_kernel_verdict(&f, &l, t, &v, NULL), VMEM_OK);
  assert_int_equal(v.scoped, VMEM_VERDICT_E1001);
  assert_string_equal(vmem_verdict_name(v.scoped), "e1001");
  assert_null(vmem_verdict_name((vmem_verdict_code)4));

  /* A limit above physical VMEM is judged at physical VMEM. */
  vmem_limits big = {.effective_bytes = 200u << 20, .physical_bytes = 128u << 20};
  vmem_footprint g = {.scoped_bytes = 129u << 20};
  assert_int_equal(vmem_kernel_verdict(&g, &big, t, &v, NULL), VMEM_OK);
  assert_true(v.limit_capped);
  assert_int_equal(v.limit_bytes, 128u << 20);
  assert_int_equal(v.scoped, VMEM_VERDICT_E1001);

  /* SMEM over with scoped VMEM fitting: the kernel does not fit. */
  vmem_footprint h = {.scoped_bytes = 10, .smem_bytes = (1u << 20) + 1};
  assert_int_equal(vmem_kernel_verdict(&h, &l, t, &v, NULL), VMEM_OK);
  assert_int_equal(v.scoped, VMEM_VERDICT_FITS);
  assert_int_equal(v.smem_capacity_bytes, 1u << 20);
  assert_true(v.smem_over);
  assert_false(v.fits);
  h.smem_bytes = 1u << 20;
  assert_int_equal(vmem_kernel_verdict(&h, &l, t, &v, NULL), VMEM_OK);
  assert_true(v.fits);

  /* Sums past 2^64 are over any limit, never wrapped under it. */
  vmem_footprint w = {.scoped_bytes = 10, .modelled_bytes = UINT64_MAX, .modelled_firm_bytes = UINT64_MAX};
  assert_int_equal(vmem_kernel_verdict(&w, &l, t, &v, NULL), VMEM_OK);
  assert_int_equal(v.scoped, VMEM_VERDICT_LIKELY_E1001);
  vmem_error err;
  assert_int_equal(vmem_kernel_verdict(NULL, &l, t, &v, &err), VMEM_ERR_ARGUMENT);
}

/* The footprint check catches each broken invariant. */
static void test_footprint_check(void **state) {
  (void)state;
  vmem_allocation a[3] = {
      {.kind = VMEM_ALLOC_WINDOW, .operand = 0, .buffers = 2, .bytes = 1024, .unpadded_bytes = 1024},
      {.kind = VMEM_ALLOC_SCRATCH,
       .operand = SIZE_MAX,
       .buffers = 1,
       .bytes = 512,
       .unpadded_bytes = 512,
       .offset = 1024},
      {.kind = VMEM_ALLOC_INTERNAL_SCRATCH,
       .operand = SIZE_MAX,
       .buffers = 1,
       .bytes = 512,
       .unpadded_bytes = 512,
       .offset = 1536}};
  vmem_footprint f = {.count = 3,
                      .allocs = a,
                      .scoped_bytes = 1536,
                      .internal_scratch_bytes = 512,
                      .stack_bytes = 2048,
                      .alignment = 512};
  vmem_error err;
  assert_int_equal(vmem_footprint_check(&f, &err), VMEM_OK);
  a[1].offset = 512; /* onto the window */
  assert_int_equal(vmem_footprint_check(&f, &err), VMEM_ERR_INTERNAL);
  assert_non_null(strstr(err.message, "overlap"));
  a[1].offset = 1100; /* not aligned */
  assert_int_equal(vmem_footprint_check(&f, &err), VMEM_ERR_INTERNAL);
  a[1].offset = 1024, f.scoped_bytes = 1535;
  assert_int_equal(vmem_footprint_check(&f, &err), VMEM_ERR_INTERNAL);
  f.scoped_bytes = 1536, f.stack_bytes = 4096;
  assert_int_equal(vmem_footprint_check(&f, &err), VMEM_ERR_INTERNAL);
  assert_string_equal(vmem_status_name(err.code), "internal");
}

static void test_request_bytes(void **state) {
  (void)state;
  assert_int_equal(vmem_request_bytes(0), 0);
  assert_int_equal(vmem_request_bytes(1), 1u << 20);
  assert_int_equal(vmem_request_bytes(1u << 20), 1u << 20);
  assert_int_equal(vmem_request_bytes((1u << 20) + 1), 2u << 20);
  assert_true(vmem_request_bytes(UINT64_MAX - (1u << 20) + 1) == UINT64_MAX - (1u << 20) + 1);
  assert_int_equal(vmem_request_bytes(UINT64_MAX), 0);
}

/* The limit to ask for holds the ceiling, unless physical VMEM cannot; then
 * all of it, where the estimate fits (and the caller says it is at risk). */
static void test_request_limit(void **state) {
  (void)state;
  const uint64_t mib = 1u << 20;
  assert_int_equal(vmem_request_limit(5 * mib + 1, 7 * mib + 1, 128 * mib), 8 * mib);
  assert_int_equal(vmem_request_limit(5 * mib + 1, 7 * mib + 1, 0), 8 * mib);   /* no bound known */
  assert_int_equal(vmem_request_limit(5 * mib, 20 * mib, 16 * mib), 16 * mib);  /* all of physical VMEM */
  assert_int_equal(vmem_request_limit(20 * mib, 24 * mib, 16 * mib), 20 * mib); /* no limit helps */
  assert_int_equal(vmem_request_limit(5 * mib, 16 * mib, 16 * mib), 16 * mib);
  assert_int_equal(vmem_request_limit(6 * mib, 2 * mib, 16 * mib), 6 * mib); /* a ceiling under the need */
  assert_int_equal(vmem_request_limit(mib, UINT64_MAX, 0), mib);             /* a ceiling past 2^64 */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_no_grid_whole_operands),
      cmocka_unit_test(test_buffer_counts_as_jax_asserts),
      cmocka_unit_test(test_double_buffered_windows_and_scratch),
      cmocka_unit_test(test_inputs_prefetched_on_7x),
      cmocka_unit_test(test_prefetched_block_runs),
      cmocka_unit_test(test_s1_operands_in_place_everywhere),
      cmocka_unit_test(test_padding_by_generation),
      cmocka_unit_test(test_spaces_and_buffers),
      cmocka_unit_test(test_remedies),
      cmocka_unit_test(test_spec_errors),
      cmocka_unit_test(test_spec_error_offsets),
      cmocka_unit_test(test_mlir_kernel),
      cmocka_unit_test(test_mlir_fixed_window_single_buffered),
      cmocka_unit_test(test_mlir_dynamic_grid),
      cmocka_unit_test(test_mlir_body_flops),
      cmocka_unit_test(test_mlir_errors),
      cmocka_unit_test(test_verdict),
      cmocka_unit_test(test_request_bytes),
      cmocka_unit_test(test_request_limit),
      cmocka_unit_test(test_footprint_check),
  };
  return RUN(tests);
}
