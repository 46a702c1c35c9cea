/* The body model (src/mosaic/body.c, src/scoped/footprint.c): which of a
 * Mosaic body's values are charged, over which lines, on which targets. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "vmemscope.h"

/* One kernel func over a 4-step grid: `args` its refs after the step
 * (%arg1...), `bounds` the window_bounds of each, `body` its ops. */
static vmem_kernel *kernel_of(const char *args, const char *const *bounds, size_t nb, const char *body) {
  static char text[16384];
  int n = snprintf(text, sizeof text,
                   "func.func @k(%%arg0: i32, %s) attributes {dimension_semantics = "
                   "[#tpu.dimension_semantics<parallel>], iteration_bounds = array<i64: 4>, scalar_prefetch = 0 : "
                   "i64, scratch_operands = 0 : i64, window_params = [",
                   args);
  for (size_t i = 0; i < nb; i++) /* @t4 for a 4-D window */
    n += snprintf(text + n, sizeof text - (size_t)n, "%s{transform_indices = @t%s, window_bounds = array<i64: %s>}",
                  i ? ", " : "", strchr(strchr(bounds[i], ',') + 1, ',') ? "4" : "", bounds[i]);
  snprintf(text + n, sizeof text - (size_t)n,
           "]} {\n  %%c0 = arith.constant 0 : index\n%s  return\n}\nfunc.func @t(%%arg0: i32) -> (i32, i32) {\n"
           "  %%c0_i32 = arith.constant 0 : i32\n  return %%arg0, %%c0_i32 : i32, i32\n}\n"
           "func.func @t4(%%arg0: i32) -> (i32, i32, i32, i32) {\n  %%c0_i32 = arith.constant 0 : i32\n"
           "  return %%c0_i32, %%arg0, %%c0_i32, %%c0_i32 : i32, i32, i32, i32\n}\n",
           body);
  vmem_error err;
  vmem_kernel *k = vmem_kernel_from_mlir(text, strlen(text), NULL, &err);
  if (!k)
    fail_msg("%s at %zu", err.message, err.offset);
  return k;
}

/* bf16 x[1024,1024] and y, and an f32 output block [1024,1024]. */
static vmem_kernel *kernel_with(const char *body) {
  static const char *const bounds[] = {"1024, 1024", "1024, 1024", "1024, 1024"};
  return kernel_of("%arg1: memref<1024x1024xbf16, #tpu.memory_space<vmem>>, %arg2: memref<1024x1024xbf16, "
                   "#tpu.memory_space<vmem>>, %arg3: memref<1024x1024xf32, #tpu.memory_space<vmem>>",
                   bounds, 3, body);
}

/* The modelled bytes on target t, and the notes of the values charged. */
static uint64_t modelled(const vmem_kernel *k, const char *t, char *notes, size_t cap) {
  vmem_footprint f;
  vmem_error err;
  assert_int_equal(vmem_kernel_footprint(k, vmem_target_find(t, strlen(t)), NULL, &f, &err), VMEM_OK);
  size_t n = 0;
  if (notes)
    notes[0] = '\0';
  uint64_t sum = 0;
  for (size_t i = 0; i < f.count; i++)
    if (f.allocs[i].kind == VMEM_ALLOC_MODELLED) {
      sum += f.allocs[i].bytes;
      if (notes && n < cap)
        n += (size_t)snprintf(notes + n, cap - n, "%s;", f.allocs[i].note);
    }
  assert_int_equal(sum, f.modelled_bytes);
  vmem_footprint_free(&f);
  return sum;
}

#define LOADS                                                                                                     \
  "  %0 = \"vector.load\"(%arg1, %c0, %c0) : (memref<1024x1024xbf16, #tpu.memory_space<vmem>>, index, index) -> " \
  "vector<1024x1024xbf16>\n"                                                                                      \
  "  %1 = \"vector.load\"(%arg2, %c0, %c0) : (memref<1024x1024xbf16, #tpu.memory_space<vmem>>, index, index) -> " \
  "vector<1024x1024xbf16>\n"
#define STORE(v) \
  "  tpu.vector_store " v ", %arg3[%c0, %c0] : memref<1024x1024xf32, #tpu.memory_space<vmem>>, vector<1024x1024xf32>\n"
#define MATMUL(r, a, b, k)                                                                                          \
  "  %z" r " = arith.constant dense<0.000000e+00> : vector<1024x1024xf32>\n"                                        \
  "  " r " = \"tpu.matmul\"(" a ", " b ", %z" r ") {dimension_numbers = #tpu.dot_dimension_numbers<[1], [0], [0], " \
  "[1], [0, 0, 1, 1], [], []>} : (vector<1024x" k "xbf16>, vector<" k "x1024xbf16>, vector<1024x1024xf32>) -> "     \
  "vector<1024x1024xf32>\n"

/* The body model's ceiling on target t (src/scoped/footprint.c, "the
 * ceiling"): never under the estimate. */
static uint64_t ceiling(const vmem_kernel *k, const char *t) {
  vmem_footprint f;
  vmem_error err;
  assert_int_equal(vmem_kernel_footprint(k, vmem_target_find(t, strlen(t)), NULL, &f, &err), VMEM_OK);
  uint64_t c = f.modelled_high_bytes;
  assert_true(c >= f.modelled_bytes);
  vmem_footprint_free(&f);
  return c;
}

#define F32_LOADS                                                                                                \
  "  %0 = \"vector.load\"(%arg3, %c0, %c0) : (memref<1024x1024xf32, #tpu.memory_space<vmem>>, index, index) -> " \
  "vector<512x1024xf32>\n"                                                                                       \
  "  %1 = \"vector.load\"(%arg3, %c0, %c0) : (memref<1024x1024xf32, #tpu.memory_space<vmem>>, index, index) -> " \
  "vector<1024x1024xf32>\n"

/* An f32 matmul: the estimate charges its lhs nothing (the records' staging
 * is non-monotonic in the block), the ceiling its 2 MiB whole, on every
 * target; a bf16 lhs's ceiling is twice it, whatever K (512 here, which v6e
 * does not stage), and a kept value's is its bytes whole (v6e's estimate
 * spares 204 KiB of it). */
