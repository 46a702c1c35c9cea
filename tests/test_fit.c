/* fit's template against the planner: for randomised matmul-like specs on
 * several generations, the template's scoped bytes for any legal
 * assignment equal vmem_kernel_footprint of the spec at those values; and
 * the cost model's fetch counting on a case worked by hand. fit evaluates
 * every candidate (no pruning), so its result is the exhaustive one. */
#include <stdio.h>
#include <stdlib.h>

#include "test.h"

static const char *const dtypes[] = {"f32", "bf16", "s8", "f8e4m3fn", "s4", "f16"};
static const char *const targets[] = {"v3", "v5e", "v6e", "7x", "8t"};

static int spec_text(char *buf, size_t cap, const char *dt, int64_t m, int64_t k, int64_t n, int64_t bm, int64_t bk,
                     int64_t bn) {
  return snprintf(
      buf, cap,
      "{\"name\": \"mm\", \"grid_axes\": [\"i\", \"j\", \"k\"], \"params\": {\"bm\": %lld, \"bk\": %lld, "
      "\"bn\": %lld},"
      " \"in_specs\": [{\"array\": \"%s[%lld,%lld]\", \"block\": [\"bm\", \"bk\"], \"index_map\": [\"i\", \"k\"]},"
      "               {\"array\": \"%s[%lld,%lld]\", \"block\": [\"bk\", \"bn\"], \"index_map\": [\"k\", \"j\"]}],"
      " \"out_specs\": [{\"array\": \"%s[%lld,%lld]\", \"block\": [\"bm\", \"bn\"], \"index_map\": [\"i\", \"j\"]}],"
      " \"scratch\": [{\"dtype\": \"f32\", \"shape\": [\"bm\", \"bn\"]}]}",
      (long long)bm, (long long)bk, (long long)bn, dt, (long long)m, (long long)k, dt, (long long)k, (long long)n, dt,
      (long long)m, (long long)n);
}

/* A bf16 m x 1024 x 1024 matmul spec with blocks (bm, bkn, bkn) in spec,
 * read, and compiled for v6e with the cost options c. */
static vmem_template *v6e_matmul(char *spec, size_t cap, int64_t m, int64_t bm, int64_t bkn, const vmem_cost_options *c,
                                 vmem_kernel **k) {
  spec_text(spec, cap, "bf16", m, 1024, 1024, bm, bkn, bkn);
  vmem_error err;
  *k = vmem_kernel_from_spec(spec, strlen(spec), NULL, &err);
  if (!*k)
    fail_msg("%s", err.message);
  vmem_template *tpl = vmem_template_new(*k, vmem_target_find("v6e", 3), NULL, c, NULL, &err);
  assert_non_null(tpl);
  return tpl;
}

static void test_template_equals_planner(void **state) {
  (void)state;
  uint64_t x = 12345;
  int checked = 0;
  for (int round = 0; round < 60; round++) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    const char *dt = dtypes[(x >> 33) % 6];
    const vmem_target *t = vmem_target_find(targets[(x >> 40) % 5], strlen(targets[(x >> 40) % 5]));
    int64_t m = 8 << ((x >> 20) % 8), k = 128 << ((x >> 24) % 5), n = 128 << ((x >> 28) % 5);
    char spec[2048];
    spec_text(spec, sizeof spec, dt, m, k, n, m, k, n);
    vmem_error err;
    vmem_kernel *kern = vmem_kernel_from_spec(spec, strlen(spec), NULL, &err);
    if (!kern)
      fail_msg("spec: %s", err.message);
    vmem_template *tpl = vmem_template_new(kern, t, NULL, NULL, NULL, &err);
    assert_non_null(tpl);
    int64_t vals[3][64];
    size_t cnt[3];
    for (size_t p = 0; p < 3; p++) {
      cnt[p] = vmem_template_default_values(tpl, p, vals[p], 64);
      assert_true(cnt[p] > 0);
    }
    for (int trial = 0; trial < 10; trial++) {
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      int64_t v[3] = {vals[0][(x >> 10) % cnt[0]], vals[1][(x >> 20) % cnt[1]], vals[2][(x >> 30) % cnt[2]]};
      vmem_eval e;
      vmem_template_eval(tpl, v, &e);
      assert_true(e.legal);
      char concrete[2048];
      spec_text(concrete, sizeof concrete, dt, m, k, n, v[0], v[1], v[2]);
      vmem_kernel *c = vmem_kernel_from_spec(concrete, strlen(concrete), NULL, &err);
      if (!c)
        fail_msg("concrete spec: %s", err.message);
      vmem_footprint f;
      assert_int_equal(vmem_kernel_footprint(c, t, NULL, &f, &err), VMEM_OK);
      if (f.scoped_bytes != e.scoped_bytes || f.scoped_bytes + f.modelled_bytes != e.needed_bytes)
        fail_msg("%s %s[%lld,%lld,%lld] bm=%lld bk=%lld bn=%lld: planner %llu, template %llu", vmem_target_name(t), dt,
                 (long long)m, (long long)k, (long long)n, (long long)v[0], (long long)v[1], (long long)v[2],
                 (unsigned long long)f.scoped_bytes, (unsigned long long)e.scoped_bytes);
      vmem_footprint_free(&f);
      vmem_kernel_free(c);
      checked++;
    }
    vmem_template_free(tpl);
    vmem_kernel_free(kern);
  }
  assert_int_equal(checked, 600);
}

