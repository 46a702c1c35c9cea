/* Scratch the compiler forwards (src/mosaic/forward.c, src/scoped/footprint.c):
 * a scratch the body writes whole before it reads it, on every step, has no
 * buffer; anything that may read it first, or touch it otherwise, keeps it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "vmemscope.h"

enum { SCRATCH = 512 * 512 * 4, WINDOWS = 2 * (2 * 512 * 512 * 2) + 2 * 512 * 512 * 2 };

/* A matmul over a (2, ksteps) grid into an f32[512,512] scratch; `body`
 * the func's ops (%arg2 x, %arg3 y, %arg4 the output, %arg5 the scratch). */
static vmem_footprint footprint_of(int ksteps, const char *body) {
  static char text[8192];
  snprintf(text, sizeof text,
           "func.func @k(%%arg0: i32, %%arg1: i32, %%arg2: memref<512x512xbf16, #tpu.memory_space<vmem>>, "
           "%%arg3: memref<512x512xbf16, #tpu.memory_space<vmem>>, %%arg4: memref<512x512xbf16, "
           "#tpu.memory_space<vmem>>, %%arg5: memref<512x512xf32, #tpu.memory_space<vmem>>) attributes "
           "{dimension_semantics = [#tpu.dimension_semantics<parallel>, #tpu.dimension_semantics<arbitrary>], "
           "iteration_bounds = array<i64: 2, %d>, scalar_prefetch = 0 : i64, scratch_operands = 1 : i64, "
           "window_params = [{transform_indices = @t0, window_bounds = array<i64: 512, 512>}, {transform_indices = "
           "@t1, window_bounds = array<i64: 512, 512>}, {transform_indices = @t2, window_bounds = array<i64: 512, "
           "512>}]} {\n%s  return\n}\n"
           "func.func @t0(%%arg0: i32, %%arg1: i32) -> (i32, i32) {\n  return %%arg0, %%arg1 : i32, i32\n}\n"
           "func.func @t1(%%arg0: i32, %%arg1: i32) -> (i32, i32) {\n  %%c0_i32 = arith.constant 0 : i32\n"
           "  return %%arg1, %%c0_i32 : i32, i32\n}\n"
           "func.func @t2(%%arg0: i32, %%arg1: i32) -> (i32, i32) {\n  %%c0_i32 = arith.constant 0 : i32\n"
           "  return %%arg0, %%c0_i32 : i32, i32\n}\n",
           ksteps, body);
  vmem_error err;
  vmem_kernel *k = vmem_kernel_from_mlir(text, strlen(text), NULL, &err);
  if (!k)
    fail_msg("%s at %zu", err.message, err.offset);
  vmem_footprint f;
  assert_int_equal(vmem_kernel_footprint(k, vmem_target_find("v5e", 3), NULL, &f, &err), VMEM_OK);
  vmem_kernel_free(k);
  return f;
}