static void test_the_ceiling_of_each_rule(void **state) {
  (void)state;
  vmem_kernel *k = kernel_with(F32_LOADS "  %z = arith.constant dense<0.000000e+00> : vector<512x1024xf32>\n"
                                         "  %2 = \"tpu.matmul\"(%0, %1, %z) {dimension_numbers = "
                                         "#tpu.dot_dimension_numbers<[1], [0], [0], [1], [0, 0, 1, 1], [], []>} : "
                                         "(vector<512x1024xf32>, vector<1024x1024xf32>, vector<512x1024xf32>) -> "
                                         "vector<512x1024xf32>\n" STORE("%2"));
  assert_int_equal(modelled(k, "v6e", NULL, 0), 0);
  /* the 2 MiB f32 lhs whole, and the 4 MiB f32 rhs's bf16 parts (half of it) */
  assert_int_equal(ceiling(k, "v6e"), (2u << 20) + (2u << 20));
  assert_int_equal(ceiling(k, "v5e"), (2u << 20) + (2u << 20));
  vmem_kernel_free(k);
  k = kernel_with("  %0 = \"vector.load\"(%arg1, %c0, %c0) : (memref<1024x1024xbf16, #tpu.memory_space<vmem>>, "
                  "index, index) -> vector<1024x512xbf16>\n"
                  "  %1 = \"vector.load\"(%arg2, %c0, %c0) : (memref<1024x1024xbf16, #tpu.memory_space<vmem>>, "
                  "index, index) -> vector<512x1024xbf16>\n" MATMUL("%2", "%0", "%1", "512") STORE("%2"));
  assert_int_equal(modelled(k, "v6e", NULL, 0), 0);
  /* the lhs twice; the result streams into its store (no floor) */
  assert_int_equal(ceiling(k, "v6e"), 2u << 20);
  vmem_kernel_free(k);
  k = kernel_with(
      LOADS MATMUL("%2", "%0", "%1", "1024") "  %zr = arith.constant dense<0.000000e+00> : "
                                             "vector<1024xf32>\n"
                                             "  %3 = \"vector.multi_reduction\"(%2, %zr) {kind = "
                                             "#vector.kind<maximumf>, reduction_dims = array<i64: 1>} : "
                                             "(vector<1024x1024xf32>, vector<1024xf32>) -> "
                                             "vector<1024xf32>\n"
                                             "  %4 = \"vector.shape_cast\"(%3) : (vector<1024xf32>) -> "
                                             "vector<1024x1xf32>\n"
                                             "  %5 = \"vector.broadcast\"(%4) : (vector<1024x1xf32>) -> "
                                             "vector<1024x1024xf32>\n"
                                             "  %6 = \"arith.subf\"(%2, %5) : (vector<1024x1024xf32>, "
                                             "vector<1024x1024xf32>) -> vector<1024x1024xf32>\n" STORE("%6"));
  /* the rules' ceiling at the matmul: the 4 MiB result whole and the 2 MiB
   * lhs twice; the floor above it at the subtraction: the result, the
   * difference and the row maxima (4 KiB) live at once */
  assert_int_equal(ceiling(k, "v6e"), (8u << 20) + (4u << 10));
  vmem_kernel_free(k);
}

/* The remedies ask for the limit of the ceiling: an f32 matmul's lhs, which
 * the estimate charges nothing, is in the request (at the estimate alone the
 * request fell short of the compiler on 14 of the oracle's refused kernels). */
static void test_the_request_holds_the_ceiling(void **state) {
  (void)state;
  vmem_kernel *k = kernel_with(F32_LOADS "  %z = arith.constant dense<0.000000e+00> : vector<512x1024xf32>\n"
                                         "  %2 = \"tpu.matmul\"(%0, %1, %z) {dimension_numbers = "
                                         "#tpu.dot_dimension_numbers<[1], [0], [0], [1], [0, 0, 1, 1], [], []>} : "
                                         "(vector<512x1024xf32>, vector<1024x1024xf32>, vector<512x1024xf32>) -> "
                                         "vector<512x1024xf32>\n" STORE("%2"));
  const vmem_target *t = vmem_target_find("v6e", 3);
  vmem_footprint f;
  vmem_remedies r;
  vmem_error err;
  assert_int_equal(vmem_kernel_footprint(k, t, NULL, &f, &err), VMEM_OK);
  assert_int_equal(vmem_kernel_remedies(k, t, NULL, 1u << 20, &r, &err), VMEM_OK);
  assert_int_equal(r.needed_bytes, f.scoped_bytes);
  assert_int_equal(r.ceiling_bytes, f.scoped_bytes + (4u << 20)); /* the lhs whole, the rhs's bf16 parts */
  assert_int_equal(r.request_bytes, vmem_request_bytes(f.scoped_bytes + (4u << 20)));
  assert_true(r.request_at_ceiling && r.request_within_physical);
  vmem_footprint_free(&f);
  vmem_kernel_free(k);
}

/* A value read twice by one op (y * y, the oracle's `widen` kernels) is read
 * once: it streams, and the ceiling holds none of it (libtpu charges nothing
 * on v4 and later); read by two ops, it is shared and held whole there. */
