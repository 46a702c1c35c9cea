/* libFuzzer target for the body model's walk (src/mosaic/body.c): the
 * input is the body of a kernel func with fixed windows, so that every
 * input reaches the walk (a '}' in it ends the body early, as it would in
 * a file); the footprint's modelled lines must sum to its
 * modelled bytes on every target, and the walk must never read outside
 * the input (ASan) or hang. */
#include <stdlib.h>
#include <string.h>

#include "vmemscope.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char head[] =
    "func.func @k(%arg0: i32, %arg1: memref<1024x1024xbf16, #tpu.memory_space<vmem>>, %arg2: memref<1024x1024xf32, "
    "#tpu.memory_space<vmem>>) attributes {dimension_semantics = [#tpu.dimension_semantics<parallel>], "
    "iteration_bounds = array<i64: 4>, scalar_prefetch = 0 : i64, scratch_operands = 0 : i64, window_params = "
    "[{transform_indices = @t, window_bounds = array<i64: 1024, 1024>}, {transform_indices = @t, window_bounds = "
    "array<i64: 1024, 1024>}]} {\n";
static const char tail[] = "\n  return\n}\nfunc.func @t(%arg0: i32) -> (i32, i32) {\n  %c0 = arith.constant 0 : i32\n"
                           "  return %arg0, %c0 : i32, i32\n}\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (memchr(data, '\0', size))
    return 0; /* the reader refuses binary before the walk: not what is fuzzed here */
  size_t n = sizeof head - 1 + size + sizeof tail - 1;
  char *text = malloc(n);
  if (!text)
    return 0;
  memcpy(text, head, sizeof head - 1);
  memcpy(text + sizeof head - 1, data, size);
  memcpy(text + sizeof head - 1 + size, tail, sizeof tail - 1);
  vmem_error err;
  vmem_kernel *k = vmem_kernel_from_mlir(text, n, NULL, &err);
  for (size_t i = 0; k && i < vmem_target_count(); i++) {
    vmem_footprint f;
    if (vmem_kernel_footprint(k, vmem_target_at(i), NULL, &f, &err) != VMEM_OK) {
      if (err.code == VMEM_OK)
        abort();
      continue;
    }
    uint64_t sum = 0;
    for (size_t a = 0; a < f.count; a++)
      if (f.allocs[a].kind == VMEM_ALLOC_MODELLED) {
        if (!f.allocs[a].note)
          abort();
        sum += f.allocs[a].bytes;
      }
    if (sum != f.modelled_bytes)
      abort();
    vmem_footprint_free(&f);
  }
  vmem_kernel_free(k);
  free(text);
  return 0;
}