/* pl.when(k == 0) zeroes it, it accumulates, pl.when(k == last) stores it (custom form). */
#define ACCUMULATE(LAST)                                                                                          \
  "  %c0 = arith.constant 0 : index\n  %c0_i32 = arith.constant 0 : i32\n  %c" LAST "_i32 = arith.constant " LAST \
  " : i32\n  %cst = arith.constant dense<0.000000e+00> : vector<512x512xf32>\n"                                   \
  "  %0 = arith.cmpi eq, %arg1, %c0_i32 : i32\n  scf.if %0 {\n"                                                   \
  "    tpu.vector_store %arg5[%c0, %c0], %cst {strides = array<i32>} : memref<512x512xf32, "                      \
  "#tpu.memory_space<vmem>>, vector<512x512xf32>,\n  }\n"                                                         \
  "  %1 = vector.load %arg5[%c0, %c0] : memref<512x512xf32, #tpu.memory_space<vmem>>, vector<512x512xf32>\n"      \
  "  %2 = vector.load %arg2[%c0, %c0] : memref<512x512xbf16, #tpu.memory_space<vmem>>, vector<512x512xbf16>\n"    \
  "  %3 = vector.load %arg3[%c0, %c0] : memref<512x512xbf16, #tpu.memory_space<vmem>>, vector<512x512xbf16>\n"    \
  "  %4 = tpu.matmul %2, %3, %cst {dimension_numbers = #tpu.dot_dimension_numbers<[1], [0], [0], [1], [0, 0, 1, " \
  "1], [], []>} : vector<512x512xbf16>, vector<512x512xbf16>, vector<512x512xf32> -> vector<512x512xf32>\n"       \
  "  %5 = arith.addf %1, %4 : vector<512x512xf32>\n"                                                              \
  "  tpu.vector_store %arg5[%c0, %c0], %5 {strides = array<i32>} : memref<512x512xf32, "                          \
  "#tpu.memory_space<vmem>>, vector<512x512xf32>,\n"                                                              \
  "  %6 = arith.cmpi eq, %arg1, %c" LAST "_i32 : i32\n  scf.if %6 {\n"                                            \
  "    %7 = vector.load %arg5[%c0, %c0] : memref<512x512xf32, #tpu.memory_space<vmem>>, vector<512x512xf32>\n"    \
  "    %8 = arith.truncf %7 : vector<512x512xf32> to vector<512x512xbf16>\n"                                      \
  "    tpu.vector_store %arg4[%c0, %c0], %8 {strides = array<i32>} : memref<512x512xbf16, "                       \
  "#tpu.memory_space<vmem>>, vector<512x512xbf16>,\n  }\n"

static void test_one_reduction_step_forwards_the_accumulator(void **state) {
  (void)state;
  vmem_footprint f = footprint_of(1, ACCUMULATE("0"));
  assert_int_equal(f.scoped_bytes, WINDOWS - 2 * 512 * 512 * 2 + 512 * 512 * 2); /* y's window never moves: 1 */
  assert_int_equal(f.forwarded_bytes, SCRATCH);
  assert_true(f.modelled_high_bytes >= SCRATCH); /* the ceiling holds its values whole */
  vmem_footprint_free(&f);
}

static void test_several_steps_keep_it(void **state) {
  (void)state;
  vmem_footprint f = footprint_of(4, ACCUMULATE("3"));
  assert_int_equal(f.forwarded_bytes, 0);
  assert_int_equal(f.scoped_bytes, WINDOWS + SCRATCH);
  vmem_footprint_free(&f);
}

/* No zeroing: the first access reads what the last step left. */
static void test_a_read_first_keeps_it(void **state) {
  (void)state;
  vmem_footprint f =
      footprint_of(1, "  %c0 = arith.constant 0 : index\n"
                      "  %1 = vector.load %arg5[%c0, %c0] : memref<512x512xf32, #tpu.memory_space<vmem>>, "
                      "vector<512x512xf32>\n  %2 = arith.addf %1, %1 : vector<512x512xf32>\n"
                      "  tpu.vector_store %arg5[%c0, %c0], %2 {strides = array<i32>} : memref<512x512xf32, "
                      "#tpu.memory_space<vmem>>, vector<512x512xf32>,\n");
  assert_int_equal(f.forwarded_bytes, 0);
  vmem_footprint_free(&f);
}

/* A store of part of it, an accumulating store, or a DMA into it keep it. */
static void test_part_add_or_dma_keeps_it(void **state) {
  (void)state;
  static const char *const bodies[] = {
      "  %c0 = arith.constant 0 : index\n  %cst = arith.constant dense<0.0> : vector<256x512xf32>\n"
      "  tpu.vector_store %arg5[%c0, %c0], %cst {strides = array<i32>} : memref<512x512xf32, "
      "#tpu.memory_space<vmem>>, vector<256x512xf32>,\n",
      "  %c0 = arith.constant 0 : index\n  %cst = arith.constant dense<0.0> : vector<512x512xf32>\n"
      "  tpu.vector_store %arg5[%c0, %c0], %cst {add = true, strides = array<i32>} : memref<512x512xf32, "
      "#tpu.memory_space<vmem>>, vector<512x512xf32>,\n",
      ("  tpu.enqueue_dma source(%arg2 : memref<512x512xbf16, #tpu.memory_space<vmem>>) target(%arg5 : "
       "memref<512x512xf32, #tpu.memory_space<vmem>>)\n")};
  for (size_t i = 0; i < sizeof bodies / sizeof *bodies; i++) {
    vmem_footprint f = footprint_of(1, bodies[i]);
    assert_int_equal(f.forwarded_bytes, 0);
    assert_int_equal(f.scoped_bytes, WINDOWS - 2 * 512 * 512 * 2 + 512 * 512 * 2 + SCRATCH);
    vmem_footprint_free(&f);
  }
}