static void test_one_op_reading_twice_is_one_read(void **state) {
  (void)state;
  vmem_kernel *k = kernel_with(LOADS "  %2 = \"arith.extf\"(%0) : (vector<1024x1024xbf16>) -> vector<1024x1024xf32>\n"
                                     "  %3 = \"arith.mulf\"(%2, %2) : (vector<1024x1024xf32>, vector<1024x1024xf32>) "
                                     "-> vector<1024x1024xf32>\n" STORE("%3"));
  assert_int_equal(ceiling(k, "v6e"), 0);
  vmem_kernel_free(k);
  k = kernel_with(LOADS "  %2 = \"arith.extf\"(%0) : (vector<1024x1024xbf16>) -> vector<1024x1024xf32>\n"
                        "  %3 = \"arith.mulf\"(%2, %2) : (vector<1024x1024xf32>, vector<1024x1024xf32>) "
                        "-> vector<1024x1024xf32>\n"
                        "  %4 = \"arith.addf\"(%3, %2) : (vector<1024x1024xf32>, vector<1024x1024xf32>) "
                        "-> vector<1024x1024xf32>\n" STORE("%4"));
  /* shared, %2 cannot stream: the ceiling holds every computed value live at
   * once, %2, %3 and %4 at %4's line (4 MiB each) */
  assert_int_equal(ceiling(k, "v6e"), 12u << 20);
  vmem_kernel_free(k);
}

/* An RMS norm of computed rows: %2 is read by %2 * %2, which is reduced,
 * and again after the reduction. The compiler holds such a value while the
 * reduction completes (0.33-1.04 of it over 17 norm records): the estimate
 * charges 3/4 of its 4 MiB, the ceiling all of it and the reduction's
 * 1024-row column beside it (128 vregs, 512 KiB). */
static void test_a_value_read_across_a_reduction(void **state) {
  (void)state;
  vmem_kernel *k = kernel_with(
      LOADS
      "  %2 = \"arith.extf\"(%0) : (vector<1024x1024xbf16>) -> vector<1024x1024xf32>\n"
      "  %3 = \"arith.mulf\"(%2, %2) : (vector<1024x1024xf32>, vector<1024x1024xf32>) -> vector<1024x1024xf32>\n"
      "  %zr = arith.constant dense<0.000000e+00> : vector<1024xf32>\n"
      "  %4 = \"vector.multi_reduction\"(%3, %zr) {kind = #vector.kind<add>, reduction_dims = array<i64: 1>} : "
      "(vector<1024x1024xf32>, vector<1024xf32>) -> vector<1024xf32>\n"
      "  %5 = \"vector.shape_cast\"(%4) : (vector<1024xf32>) -> vector<1024x1xf32>\n"
      "  %6 = \"vector.broadcast\"(%5) : (vector<1024x1xf32>) -> vector<1024x1024xf32>\n"
      "  %7 = \"arith.mulf\"(%2, %6) : (vector<1024x1024xf32>, vector<1024x1024xf32>) -> vector<1024x1024xf32>\n" STORE(
          "%7"));
  char notes[512];
  assert_int_equal(modelled(k, "v6e", notes, sizeof notes), 3u << 20);
  assert_non_null(strstr(notes, "%2 = arith.extf, read across the reduction at line"));
  /* the rules' ceiling: %2 whole and the reduction's column beside it */
  vmem_footprint f;
  assert_int_equal(vmem_kernel_footprint(k, vmem_target_find("v6e", 3), NULL, &f, NULL), VMEM_OK);
  assert_int_equal(f.modelled_rules_high_bytes, (4u << 20) + (512u << 10));
  /* the ceiling's floor: every computed value live at once (%2 and %3, and
   * the reduction's 4 KiB result, at %4's line) */
  assert_int_equal(f.modelled_high_bytes, (8u << 20) + (4u << 10));
  vmem_footprint_free(&f);
  vmem_kernel_free(k);
}

/* A matmul's rhs made in the body (an int8 weight dequantised: here a bf16
 * product of two loads) must exist whole for the MXU: the estimate charges
 * it nothing, the ceiling its 2 MiB, beside the lhs twice (2 MiB at K 1024). */
static void test_a_computed_rhs_is_whole_at_the_ceiling(void **state) {
  (void)state;
  vmem_kernel *k =
      kernel_with(LOADS "  %w = \"arith.mulf\"(%1, %1) : (vector<1024x1024xbf16>, vector<1024x1024xbf16>) -> "
                        "vector<1024x1024xbf16>\n" MATMUL("%2", "%0", "%w", "1024") STORE("%2"));
  assert_int_equal(modelled(k, "v6e", NULL, 0), 5u << 19); /* the lhs at 5/4 alone */
  assert_int_equal(ceiling(k, "v6e"), (4u << 20) + (2u << 20));
  vmem_kernel_free(k);
}

/* Heads a Python loop unrolls: the ceiling is each copy's computed values
 * live at once (here two 1 MiB values, %s and %e, over the exp), times the
 * copies, above the estimate's kept logits less the register file. */
#define UNROLLED_HEAD(s, e, m, r)                                                                                \
  "  " s " = \"arith.mulf\"(%1, %1) : (vector<512x512xf32>, vector<512x512xf32>) -> vector<512x512xf32>\n"       \
  "  " e " = \"math.exp\"(" s ") : (vector<512x512xf32>) -> vector<512x512xf32>\n"                               \
  "  " r " = \"vector.multi_reduction\"(" s ", %zr) {kind = #vector.kind<maximumf>, reduction_dims = "           \
  "array<i64: 1>} : (vector<512x512xf32>, vector<512xf32>) -> vector<512xf32>\n"                                 \
  "  " m " = \"arith.addf\"(" s ", " e ") : (vector<512x512xf32>, vector<512x512xf32>) -> vector<512x512xf32>\n" \
  "  tpu.vector_store " m ", %arg3[%c0, %c0] : memref<1024x1024xf32, #tpu.memory_space<vmem>>, "                 \
  "vector<512x512xf32>\n"

static void test_the_ceiling_of_unrolled_heads(void **state) {
  (void)state;
  vmem_kernel *k = kernel_with(
      "  %1 = \"vector.load\"(%arg3, %c0, %c0) : (memref<1024x1024xf32, #tpu.memory_space<vmem>>, index, index) -> "
      "vector<512x512xf32>\n"
      "  %zr = arith.constant dense<0.000000e+00> : vector<512xf32>\n" UNROLLED_HEAD("%s0", "%e0", "%m0", "%r0")
          UNROLLED_HEAD("%s1", "%e1", "%m1", "%r1") UNROLLED_HEAD("%s2", "%e2", "%m2", "%r2")
              UNROLLED_HEAD("%s3", "%e3", "%m3", "%r3"));
  char notes[1024];
  /* the estimate: 3/8 of the four copies' 3 MiB live values each, less the 256 KiB register file */
  assert_int_equal(modelled(k, "v5e", notes, sizeof notes), (4u << 20) + (256u << 10));
  assert_non_null(strstr(notes, "4 unrolled copies (alike"));
  /* the ceiling: %s and %e (and %m at their last line) live at once, 3 MiB a copy, four copies */
  assert_int_equal(ceiling(k, "v5e"), 4 * (3u << 20));
  vmem_kernel_free(k);
}