static void test_cost_by_hand(void **state) {
  (void)state;
  /* 1024^3 bf16 matmul, blocks 256: grid (4, 4, 4). x (i, k) follows k,
   * the innermost axis: fetched every step, 64 x 128 KiB; y (k, j) too;
   * z (i, j) follows j: 16 fetches. 2 * 1024^3 FLOPs. */
  char spec[2048];
  spec_text(spec, sizeof spec, "bf16", 1024, 1024, 1024, 256, 256, 256);
  char *with_flops = malloc(sizeof spec + 64);
  snprintf(with_flops, sizeof spec + 64, "{\"flops\": 2147483648, %s", spec + 1);
  vmem_error err;
  vmem_kernel *k = vmem_kernel_from_spec(with_flops, strlen(with_flops), NULL, &err);
  if (!k)
    fail_msg("%s", err.message);
  const vmem_target *t = vmem_target_find("v6e", 3);
  vmem_cost_options c = {.step_overhead_s = 0, .flops = -1};
  vmem_template *tpl = vmem_template_new(k, t, NULL, &c, NULL, &err);
  int64_t v[3] = {256, 256, 256};
  vmem_eval e;
  vmem_template_eval(tpl, v, &e);
  assert_int_equal(e.grid_steps, 64);
  double block = 256.0 * 256 * 2;
  assert_true(e.hbm_bytes == 64 * block + 64 * block + 16 * block);
  assert_true(e.flops == 2147483648.0);
  /* v6e: one core, 1638 GB/s, 918 TFLOP/s: 2.15e9 / 918e12 = 2.34 us of
   * compute against 144 x 128 KiB = 18.9 MB / 1638e9 = 11.52 us of HBM:
   * HBM-bound. */
  assert_false(e.compute_bound);
  assert_true(e.time_s > 11.5e-6 && e.time_s < 11.55e-6);
  assert_true(e.intensity > 113 && e.intensity < 114);
  vmem_template_free(tpl);
  vmem_kernel_free(k);
  free(with_flops);
}

/* Buffered(1) on x: the template's footprint equals the planner's for a
 * spec that says "buffers": 1, and x's transfers leave the overlapped
 * term. HBM-bound here, so the total stays 144 blocks of transfer time:
 * max(80 blocks, compute) + 64 blocks. */
