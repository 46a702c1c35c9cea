/* fuzz_kernel.h — the checks shared by the two kernel readers' fuzz
 * targets: a failure has a code and an offset inside the input; a kernel
 * that reads has a footprint that computes or fails with a code, on every
 * target, and remedies that compute. */
#ifndef VMEM_FUZZ_KERNEL_H
#define VMEM_FUZZ_KERNEL_H

#include <stdlib.h>

#include "vmemscope.h"

typedef vmem_kernel *(*kernel_reader)(const char *, size_t, const vmem_allocator *, vmem_error *);

static int fuzz_kernel(kernel_reader read, const uint8_t *data, size_t size) {
  vmem_error err;
  vmem_kernel *k = read((const char *)data, size, NULL, &err);
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

#endif