/* Loads and elementwise chains stream: nothing is charged on v4+. */
static void test_streaming_costs_nothing(void **state) {
  (void)state;
  vmem_kernel *k =
      kernel_with(LOADS "  %2 = \"arith.extf\"(%0) : (vector<1024x1024xbf16>) -> vector<1024x1024xf32>\n"
                        "  %3 = \"arith.mulf\"(%2, %2) : (vector<1024x1024xf32>, vector<1024x1024xf32>) -> "
                        "vector<1024x1024xf32>\n" STORE("%3"));
  assert_int_equal(modelled(k, "v5e", NULL, 0), 0);
  assert_int_equal(modelled(k, "v6e", NULL, 0), 0);
  /* v2 widens bf16 in f32: the f32 copy of the block, 4 MiB, less the
   * 68 KiB its registers spare */
  char notes[512];
  assert_int_equal(modelled(k, "v2", notes, sizeof notes), (4u << 20) - 69632);
  assert_non_null(strstr(notes, "f32 copy of %2 = arith.extf"));
  assert_true(vmem_kernel_body_modelled(k));
  vmem_kernel_free(k);
}

/* x + y over two loaded bf16 blocks: v2 holds an f32 copy of each (the
 * registers spare 68 KiB of one); x + x is one copy; none on v4. */
static void test_two_loaded_operands_two_copies(void **state) {
  (void)state;
  vmem_kernel *k =
      kernel_with(LOADS "  %2 = \"arith.addf\"(%0, %1) : (vector<1024x1024xbf16>, vector<1024x1024xbf16>) -> "
                        "vector<1024x1024xbf16>\n");
  char notes[512];
  assert_int_equal(modelled(k, "v2", notes, sizeof notes), (8u << 20) - 69632);
  assert_non_null(strstr(notes, "f32 copy of %0 read by arith.addf"));
  assert_non_null(strstr(notes, "f32 copy of %1 read by arith.addf"));
  assert_int_equal(modelled(k, "v4", NULL, 0), 0);
  vmem_kernel_free(k);
  k = kernel_with(LOADS "  %2 = \"arith.addf\"(%0, %0) : (vector<1024x1024xbf16>, vector<1024x1024xbf16>) -> "
                        "vector<1024x1024xbf16>\n");
  assert_int_equal(modelled(k, "v2", NULL, 0), (4u << 20) - 69632);
  vmem_kernel_free(k);
}

#define ROW(r, rows, cols)                                                                                          \
  "  " r " = \"vector.load\"(%arg3, %c0, %c0) : (memref<1024x1024xf32, #tpu.memory_space<vmem>>, index, index) -> " \
  "vector<" rows "x" cols "xf32>\n"

/* A row broadcast down the sublanes holds a tile of rows, (8, 1024) f32 =
 * 32 KiB, to the body's end on v2-v4, and its row, loaded as one row, is
 * relaid out (36 KiB, once); a second adds its tile; a broadcast along the
 * lanes holds nothing; none on v5e. */
static void test_row_broadcasts_on_v4(void **state) {
  (void)state;
  vmem_kernel *k = kernel_with(
      ROW("%r", "1",
          "1024") "  %b = \"vector.broadcast\"(%r) : (vector<1x1024xf32>) -> "
                  "vector<1024x1024xf32>\n" ROW(
                      "%s", "1",
                      "1024") "  %d = \"vector.broadcast\"(%s) : (vector<1x1024xf32>) -> vector<1024x1024xf32>\n"
                              "  %e = \"arith.addf\"(%b, %d) : (vector<1024x1024xf32>, vector<1024x1024xf32>) -> "
                              "vector<1024x1024xf32>\n" STORE("%e"));
  char notes[512];
  assert_int_equal(modelled(k, "v4", notes, sizeof notes), 2 * 32768 + 36864);
  assert_non_null(strstr(notes, "row broadcast %b = vector.broadcast"));
  assert_int_equal(modelled(k, "v5e", NULL, 0), 0);
  vmem_kernel_free(k);
  k = kernel_with(ROW("%r", "1024", "1") "  %b = \"vector.broadcast\"(%r) : (vector<1024x1xf32>) -> "
                                         "vector<1024x1024xf32>\n" STORE("%b"));
  assert_int_equal(modelled(k, "v4", NULL, 0), 0);
  vmem_kernel_free(k);
}

/* A matmul result reduced and then used again is kept whole over its lines
 * (less 204 KiB on v6e); the lhs (K = 1024 > 2 x 128) is staged on v5e at
 * 5/4 of its 2 MiB, and on v6e too (K > 2 x 256); at K = 512 v6e stages
 * nothing. */