static void test_single_buffer(void **state) {
  (void)state;
  char spec[2048];
  vmem_error err;
  vmem_kernel *k;
  const vmem_target *t = vmem_target_find("v6e", 3);
  vmem_cost_options c = {.step_overhead_s = 0, .flops = 2147483648.0};
  vmem_template *tpl = v6e_matmul(spec, sizeof spec, 1024, 256, 256, &c, &k);
  assert_int_equal(vmem_template_buffer_choices(tpl), 2);
  assert_int_equal(vmem_template_buffer_choice_operand(tpl, 0), 0);
  assert_int_equal(vmem_template_buffer_choice_operand(tpl, 1), 1);
  assert_true(vmem_template_buffer_choice_operand(tpl, 2) == SIZE_MAX);
  int64_t v[3] = {256, 256, 256};
  int bufs[2] = {1, 2};
  vmem_eval two, one;
  vmem_template_eval(tpl, v, &two);
  vmem_template_eval_buffers(tpl, v, bufs, &one);
  assert_int_equal(two.scoped_bytes - one.scoped_bytes, 256 * 256 * 2);
  assert_true(one.hbm_bytes == two.hbm_bytes);
  assert_true(one.time_s > two.time_s * 0.999999 && one.time_s < two.time_s * 1.000001);

  /* Compute-bound, x's 64 transfers of 128 KiB are added in full. */
  vmem_cost_options heavy = {.step_overhead_s = 0, .flops = 1e13};
  vmem_template *slow = vmem_template_new(k, t, NULL, &heavy, NULL, &err);
  vmem_template_eval(slow, v, &two);
  vmem_template_eval_buffers(slow, v, bufs, &one);
  assert_true(two.compute_bound && one.compute_bound);
  double extra = 64 * 256.0 * 256 * 2 / vmem_target_fact(t, VMEM_FACT_HBM_BYTES_PER_S)->value;
  assert_true(one.time_s - two.time_s > extra * 0.999999 && one.time_s - two.time_s < extra * 1.000001);
  vmem_template_free(slow);

  char *marked = strstr(spec, "\"index_map\": [\"i\", \"k\"]");
  assert_non_null(marked);
  char concrete[2100];
  snprintf(concrete, sizeof concrete, "%.*s\"buffers\": 1, %s", (int)(marked - spec), spec, marked);
  vmem_kernel *b1 = vmem_kernel_from_spec(concrete, strlen(concrete), NULL, &err);
  if (!b1)
    fail_msg("%s", err.message);
  vmem_footprint f;
  assert_int_equal(vmem_kernel_footprint(b1, t, NULL, &f, &err), VMEM_OK);
  assert_int_equal(f.scoped_bytes, one.scoped_bytes);
  vmem_footprint_free(&f);
  /* A spec that fixes the count leaves nothing to choose for x. */
  vmem_template *fixed = vmem_template_new(b1, t, NULL, &c, NULL, &err);
  assert_int_equal(vmem_template_buffer_choices(fixed), 1);
  vmem_template_free(fixed);
  vmem_kernel_free(b1);
  vmem_template_free(tpl);
  vmem_kernel_free(k);
}

/* The grid's order changes which blocks move and so the HBM bytes, not
 * the footprint: x[i, 0] and w[0, j] each move once per value of the outer
 * axis they follow, or on every step when theirs is the inner one. An order
 * that is no permutation, or that moves a reduction axis (one the output
 * does not follow: the matmul's k), is illegal. */
