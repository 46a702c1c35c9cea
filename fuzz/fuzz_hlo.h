/* fuzz_hlo.h — what the two HLO reader fuzz targets share: a module
 * printed to a NUL-terminated string (free it; NULL when out of memory). */
#ifndef VMEM_FUZZ_HLO_H
#define VMEM_FUZZ_HLO_H

#include <stdlib.h>

#include "vmemscope.h"

static char *print(const vmem_hlo_module *m) {
  size_t n = vmem_hlo_print(m, NULL, 0);
  char *buf = malloc(n + 1);
  if (buf)
    vmem_hlo_print(m, buf, n + 1);
  return buf;
}

#endif