static void test_kept_value_and_lhs_staging(void **state) {
  (void)state;
  vmem_kernel *k = kernel_with(LOADS MATMUL(
      "%2", "%0", "%1", "1024") "  %zr = arith.constant dense<0.000000e+00> : vector<1024xf32>\n"
                                "  %3 = \"vector.multi_reduction\"(%2, %zr) {kind = #vector.kind<maximumf>, "
                                "reduction_dims = array<i64: 1>} : (vector<1024x1024xf32>, vector<1024xf32>) -> "
                                "vector<1024xf32>\n"
                                "  %4 = \"vector.shape_cast\"(%3) : (vector<1024xf32>) -> vector<1024x1xf32>\n"
                                "  %5 = \"vector.broadcast\"(%4) : (vector<1024x1xf32>) -> vector<1024x1024xf32>\n"
                                "  %6 = \"arith.subf\"(%2, %5) : (vector<1024x1024xf32>, vector<1024x1024xf32>) -> "
                                "vector<1024x1024xf32>\n" STORE("%6"));
  char notes[512];
  /* the peak is at the matmul: the lhs staged while its result is made */
  assert_int_equal(modelled(k, "v5e", notes, sizeof notes), (4u << 20) + (5u << 19));
  assert_non_null(strstr(notes, "%2 = tpu.matmul, kept whole over lines"));
  assert_non_null(strstr(notes, "lhs %0 of the tpu.matmul"));
  /* v6e's registers spare 204 KiB of a kept value (KEPT_SPARED) */
  assert_int_equal(modelled(k, "v6e", NULL, 0), (4u << 20) - 204 * 1024 + (5u << 19));
  vmem_kernel_free(k);

  k = kernel_with("  %0 = \"vector.load\"(%arg1, %c0, %c0) : (memref<1024x1024xbf16, #tpu.memory_space<vmem>>, "
                  "index, index) -> vector<1024x512xbf16>\n"
                  "  %1 = \"vector.load\"(%arg2, %c0, %c0) : (memref<1024x1024xbf16, #tpu.memory_space<vmem>>, "
                  "index, index) -> vector<512x1024xbf16>\n" MATMUL("%2", "%0", "%1", "512") STORE("%2"));
  assert_int_equal(modelled(k, "v6e", NULL, 0), 0);        /* K = 512: not staged on a 256-wide MXU */
  assert_int_equal(modelled(k, "v5e", NULL, 0), 5u << 18); /* 1 MiB lhs at 5/4 on a 128-wide one */
  vmem_kernel_free(k);
}

/* A value defined before a loop and used inside it lives to the loop's
 * end, so it overlaps a value kept inside the loop. */
static void test_a_loop_extends_liveness(void **state) {
  (void)state;
  vmem_kernel *k = kernel_with(
      LOADS
      "  %2 = \"arith.addf\"(%0, %0) : (vector<1024x1024xbf16>, vector<1024x1024xbf16>) -> vector<1024x1024xbf16>\n"
      "  %3 = \"vector.transpose\"(%2) {permutation = array<i64: 1, 0>} : (vector<1024x1024xbf16>) -> "
      "vector<1024x1024xbf16>\n"
      "  %c1 = arith.constant 1 : index\n"
      "  %4 = \"scf.for\"(%c0, %c1, %c1) ({\n"
      "  ^bb0(%i: index):\n"
      "    %9 = \"arith.addf\"(%2, %2) : (vector<1024x1024xbf16>, vector<1024x1024xbf16>) -> vector<1024x1024xbf16>\n"
      "    %5 = \"arith.extf\"(%1) : (vector<1024x1024xbf16>) -> vector<1024x1024xf32>\n"
      "    %6 = \"tpu.concatenate\"(%5) {dimension = 0 : i32} : (vector<1024x1024xf32>) -> vector<1024x1024xf32>\n"
      "    %7 = \"arith.mulf\"(%6, %6) : (vector<1024x1024xf32>, vector<1024x1024xf32>) -> vector<1024x1024xf32>\n"
      "    \"scf.yield\"() : () -> ()\n"
      "  }) : (index, index, index) -> ()\n");
  char notes[1024];
  /* %2 (bf16, 2 MiB: transposed, then used again) is last used at the top
   * of the loop, but lives to the loop's end (the next iteration reads it),
   * so the concatenation (4 MiB f32) below that use overlaps it */
  assert_int_equal(modelled(k, "v5e", notes, sizeof notes), (2u << 20) + (4u << 20));
  assert_non_null(strstr(notes, "%2 = arith.addf, kept whole"));
  assert_non_null(strstr(notes, "%6 = tpu.concatenate, kept whole"));
  vmem_kernel_free(k);
}

/* What fits the vector registers (64 x 4 KiB, an assumption) is held there. */
static void test_small_values_stay_in_registers(void **state) {
  (void)state;
  vmem_kernel *k = kernel_with(
      "  %0 = \"vector.load\"(%arg1, %c0, %c0) : (memref<1024x1024xbf16, #tpu.memory_space<vmem>>, index, index) -> "
      "vector<256x256xbf16>\n"
      "  %1 = \"vector.load\"(%arg2, %c0, %c0) : (memref<1024x1024xbf16, #tpu.memory_space<vmem>>, index, index) -> "
      "vector<256x256xbf16>\n"
      "  %z = arith.constant dense<0.000000e+00> : vector<256x256xf32>\n"
      "  %2 = \"tpu.matmul\"(%0, %1, %z) : (vector<256x256xbf16>, vector<256x256xbf16>, vector<256x256xf32>) -> "
      "vector<256x256xf32>\n"
      "  %zr = arith.constant dense<0.000000e+00> : vector<256xf32>\n"
      "  %3 = \"vector.multi_reduction\"(%2, %zr) : (vector<256x256xf32>, vector<256xf32>) -> vector<256xf32>\n"
      "  %4 = \"arith.mulf\"(%2, %2) : (vector<256x256xf32>, vector<256x256xf32>) -> vector<256x256xf32>\n");
  assert_int_equal(modelled(k, "v5e", NULL, 0), 0); /* 256 KiB each: exactly the register file */
  vmem_kernel_free(k);
}

/* A kept 256x256 f32 logits value (256 KiB: the register file) and its
 * reduction, as one unrolled head; `r` names the result, `m` its max. */
#define HEAD(r, m)                                                                                                 \
  "  %z" r " = arith.constant dense<0.000000e+00> : vector<256x256xf32>\n"                                         \
  "  " r " = \"tpu.matmul\"(%0, %1, %z" r ") : (vector<256x256xbf16>, vector<256x256xbf16>, vector<256x256xf32>) " \
  "-> vector<256x256xf32>\n"                                                                                       \
  "  %zr" r " = arith.constant dense<0.000000e+00> : vector<256xf32>\n"                                            \
  "  " m " = \"vector.multi_reduction\"(" r ", %zr" r ") : (vector<256x256xf32>, vector<256xf32>) -> "             \
  "vector<256xf32>\n"                                                                                              \
  "  %e" r " = \"arith.mulf\"(" r ", " r ") : (vector<256x256xf32>, vector<256x256xf32>) -> vector<256x256xf32>\n"