static void test_grid_order(void **state) {
  (void)state;
  static const char spec[] =
      "{\"name\": \"g\", \"grid_axes\": [\"i\", \"j\"], \"params\": {\"bm\": 256, \"bn\": 256},"
      " \"in_specs\": [{\"name\": \"x\", \"array\": \"bf16[1024,4096]\", \"block\": [\"bm\", 4096], \"index_map\": [\"i\", 0]},"
      "              {\"name\": \"w\", \"array\": \"bf16[4096,2048]\", \"block\": [4096, \"bn\"], \"index_map\": [0, \"j\"]}],"
      " \"out_specs\": [{\"name\": \"o\", \"array\": \"bf16[1024,2048]\", \"block\": [\"bm\", \"bn\"], \"index_map\": [\"i\", \"j\"]}]}";
  vmem_error err;
  vmem_kernel *k = vmem_kernel_from_spec(spec, strlen(spec), NULL, &err);
  if (!k)
    fail_msg("%s", err.message);
  vmem_cost_options c = {.step_overhead_s = 0, .flops = 1};
  vmem_template *tpl = vmem_template_new(k, vmem_target_find("v5e", 3), NULL, &c, NULL, &err);
  assert_non_null(tpl);
  assert_int_equal(vmem_template_grid_rank(tpl), 2);
  assert_true(vmem_template_axis_reorderable(tpl, 0) && vmem_template_axis_reorderable(tpl, 1));
  int64_t v[2] = {256, 256};
  int ji[2] = {1, 0}, dup[2] = {0, 0};
  vmem_eval own, swapped, bad;
  vmem_template_eval(tpl, v, &own);
  vmem_template_eval_order(tpl, v, NULL, ji, &swapped);
  vmem_template_eval_order(tpl, v, NULL, dup, &bad);
  assert_true(own.legal && swapped.legal && !bad.legal);
  assert_int_equal(own.scoped_bytes, swapped.scoped_bytes);
  /* grid 4 x 8; x's block 2 MiB, w's 2 MiB, o's 128 KiB. (i, j): x moves 4
   * times, w 32; (j, i): w 8 times, x 32. o moves 32 times either way. */
  double mib2 = 2.0 * 1024 * 1024, o = 32 * 256.0 * 256 * 2;
  assert_true(own.hbm_bytes == 4 * mib2 + 32 * mib2 + o);
  assert_true(swapped.hbm_bytes == 32 * mib2 + 8 * mib2 + o);
  vmem_template_free(tpl);
  vmem_kernel_free(k);

  /* the matmul's k: its output does not follow it, so it keeps its place */
  char mm[2048];
  vmem_template *m = v6e_matmul(mm, sizeof mm, 1024, 256, 256, &c, &k);
  assert_true(vmem_template_axis_reorderable(m, 0) && vmem_template_axis_reorderable(m, 1));
  assert_false(vmem_template_axis_reorderable(m, 2));
  int kij[3] = {2, 0, 1}, jik[3] = {1, 0, 2};
  int64_t b[3] = {256, 256, 256};
  vmem_template_eval_order(m, b, NULL, kij, &bad);
  vmem_template_eval_order(m, b, NULL, jik, &swapped);
  assert_false(bad.legal);
  assert_true(swapped.legal);
  vmem_template_free(m);
  vmem_kernel_free(k);
}

/* A block that overhangs its array: the same footprint as the planner
 * (which pads it too), the grid rounds up, only in-bounds bytes move, the
 * spec's total FLOPs grow by the covered share, and the waste is reported. */
static void test_padding_blocks(void **state) {
  (void)state;
  char spec[2048];
  vmem_error err;
  vmem_kernel *k;
  const vmem_target *t = vmem_target_find("v6e", 3);
  vmem_cost_options c = {.step_overhead_s = 0, .flops = 1e12};
  vmem_template *tpl = v6e_matmul(spec, sizeof spec, 1000, 384, 1024, &c, &k);
  int64_t v[3] = {384, 1024, 1024};
  vmem_eval e;
  vmem_template_eval(tpl, v, &e);
  assert_true(e.legal);
  assert_int_equal(e.grid_steps, 3);
  vmem_footprint f;
  assert_int_equal(vmem_kernel_footprint(k, t, NULL, &f, &err), VMEM_OK);
  assert_int_equal(f.scoped_bytes, e.scoped_bytes);
  vmem_footprint_free(&f);
  /* x and z move 1000 of their 1152 covered rows; y moves whole and once:
   * its index (k, j) never changes. */
  double x = 1000.0 * 1024 * 2, y = 1024.0 * 1024 * 2, z = 1000.0 * 1024 * 2;
  assert_true(e.hbm_bytes > (x + y + z) * 0.999999 && e.hbm_bytes < (x + y + z) * 1.000001);
  assert_true(e.edge_waste > (1 - 1000.0 / 1152) * 0.999999 && e.edge_waste < (1 - 1000.0 / 1152) * 1.000001);
  assert_true(e.flops > 1e12 * 1152 / 1000 * 0.999999 && e.flops < 1e12 * 1152 / 1000 * 1.000001);
  int64_t vals[4096];
  size_t n = vmem_template_padded_values(tpl, 0, vals, 4096);
  assert_int_equal(n, 125); /* 8, 16, ..., 1000 */
  assert_int_equal(vals[0], 8);
  assert_int_equal(vals[n - 1], 1000);
  assert_int_equal(vmem_template_default_values(tpl, 0, vals, 4096), 4); /* 8, 40, 200, 1000 */
  vmem_template_free(tpl);
  vmem_kernel_free(k);
}

/* Coloring x to VMEM: its two windows and its transfers go, its whole
 * array (bf16[1024,1024], 2 MiB) becomes program-scoped. */