/* Generic form, as the bytecode prints: Pallas loads the ref before it
 * stores zeros to it, and nothing reads that load. */
static void test_a_dead_load_before_the_store(void **state) {
  (void)state;
  vmem_footprint f = footprint_of(
      1, "  %c0 = arith.constant 0 : i32\n  %0 = \"arith.cmpi\"(%arg1, %c0) {predicate = 0 : i64} : (i32, i32) -> i1\n"
         "  %1 = \"arith.extui\"(%0) : (i1) -> i32\n  %c1 = arith.constant 0 : i32\n"
         "  %2 = \"arith.cmpi\"(%1, %c1) {predicate = 1 : i64} : (i32, i32) -> i1\n  \"scf.if\"(%2) ({\n"
         "    %c2 = arith.constant 0.000000e+00 : f32\n"
         "    %3 = \"vector.broadcast\"(%c2) : (f32) -> vector<512x512xf32>\n    %c3 = arith.constant 0 : index\n"
         "    %4 = \"vector.load\"(%arg5, %c3, %c3) : (memref<512x512xf32, #tpu.memory_space<vmem>>, index, index) "
         "-> vector<512x512xf32>\n    %5 = \"vector.shape_cast\"(%4) : (vector<512x512xf32>) -> "
         "vector<512x512xf32>\n    tpu.vector_store %3, %arg5[%c3, %c3] {add = false} : memref<512x512xf32, "
         "#tpu.memory_space<vmem>>, vector<512x512xf32>\n    \"scf.yield\"() : () -> ()\n  }, {\n"
         "    \"scf.yield\"() : () -> ()\n  }) : (i1) -> ()\n");
  assert_int_equal(f.forwarded_bytes, SCRATCH);
  vmem_footprint_free(&f);
}

/* Regions nested past the pass's stack, with else branches: read as dynamic, no write past its room (the
 * sanitizers caught one before), and the scratch kept. */
static void test_regions_past_the_stack(void **state) {
  (void)state;
  static char body[8192];
  size_t n = 0;
  for (int i = 0; i < 100; i++)
    n += (size_t)snprintf(body + n, sizeof body - n, "  scf.if %%c {\n");
  for (int i = 0; i < 100; i++)
    n += (size_t)snprintf(body + n, sizeof body - n, "  } else {\n");
  n += (size_t)snprintf(body + n, sizeof body - n,
                        "  tpu.vector_store %%arg5[%%c0, %%c0], %%cst {strides = array<i32>} : memref<512x512xf32, "
                        "#tpu.memory_space<vmem>>, vector<512x512xf32>,\n");
  for (int i = 0; i < 100; i++)
    n += (size_t)snprintf(body + n, sizeof body - n, "  }\n");
  vmem_footprint f = footprint_of(1, body);
  assert_int_equal(f.forwarded_bytes, 0);
  vmem_footprint_free(&f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_one_reduction_step_forwards_the_accumulator),
      cmocka_unit_test(test_several_steps_keep_it),
      cmocka_unit_test(test_a_read_first_keeps_it),
      cmocka_unit_test(test_part_add_or_dma_keeps_it),
      cmocka_unit_test(test_a_dead_load_before_the_store),
      cmocka_unit_test(test_regions_past_the_stack),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