/* Copies of one value that a Python loop unrolls (the same op making the
 * same type) are held partly at once: each copy is live alone in the sweep,
 * yet the compiler's charge grows with the heads. The estimate takes 3/8 of
 * every copy's live values, less the register file; with few copies one
 * value's own charge (less its share of the file) is the more. */
static void test_unrolled_copies_are_held_at_once(void **state) {
  (void)state;
  static const char loads[] =
      "  %0 = \"vector.load\"(%arg1, %c0, %c0) : (memref<1024x1024xbf16, #tpu.memory_space<vmem>>, index, index) -> "
      "vector<256x256xbf16>\n"
      "  %1 = \"vector.load\"(%arg2, %c0, %c0) : (memref<1024x1024xbf16, #tpu.memory_space<vmem>>, index, index) -> "
      "vector<256x256xbf16>\n";
  char body[16384];
  snprintf(body, sizeof body, "%s%s%s%s%s%s%s%s%s", loads, HEAD("%2", "%3"), HEAD("%4", "%5"), HEAD("%6", "%7"),
           HEAD("%8", "%9"), HEAD("%10", "%11"), HEAD("%12", "%13"), HEAD("%14", "%15"), HEAD("%16", "%17"));
  vmem_kernel *k = kernel_with(body);
  char notes[2048];
  /* 8 copies, 256 KiB live in each: 3/8 of 2 MiB less the 256 KiB file, one line for them all */
  assert_int_equal(modelled(k, "v5e", notes, sizeof notes), 512u << 10);
  assert_non_null(strstr(notes, "8 unrolled copies (alike %2 = tpu.matmul, line"));
  vmem_kernel_free(k);

  /* 4 copies: 3/8 of 1 MiB less the file is 128 KiB, under one 256 KiB value less a quarter of the file */
  snprintf(body, sizeof body, "%s%s%s%s%s", loads, HEAD("%2", "%3"), HEAD("%4", "%5"), HEAD("%6", "%7"),
           HEAD("%8", "%9"));
  k = kernel_with(body);
  assert_int_equal(modelled(k, "v5e", notes, sizeof notes), 192u << 10);
  assert_non_null(strstr(notes, "1 of 4 alike (unrolled)"));
  vmem_kernel_free(k);

  /* one head alone fits the registers: nothing charged */
  snprintf(body, sizeof body, "%s%s", loads, HEAD("%2", "%3"));
  k = kernel_with(body);
  assert_int_equal(modelled(k, "v5e", notes, sizeof notes), 0);
  vmem_kernel_free(k);
}

/* truncf(extf(x)) back to x's type folds to x (MLIR's arith folder;
 * paged attention's kv blocks): the round trip of a loaded block is the
 * load, so a matmul reading it twice keeps nothing, and v2's f32 copy of
 * the folded extf goes too. The same body reading the load directly is the
 * control. */
#define SUM "  %6 = \"arith.addf\"(%4, %5) : (vector<1024x1024xf32>, vector<1024x1024xf32>) -> vector<1024x1024xf32>\n"
#define ROUND_TRIP_BODY(rhs, pre) \
  LOADS pre MATMUL("%4", "%0", rhs, "1024") MATMUL("%5", "%0", rhs, "1024") SUM STORE("%6")
static void test_a_round_trip_folds(void **state) {
  (void)state;
  vmem_kernel *a = kernel_with(
      ROUND_TRIP_BODY("%3", "  %2 = \"arith.extf\"(%1) : (vector<1024x1024xbf16>) -> vector<1024x1024xf32>\n"
                            "  %3 = \"arith.truncf\"(%2) : (vector<1024x1024xf32>) -> vector<1024x1024xbf16>\n"));
  vmem_kernel *b = kernel_with(ROUND_TRIP_BODY("%1", ""));
  static const char *const targets[] = {"v2", "v5e", "v6e"};
  char notes[1024];
  for (size_t i = 0; i < 3; i++) {
    uint64_t got = modelled(a, targets[i], notes, sizeof notes);
    assert_int_equal(got, modelled(b, targets[i], NULL, 0));
    assert_null(strstr(notes, "arith.truncf"));
  }
  vmem_kernel_free(a);
  vmem_kernel_free(b);
}

/* A q block [1, 2, 1, 128] f32 (%arg1), its output in the same tiles
 * (%arg2), and a native output [2, 128] (%arg3), as paged attention's. */
static vmem_kernel *kernel_rows(const char *body) {
  static const char *const bounds[] = {"1, 2, 1, 128", "1, 2, 1, 128", "2, 128"};
  return kernel_of("%arg1: memref<1x2x1x128xf32, #tpu.memory_space<vmem>>, %arg2: memref<1x2x1x128xf32, "
                   "#tpu.memory_space<vmem>>, %arg3: memref<2x128xf32, #tpu.memory_space<vmem>>",
                   bounds, 3, body);
}

#define Q_ROWS                                                                                                   \
  "  %0 = \"vector.load\"(%arg1, %c0, %c0, %c0, %c0) : (memref<1x2x1x128xf32, #tpu.memory_space<vmem>>, index, " \
  "index, index, index) -> vector<1x2x1x128xf32>\n"                                                              \
  "  %1 = \"vector.shape_cast\"(%0) : (vector<1x2x1x128xf32>) -> vector<2x128xf32>\n"
#define DOUBLE "  %2 = \"arith.mulf\"(%1, %1) : (vector<2x128xf32>, vector<2x128xf32>) -> vector<2x128xf32>\n"
#define SUM_ROWS(v)                                                                                              \
  "  %acc = arith.constant dense<0.000000e+00> : vector<2xf32>\n"                                                \
  "  %s = \"vector.multi_reduction\"(" v ", %acc) {kind = #vector.kind<add>, reduction_dims = array<i64: 1>} : " \
  "(vector<2x128xf32>, vector<2xf32>) -> vector<2xf32>\n"