static void test_color(void **state) {
  (void)state;
  char spec[2048];
  vmem_kernel *k;
  vmem_template *tpl = v6e_matmul(spec, sizeof spec, 1024, 256, 256, NULL, &k);
  int64_t v[3] = {256, 256, 256};
  int colored[2] = {0, 2};
  vmem_eval two, col;
  vmem_template_eval(tpl, v, &two);
  vmem_template_eval_buffers(tpl, v, colored, &col);
  assert_true(col.legal);
  assert_int_equal(two.program_bytes, 0);
  assert_int_equal(col.program_bytes, 1024 * 1024 * 2);
  assert_int_equal(two.scoped_bytes - col.scoped_bytes, 2 * 256 * 256 * 2);
  assert_true(two.hbm_bytes - col.hbm_bytes == 64 * 256.0 * 256 * 2);
  vmem_template_free(tpl);
  vmem_kernel_free(k);
}

/* The attention fixture's bytecode, made searchable: one parameter, g0. */
static vmem_kernel *attention_kernel(void) {
  FILE *fp = fopen(GOLDEN_DIR "/body_value_attention.mlirbc", "rb");
  assert_non_null(fp);
  static char bc[65536];
  size_t n = fread(bc, 1, sizeof bc, fp);
  fclose(fp);
  vmem_error err;
  vmem_kernel *k = vmem_kernel_from_bytecode(bc, n, NULL, &err);
  if (!k)
    fail_msg("%s", err.message);
  size_t made;
  assert_int_equal(vmem_kernel_parametrize(k, &made, &err), VMEM_OK);
  assert_int_equal(made, 1);
  return k;
}

/* A Mosaic kernel made searchable: its arrays inferred from the grid and
 * the windows, its body's logits f32[512,2048] following the q block (g0).
 * At the kernel's own blocks the template charges what the planner does;
 * at g0 = 256 the logits halve. */
static void test_mlir_body_values_follow_the_blocks(void **state) {
  (void)state;
  vmem_error err;
  vmem_kernel *k = attention_kernel();
  for (size_t i = 0; i < 4; i++)
    assert_true(vmem_kernel_array_inferred(k, i));
  const vmem_target *t = vmem_target_find("v5e", 3);
  vmem_footprint f;
  assert_int_equal(vmem_kernel_footprint(k, t, NULL, &f, &err), VMEM_OK);
  vmem_template *tpl = vmem_template_new(k, t, NULL, NULL, NULL, &err);
  assert_non_null(tpl);
  int64_t v = vmem_template_param_value(tpl, 0);
  assert_int_equal(v, 512);
  vmem_eval e;
  vmem_template_eval(tpl, &v, &e);
  assert_int_equal(e.scoped_bytes, f.scoped_bytes);
  assert_int_equal(e.modelled_bytes, f.modelled_bytes);
  assert_int_equal(e.modelled_bytes, 512 * 2048 * 4);
  assert_int_equal(e.needed_bytes, e.scoped_bytes + e.modelled_bytes);
  v = 256;
  vmem_template_eval(tpl, &v, &e);
  assert_int_equal(e.modelled_bytes, 256 * 2048 * 4);
  assert_int_equal(vmem_template_value_count(tpl), 1);
  const char *names[4];
  assert_int_equal(vmem_template_value_follows(tpl, 0, names, 4), 1);
  assert_string_equal(names[0], "g0");
  vmem_template_free(tpl);
  vmem_footprint_free(&f);
  vmem_kernel_free(k);
}

/* check's footprint of k on t and fit's template evaluated at the one
 * parameter value v: the two sides every body test compares. */
static vmem_template *footprint_and_eval(const vmem_kernel *k, const vmem_target *t, int64_t v, vmem_footprint *f,
                                         vmem_eval *e) {
  vmem_error err;
  assert_int_equal(vmem_kernel_footprint(k, t, NULL, f, &err), VMEM_OK);
  vmem_template *tpl = vmem_template_new(k, t, NULL, NULL, NULL, &err);
  assert_non_null(tpl);
  vmem_template_eval(tpl, &v, e);
  return tpl;
}

