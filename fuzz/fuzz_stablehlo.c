/* libFuzzer target for the StableHLO reader and the kernels of its
 * tpu_custom_calls: no crash, no leak; a failure names a code and an
 * offset inside the input; every view an op holds lies inside the text or
 * the module's own copies. */
#include <stdlib.h>
#include <string.h>

#include "vmemscope.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  vmem_error err;
  const char *text = (const char *)data;
  vmem_stablehlo *m = vmem_stablehlo_parse(text, size, NULL, &err);
  if (!m) {
    if (err.code == VMEM_OK || err.offset > size)
      abort();
    return 0;
  }
  for (size_t i = 0; i < vmem_stablehlo_op_count(m); i++) {
    const vmem_stablehlo_op *op = vmem_stablehlo_op_at(m, i);
    if (op->offset > size || op->opcode.ptr < text || op->opcode.ptr + op->opcode.len > text + size)
      abort();
    if (op->target.len) {
      vmem_kernel *k = vmem_stablehlo_op_kernel(m, i, NULL, &err);
      if (!k && (err.code == VMEM_OK || err.offset > size))
        abort();
      vmem_kernel_free(k);
    }
  }
  vmem_stablehlo_free(m);
  return 0;
}