#define BACK(v)                                                                                         \
  "  %o = \"vector.shape_cast\"(" v ") : (vector<2x128xf32>) -> vector<1x2x1x128xf32>\n"                \
  "  tpu.vector_store %o, %arg2[%c0, %c0, %c0, %c0] : memref<1x2x1x128xf32, #tpu.memory_space<vmem>>, " \
  "vector<1x2x1x128xf32>\n"
#define NATIVE(v) \
  "  tpu.vector_store " v ", %arg3[%c0, %c0] : memref<2x128xf32, #tpu.memory_space<vmem>>, vector<2x128xf32>\n"

/* A value in one-row tiles (a [1, G, 1, 128] f32 block, G > 1) that an op
 * needs in native tiles costs a fixed 36 KiB, once, on v2 to v5p, none on
 * v6e: a reduction, also of an elementwise result of it, a store into a
 * native ref (a narrowing to bf16 on v2-v4 only); elementwise ops and a
 * store back into one-row tiles cost nothing, and neither does a bf16 block
 * widened to f32. */
static void test_one_row_tiles_relaid_out(void **state) {
  (void)state;
  static const char *const bodies[] = {Q_ROWS SUM_ROWS("%1"), Q_ROWS DOUBLE SUM_ROWS("%2"), Q_ROWS NATIVE("%1"),
                                       Q_ROWS DOUBLE SUM_ROWS("%1") SUM_ROWS("%2") NATIVE("%2")};
  char notes[512];
  for (size_t i = 0; i < sizeof bodies / sizeof *bodies; i++) {
    vmem_kernel *k = kernel_rows(bodies[i]);
    assert_int_equal(modelled(k, "v5p", notes, sizeof notes), 36864);
    assert_non_null(strstr(notes, "one-row tiles of %"));
    assert_int_equal(modelled(k, "v4", NULL, 0), 36864);
    assert_int_equal(modelled(k, "v6e", NULL, 0), 0);
    vmem_kernel_free(k);
  }
  vmem_kernel *k = kernel_rows(Q_ROWS DOUBLE BACK("%2"));
  assert_int_equal(modelled(k, "v5p", NULL, 0), 0);
  vmem_kernel_free(k);
  k = kernel_rows(Q_ROWS "  %n = \"arith.truncf\"(%1) : (vector<2x128xf32>) -> vector<2x128xbf16>\n");
  assert_int_equal(modelled(k, "v4", NULL, 0), 36864); /* narrowing: v2-v4 alone */
  assert_int_equal(modelled(k, "v5p", NULL, 0), 0);
  vmem_kernel_free(k);
  static const char *const bounds[] = {"1, 2, 1, 128", "1, 2, 1, 128", "2, 128"};
  k = kernel_of("%arg1: memref<1x2x1x128xbf16, #tpu.memory_space<vmem>>, %arg2: memref<1x2x1x128xf32, "
                "#tpu.memory_space<vmem>>, %arg3: memref<2x128xf32, #tpu.memory_space<vmem>>",
                bounds, 3,
                "  %b = \"vector.load\"(%arg1, %c0, %c0, %c0, %c0) : (memref<1x2x1x128xbf16, "
                "#tpu.memory_space<vmem>>, index, index, index, index) -> vector<1x2x1x128xbf16>\n"
                "  %w = \"arith.extf\"(%b) : (vector<1x2x1x128xbf16>) -> vector<1x2x1x128xf32>\n"
                "  %1 = \"vector.shape_cast\"(%w) : (vector<1x2x1x128xf32>) -> vector<2x128xf32>\n" SUM_ROWS("%1"));
  assert_int_equal(modelled(k, "v5p", NULL, 0), 0);
  vmem_kernel_free(k);
}

/* The row sums of a one-row block broadcast back along the lanes and
 * stored into one-row tiles: on v2-v4 a vreg (4 KiB) a row beside the
 * relayout, none on v5p; the same broadcast stored natively, nothing. */
static void test_a_lane_broadcast_into_one_row_tiles(void **state) {
  (void)state;
#define LANES_BACK                                                          \
  "  %c = \"vector.shape_cast\"(%s) : (vector<2xf32>) -> vector<2x1xf32>\n" \
  "  %b = \"vector.broadcast\"(%c) : (vector<2x1xf32>) -> vector<2x128xf32>\n"
  vmem_kernel *k = kernel_rows(Q_ROWS SUM_ROWS("%1") LANES_BACK BACK("%b"));
  char notes[512];
  assert_int_equal(modelled(k, "v4", notes, sizeof notes), 36864 + 2 * 4096);
  assert_non_null(strstr(notes, "lane broadcast %o stored into one-row tiles"));
  assert_int_equal(modelled(k, "v5p", NULL, 0), 36864);
  vmem_kernel_free(k);
  k = kernel_rows(Q_ROWS SUM_ROWS("%1") LANES_BACK NATIVE("%b"));
  assert_int_equal(modelled(k, "v4", NULL, 0), 36864);
  vmem_kernel_free(k);
#undef LANES_BACK
}

/* A row broadcast of a row sliced from a block loaded whole holds its
 * tile alone on v4, without the 36 KiB of a row loaded as one row. */
static void test_a_sliced_row_needs_no_relayout(void **state) {
  (void)state;
  vmem_kernel *k = kernel_with(
      ROW("%r", "8",
          "1024") "  %s = \"vector.extract_strided_slice\"(%r) {offsets = [0, 0], sizes = [1, 1024], "
                  "strides = [1, 1]} : (vector<8x1024xf32>) -> vector<1x1024xf32>\n"
                  "  %b = \"vector.broadcast\"(%s) : (vector<1x1024xf32>) -> vector<1024x1024xf32>\n" STORE("%b"));
  char notes[512];
  assert_int_equal(modelled(k, "v4", notes, sizeof notes), 32768);
  assert_null(strstr(notes, "one-row tiles"));
  vmem_kernel_free(k);
}