/* The body's ceiling in fit, as check's footprint has it: on v6e the
 * estimate spares 204 KiB of the kept logits, their ceiling none (and it
 * takes the matmul's lhs twice). With the
 * limit at g0 = 512's estimate, that candidate fits only at risk and ranks
 * after those that fit at the ceiling, though it is the fastest. */
static void test_fit_ranks_at_risk_last(void **state) {
  (void)state;
  vmem_error err;
  vmem_kernel *k = attention_kernel();
  vmem_footprint f;
  vmem_eval e;
  vmem_template *tpl = footprint_and_eval(k, vmem_target_find("v6e", 3), 512, &f, &e);
  assert_int_equal(e.modelled_high_bytes, f.modelled_high_bytes);
  assert_true(e.modelled_high_bytes >= e.modelled_bytes + 204 * 1024);
  assert_int_equal(e.ceiling_bytes, e.scoped_bytes + e.modelled_high_bytes);
  static const int64_t g0[] = {128, 256, 512};
  vmem_fit_options o = {.limit_bytes = e.needed_bytes};
  o.values[0] = g0, o.counts[0] = 3;
  vmem_fit_result r;
  assert_int_equal(vmem_fit(tpl, &o, &r, NULL, &err), VMEM_OK);
  assert_int_equal(r.fitting, 3);
  assert_int_equal(r.at_risk, 1);
  int64_t got;
  vmem_fit_decode(&r.space, r.fit[0].index, &got, NULL);
  assert_int_equal(got, 256); /* the fastest safe one */
  assert_false(r.fit[0].at_risk);
  vmem_fit_decode(&r.space, r.fit[2].index, &got, NULL);
  assert_int_equal(got, 512);
  assert_true(r.fit[2].at_risk && r.fit[2].time_s < r.fit[0].time_s);
  vmem_fit_free(&r);
  vmem_template_free(tpl);
  vmem_footprint_free(&f);
  vmem_kernel_free(k);
}

/* What the body walk learns beside its values reaches fit even when it
 * records none: a body whose one value the model cannot size (an unknown
 * element type) makes every candidate at risk, as check's verdict is; and
 * a body that only reduces keeps check's 16 KiB spill margin (the template
 * copied the walk's facts only when there were values, and lost both). */
static void test_fit_takes_the_bodys_facts(void **state) {
  (void)state;
  static const char body[] =
      "module {\n func.func @k(%arg0: i32, %arg1: memref<1024x1024xf32, #tpu.memory_space<vmem>>, %arg2: "
      "memref<1024x1024xf32, #tpu.memory_space<vmem>>) attributes {dimension_semantics = "
      "[#tpu.dimension_semantics<arbitrary>], iteration_bounds = array<i64: 4>, scalar_prefetch = 0 : i64, "
      "scratch_operands = 0 : i64, window_params = [{transform_indices = @t, window_bounds = array<i64: 1024, 1024>}, "
      "{transform_indices = @t, window_bounds = array<i64: 1024, 1024>}]} {\n"
      "  %c0 = arith.constant 0 : index\n"
      "  %0 = vector.load %arg1[%c0, %c0] : memref<1024x1024xf32, #tpu.memory_space<vmem>>, vector<1024x1024xf32>\n"
      "  %zr = arith.constant dense<0.000000e+00> : vector<1024xf32>\n"
      "  %1 = \"vector.multi_reduction\"(%0, %zr) {kind = #vector.kind<add>, reduction_dims = array<i64: 1>} : "
      "(vector<1024x1024xf32>, vector<1024xf32>) -> vector<1024xf32>\n"
      "  %2 = \"arith.mulf\"(%0, %0) : (vector<1024x1024xf32>, vector<1024x1024xf32>) -> UNREAD\n"
      "  vector.store %0, %arg2[%c0, %c0] : memref<1024x1024xf32, #tpu.memory_space<vmem>>, vector<1024x1024xf32>\n"
      "  return\n }\n func.func @t(%arg0: i32) -> (i32, i32) {\n  %c0 = arith.constant 0 : i32\n"
      "  return %arg0, %c0 : i32, i32\n }\n}\n";
  const vmem_target *t = vmem_target_find("v6e", 3);
  for (int unread = 0; unread < 2; unread++) {
    char text[4096];
    const char *type = unread ? "vector<1024x1024xcomplex<f32>>" : "vector<1024x1024xf32>";
    const char *at = strstr(body, "UNREAD");
    snprintf(text, sizeof text, "%.*s%s%s", (int)(at - body), body, type, at + 6);
    vmem_error err;
    vmem_kernel *k = vmem_kernel_from_mlir(text, strlen(text), NULL, &err);
    if (!k)
      fail_msg("%s", err.message);
    size_t made;
    assert_int_equal(vmem_kernel_parametrize(k, &made, &err), VMEM_OK);
    vmem_footprint f;
    vmem_eval e;
    vmem_template *tpl = footprint_and_eval(k, t, 1024, &f, &e);
    assert_int_equal(f.modelled_bytes, 0);
    assert_int_equal(f.modelled_high_bytes, 16384); /* the spill margin of a body that reduces */
    assert_int_equal(e.modelled_high_bytes, f.modelled_high_bytes);
    assert_int_equal(f.body_values_unread, (size_t)unread);
    assert_int_equal(e.body_unread, unread);
    vmem_fit_options o = {.limit_bytes = 64u << 20};
    vmem_fit_result r;
    assert_int_equal(vmem_fit(tpl, &o, &r, NULL, &err), VMEM_OK);
    assert_true(r.fitting > 0);
    assert_int_equal(r.at_risk, unread ? r.fitting : 0);
    vmem_fit_free(&r);
    vmem_template_free(tpl);
    vmem_footprint_free(&f);
    vmem_kernel_free(k);
  }
}

