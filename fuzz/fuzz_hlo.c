/* libFuzzer target for the HLO reader. Beyond "no crash": a failure names
 * a code and an offset inside the input; a module that parses prints to
 * text that parses again to the same instruction count and prints the
 * same; every backend config decodes or fails with a code (and decoded all
 * at once, the first such), and so does every Mosaic kernel body in one. */
#include <stdlib.h>
#include <string.h>

#include "fuzz_hlo.h"
#include "vmemscope.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  vmem_error err;
  vmem_hlo_module *m = vmem_hlo_parse((const char *)data, size, NULL, &err);
  if (!m) {
    if (err.code == VMEM_OK || err.offset > size)
      abort();
    return 0;
  }
  vmem_error first = {0}; /* the first config error, which vmem_hlo_module_scoped must give */
  for (size_t c = 0; c < vmem_hlo_computation_count(m); c++) {
    const vmem_hlo_computation *comp = vmem_hlo_computation_at(m, c);
    for (size_t i = 0; i < vmem_hlo_computation_instruction_count(comp); i++) {
      vmem_hlo_scoped sc;
      const vmem_hlo_instruction *in = vmem_hlo_computation_instruction_at(comp, i);
      if (vmem_hlo_instruction_scoped(in, &sc, &err) != VMEM_OK && err.code == VMEM_OK)
        abort();
      if (err.code != VMEM_OK && first.code == VMEM_OK)
        first = err;
      if (sc.has_kernel_body) { /* the kernel inside: read, or a positioned error */
        vmem_kernel *k = vmem_hlo_instruction_kernel(in, NULL, &err);
        if (!k && (err.code == VMEM_OK || err.offset > size))
          abort();
        vmem_kernel_free(k);
      }
      vmem_size z;
      vmem_shape_size(vmem_hlo_instruction_shape(in), &z, &err);
      vmem_std_scoped ms; /* the standard-op model: a figure, or not modelled; never an error but memory */
      if (vmem_hlo_instruction_min_scoped(in, vmem_target_find("v5e", 3), &ms, &err) != VMEM_OK &&
          err.code != VMEM_ERR_NOMEM)
        abort();
    }
  }
  vmem_hlo_scoped *all = malloc((vmem_hlo_instruction_total(m) + 1) * sizeof *all);
  if (!all || vmem_hlo_module_scoped(m, all, &err) != first.code || err.offset != first.offset)
    abort();
  free(all);
  vmem_program prog; /* program-scoped VMEM: packed without overlap, or a coded error */
  vmem_program_options popt = {8, 16 << 20, true, NULL};
  if (vmem_hlo_program_vmem(m, vmem_target_find("v5e", 3), &popt, &prog, NULL, &err) == VMEM_OK) {
    if (prog.peak_bytes < prog.lower_bound_bytes || prog.used_bytes < prog.lower_bound_bytes)
      abort();
    vmem_program_free(&prog);
  } else if (err.code == VMEM_OK) {
    abort();
  }
  char *a = print(m);
  vmem_hlo_module *again = a ? vmem_hlo_parse(a, strlen(a), NULL, &err) : NULL;
  if (!again || vmem_hlo_instruction_total(again) != vmem_hlo_instruction_total(m))
    abort();
  char *b = print(again);
  if (!b || strcmp(a, b) != 0)
    abort();
  free(a);
  free(b);
  vmem_hlo_free(again);
  vmem_hlo_free(m);
  return 0;
}