#define TRANSPOSE(rows, lanes, ty)                                                                                \
  "  %0 = \"vector.load\"(%arg1, %c0, %c0) : (memref<1024x1024xbf16, #tpu.memory_space<vmem>>, index, index) -> " \
  "vector<" rows "x" lanes "x" ty ">\n"                                                                           \
  "  %t = \"tpu.transpose\"(%0) {permutation = array<i64: 1, 0>} : (vector<" rows "x" lanes "x" ty                \
  ">) -> vector<" lanes "x" rows "x" ty ">\n"

/* A 16-bit transpose of more than 128 rows: one 128-lane strip of its
 * result, [input lanes, 128], less what each generation's registers keep
 * (200 KiB on v6e, 144 KiB on v5, 40 KiB on v4). None at 128 rows or for
 * f32; int8 costs its result widened, on v2-v4 only. */
static void test_a_16bit_transpose_spills_a_strip(void **state) {
  (void)state;
  vmem_kernel *k = kernel_with(TRANSPOSE("1024", "1024", "bf16"));
  char notes[512];
  assert_int_equal(modelled(k, "v6e", notes, sizeof notes), 57344);
  assert_non_null(strstr(notes, "transpose strip of %t = tpu.transpose, line 4: bf16[1024,128]"));
  assert_int_equal(modelled(k, "7x", NULL, 0), 57344);
  assert_int_equal(modelled(k, "v5e", NULL, 0), 114688);
  assert_int_equal(modelled(k, "v4", NULL, 0), 221184);
  vmem_kernel_free(k);
  k = kernel_with(TRANSPOSE("1024", "1024", "i8")); /* int8: whole, in 32 bits on v2/v3, 16 on v4 */
  assert_int_equal(modelled(k, "v3", notes, sizeof notes), (4u << 20) - 52 * 1024);
  assert_non_null(strstr(notes, "transpose widened of %t"));
  assert_int_equal(modelled(k, "v4", NULL, 0), (2u << 20) - 40 * 1024);
  assert_int_equal(modelled(k, "v5e", NULL, 0), 0);
  vmem_kernel_free(k);
  static const char *const none[] = {TRANSPOSE("128", "1024", "bf16"), TRANSPOSE("1024", "512", "bf16"),
                                     TRANSPOSE("1024", "1024", "i8"), TRANSPOSE("1024", "1024", "f32")};
  for (size_t i = 0; i < sizeof none / sizeof *none; i++) {
    k = kernel_with(none[i]);
    assert_int_equal(modelled(k, "v6e", NULL, 0), 0);
    vmem_kernel_free(k);
  }
}

/* A JSON spec has no body: nothing modelled, and the kernel says so. */
static void test_a_spec_has_no_body(void **state) {
  (void)state;
  FILE *fp = fopen(GOLDEN_DIR "/../../examples/gated_matmul.json", "rb");
  assert_non_null(fp);
  static char spec[65536];
  size_t n = fread(spec, 1, sizeof spec - 1, fp);
  fclose(fp);
  vmem_error err;
  vmem_kernel *k = vmem_kernel_from_spec(spec, n, NULL, &err);
  if (!k)
    fail_msg("%s", err.message);
  assert_false(vmem_kernel_body_modelled(k));
  assert_int_equal(modelled(k, "v5e", NULL, 0), 0);
  vmem_kernel_free(k);
}

/* A body that reduces a vector keeps a 16 KiB spill margin at the ceiling
 * (the held-out RMS norm: one and four vregs past windows that filled the
 * limit); the same body without the reduction keeps none. */
static void test_a_reduction_keeps_a_spill_margin(void **state) {
  (void)state;
  vmem_kernel *k =
      kernel_with(ROW("%r", "1024", "1024") "  %z = arith.constant dense<0.000000e+00> : vector<1024xf32>\n"
                                            "  %m = \"vector.multi_reduction\"(%r, %z) {kind = "
                                            "#vector.kind<add>, reduction_dims = array<i64: 1>} : "
                                            "(vector<1024x1024xf32>, vector<1024xf32>) -> vector<1024xf32>\n");
  assert_int_equal(modelled(k, "v6e", NULL, 0), 0);
  assert_int_equal(ceiling(k, "v6e"), 16384);
  vmem_kernel_free(k);
  k = kernel_with(ROW("%r", "1024", "1024") STORE("%r"));
  assert_int_equal(ceiling(k, "v6e"), 0);
  vmem_kernel_free(k);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_streaming_costs_nothing),
      cmocka_unit_test(test_two_loaded_operands_two_copies),
      cmocka_unit_test(test_row_broadcasts_on_v4),
      cmocka_unit_test(test_kept_value_and_lhs_staging),
      cmocka_unit_test(test_a_loop_extends_liveness),
      cmocka_unit_test(test_small_values_stay_in_registers),
      cmocka_unit_test(test_a_spec_has_no_body),
      cmocka_unit_test(test_unrolled_copies_are_held_at_once),
      cmocka_unit_test(test_a_round_trip_folds),
      cmocka_unit_test(test_one_row_tiles_relaid_out),
      cmocka_unit_test(test_a_sliced_row_needs_no_relayout),
      cmocka_unit_test(test_a_16bit_transpose_spills_a_strip),
      cmocka_unit_test(test_a_lane_broadcast_into_one_row_tiles),
      cmocka_unit_test(test_the_ceiling_of_each_rule),
      cmocka_unit_test(test_the_request_holds_the_ceiling),
      cmocka_unit_test(test_one_op_reading_twice_is_one_read),
      cmocka_unit_test(test_a_value_read_across_a_reduction),
      cmocka_unit_test(test_the_ceiling_of_unrolled_heads),
      cmocka_unit_test(test_a_computed_rhs_is_whole_at_the_ceiling),
      cmocka_unit_test(test_a_reduction_keeps_a_spill_margin),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