/* vmem_fit against a search written here: every candidate through
 * vmem_fit_eval, the fitting ones counted and the fastest found by hand;
 * the library's best, counts, smallest and order must agree. */
static void test_fit_search(void **state) {
  (void)state;
  char spec[2048];
  vmem_kernel *k;
  vmem_cost_options c = {0};
  vmem_template *tpl = v6e_matmul(spec, sizeof spec, 2048, 256, 256, &c, &k);
  static const int64_t bm[] = {128, 256, 512, 1024, 2048}, bkn[] = {128, 256, 512, 1024};
  vmem_fit_options o = {.limit_bytes = 8u << 20};
  o.values[0] = bm, o.counts[0] = 5;
  o.values[1] = bkn, o.counts[1] = 4;
  o.values[2] = bkn, o.counts[2] = 4;
  vmem_fit_result r;
  vmem_error err;
  assert_int_equal(vmem_fit(tpl, &o, &r, NULL, &err), VMEM_OK);
  assert_int_equal(r.space.total, 80);
  assert_int_equal(r.considered, 80);
  size_t fitting = 0;
  uint64_t smallest = UINT64_MAX;
  double fastest = 1e300;
  for (uint64_t i = 0; i < r.space.total; i++) {
    vmem_eval e;
    vmem_fit_eval(tpl, &r.space, i, &e);
    if (!e.legal || e.edge_waste > 0)
      continue;
    smallest = e.needed_bytes < smallest ? e.needed_bytes : smallest;
    if (e.needed_bytes <= o.limit_bytes) {
      fitting++;
      fastest = e.time_s < fastest ? e.time_s : fastest;
    }
  }
  assert_true(fitting > 0 && fitting < 80);
  assert_int_equal(r.fitting, fitting);
  assert_true(r.fit[0].time_s == fastest);
  for (size_t i = 1; i < r.fitting; i++)
    assert_true(r.fit[i - 1].time_s <= r.fit[i].time_s);
  assert_int_equal(r.smallest.needed_bytes, smallest);
  /* The Pareto front, by its definition: a fitting candidate is on it when
   * no fitting one is at most as large and strictly faster, or as large and
   * as fast with a lower index (one point per tie); smallest first. */
  size_t on_front = 0;
  for (size_t i = 0; i < r.fitting; i++) {
    bool beaten = false;
    for (size_t j = 0; j < r.fitting && !beaten; j++) {
      const vmem_fit_candidate *a = &r.fit[i], *b = &r.fit[j];
      beaten = b->needed_bytes <= a->needed_bytes && b->time_s <= a->time_s &&
               (b->needed_bytes < a->needed_bytes || b->time_s < a->time_s || b->index < a->index);
    }
    if (beaten)
      continue;
    on_front++;
    bool listed = false;
    for (size_t f = 0; f < r.nfront; f++)
      listed |= r.front[f].index == r.fit[i].index;
    assert_true(listed);
  }
  assert_true(on_front > 1);
  assert_int_equal(r.nfront, on_front);
  for (size_t f = 1; f < r.nfront; f++)
    assert_true(r.front[f - 1].needed_bytes < r.front[f].needed_bytes && r.front[f - 1].time_s > r.front[f].time_s);
  int64_t v[VMEM_FIT_MAX_PARAMS];
  assert_null(vmem_fit_decode(&r.space, r.fit[0].index, v, NULL)); /* no orders asked: the kernel's */
  vmem_fit_free(&r);

  o.counts[1] = 0; /* a parameter with nothing to try */
  assert_int_equal(vmem_fit(tpl, &o, &r, NULL, &err), VMEM_ERR_RANGE);
  assert_non_null(strstr(err.message, "no values"));
  vmem_fit_free(&r);
  o.counts[1] = 4;
  o.values[5] = bm, o.counts[5] = 1; /* the template has three parameters */
  assert_int_equal(vmem_fit(tpl, &o, &r, NULL, &err), VMEM_ERR_ARGUMENT);
  vmem_template_free(tpl);
  vmem_kernel_free(k);
}

