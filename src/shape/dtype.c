/*
 * dtype.c — element types, from the one table in vmemscope.h.
 */
#include <string.h>

#include "shape.h"

typedef struct dtype_info {
  const char *name;
  size_t len;
  int bits;
} dtype_info;

static const dtype_info dtypes[VMEM_DTYPE_COUNT] = {
#define X(tag, name, bits, cls) [VMEM_##tag] = {name, sizeof(name) - 1, bits},
    VMEM_DTYPE_TABLE(X)
#undef X
};

const char *vmem_dtype_name(vmem_dtype t) { return (unsigned)t < VMEM_DTYPE_COUNT ? dtypes[t].name : "invalid"; }

int vmem_dtype_bits(vmem_dtype t) { return (unsigned)t < VMEM_DTYPE_COUNT ? dtypes[t].bits : 0; }

int vmem_dtype_bytes(vmem_dtype t) { return (vmem_dtype_bits(t) + 7) / 8; }

bool vmem_dtype_from_name(const char *name, size_t len, vmem_dtype *out) {
  for (int t = 0; t < VMEM_DTYPE_COUNT; t++) {
    if (dtypes[t].len == len && dtypes[t].name[0] == name[0] && memcmp(dtypes[t].name, name, len) == 0) {
      *out = (vmem_dtype)t;
      return true;
    }
  }
  return false;
}

bool dtype_is_array(vmem_dtype t) { return t != VMEM_TOKEN && t != VMEM_OPAQUE; }
