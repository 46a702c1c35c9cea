/* fuzz_kernel.h — the checks shared by the two kernel readers' fuzz
 * targets: a failure has a code and an offset inside the input; a kernel
 * that reads has a footprint that computes or fails with a code, on every
 * target, and remedies that compute. */
#ifndef VMEM_FUZZ_KERNEL_H
#define VMEM_FUZZ_KERNEL_H

#include <stdlib.h>

#include "vmemscope.h"

typedef vmem_kernel *(*kernel_reader)(const char *, size_t, const vmem_allocator *, vmem_error *);

/* fit's template against the planner: at the kernel's own parameter
 * values a legal evaluation has the planner's exact footprint; every
 * buffer choice (2, 1, colored) evaluates without a crash. */
static void fuzz_template(const vmem_kernel *k, const vmem_target *t, const vmem_footprint *f) {
  vmem_error err;
  vmem_template *tpl = vmem_template_new(k, t, NULL, NULL, NULL, &err);
  if (!tpl)
    return;
  int64_t v[16] = {0};
  size_t n = vmem_template_param_count(tpl);
  for (size_t p = 0; p < n && p < 16; p++)
    v[p] = vmem_template_param_value(tpl, p);
  vmem_eval e;
  vmem_template_eval(tpl, v, &e);
  if (n <= 16 && e.legal && (e.scoped_bytes != f->scoped_bytes || e.modelled_bytes != f->modelled_bytes))
    abort(); /* the template charges the planner's body values at the kernel's own blocks */
  int bufs[64];
  for (int c = 0; c <= 2; c++) {
    for (size_t j = 0; j < 64; j++)
      bufs[j] = c;
    if (vmem_template_buffer_choices(tpl) <= 64)
      vmem_template_eval_buffers(tpl, v, bufs, &e);
  }
  vmem_template_free(tpl);
}

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
      fuzz_template(k, vmem_target_at(i), &f);
      vmem_footprint_free(&f);
    } else if (err.code == VMEM_OK) {
      abort();
    }
  }
  vmem_kernel_free(k);
  return 0;
}

#endif