/* The template applies 7x's prefetch of whole inputs as the footprint
 * does: at each bm the bias (its whole array, never moving) has no window
 * and goes to program_bytes on 7x, and has one on v6e. */
static void test_template_prefetches_whole_inputs(void **state) {
  (void)state;
  static const char js[] =
      "{\"name\": \"bias\", \"grid_axes\": [\"i\"], \"params\": {\"bm\": 512},"
      " \"in_specs\": [{\"name\": \"x\", \"array\": \"f32[8192,1024]\", \"block\": [\"bm\", 1024], \"index_map\": [\"i\", 0]},"
      "               {\"name\": \"b\", \"array\": \"f32[8,1024]\", \"block\": [8, 1024], \"index_map\": [0, 0]}],"
      " \"out_specs\": [{\"name\": \"o\", \"array\": \"f32[8192,1024]\", \"block\": [\"bm\", 1024], \"index_map\": [\"i\", 0]}]}";
  vmem_error err;
  vmem_kernel *k = vmem_kernel_from_spec(js, strlen(js), NULL, &err);
  assert_non_null(k);
  static const char *const names[] = {"v6e", "7x"};
  for (size_t t = 0; t < 2; t++) {
    const vmem_target *tg = vmem_target_find(names[t], strlen(names[t]));
    vmem_template *tpl = vmem_template_new(k, tg, NULL, NULL, NULL, &err);
    assert_non_null(tpl);
    for (int64_t bm = 256; bm <= 2048; bm *= 2) {
      vmem_eval e;
      vmem_template_eval(tpl, &bm, &e);
      assert_true(e.legal);
      uint64_t windows = 4 * (uint64_t)bm * 1024 * 4;
      assert_int_equal(e.scoped_bytes, t ? windows : windows + 32768);
      assert_int_equal(e.program_bytes, t ? 32768 : 0);
    }
    vmem_footprint f;
    assert_int_equal(vmem_kernel_footprint(k, tg, NULL, &f, &err), VMEM_OK);
    vmem_eval e;
    int64_t bm = 512;
    vmem_template_eval(tpl, &bm, &e);
    assert_int_equal(e.scoped_bytes, f.scoped_bytes); /* the kernel's own bm: the footprint's figure */
    vmem_footprint_free(&f);
    vmem_template_free(tpl);
  }
  vmem_kernel_free(k);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_template_equals_planner),
      cmocka_unit_test(test_template_prefetches_whole_inputs),
      cmocka_unit_test(test_mlir_body_values_follow_the_blocks),
      cmocka_unit_test(test_cost_by_hand),
      cmocka_unit_test(test_single_buffer),
      cmocka_unit_test(test_grid_order),
      cmocka_unit_test(test_padding_blocks),
      cmocka_unit_test(test_color),
      cmocka_unit_test(test_fit_search),
      cmocka_unit_test(test_fit_ranks_at_risk_last),
      cmocka_unit_test(test_fit_takes_the_bodys_facts),
  };
  return RUN(tests);
}
