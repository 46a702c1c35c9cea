/* libFuzzer target for the JSON kernel spec reader: a failure has a code
 * and an offset inside the input (0 for semantic errors); a kernel that reads has a footprint
 * that computes or fails with a code, on every target. */
#include <stdlib.h>

#include "vmemscope.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  vmem_error err;
  vmem_kernel *k = vmem_kernel_from_spec((const char *)data, size, NULL, &err);
  if (!k) {
    if (err.code == VMEM_OK || err.offset > size)
      abort();
    return 0;
  }
  for (size_t i = 0; i < vmem_target_count(); i++) {
    vmem_footprint f;
    if (vmem_kernel_footprint(k, vmem_target_at(i), NULL, &f, &err) == VMEM_OK) {
      if (f.stack_bytes < f.scoped_bytes)
        abort();
      vmem_remedies r;
      vmem_kernel_remedies(k, vmem_target_at(i), NULL, f.scoped_bytes / 2, &r, &err);
      vmem_footprint_free(&f);
    } else if (err.code == VMEM_OK) {
      abort();
    }
  }
  vmem_kernel_free(k);
  return 0;
}
