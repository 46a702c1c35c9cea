/* libFuzzer target for the shape reader. Beyond "no crash": whatever
 * parses must print, re-parse and print to the same text, and sizing it
 * with every target's default layout must succeed or fail with a code. */
#include <stdlib.h>
#include <string.h>

#include "vmemscope.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *print(const vmem_shape *s) {
  size_t n = vmem_shape_print(s, NULL, 0);
  char *buf = malloc(n + 1);
  if (buf)
    vmem_shape_print(s, buf, n + 1);
  return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  vmem_error err;
  vmem_shape *s = vmem_shape_parse((const char *)data, size, NULL, &err);
  if (!s) {
    if (err.code == VMEM_OK || err.offset > size)
      abort(); /* a failure must say why and where */
    return 0;
  }
  char *a = print(s);
  vmem_shape *again = vmem_shape_parse(a, strlen(a), NULL, &err);
  if (!again)
    abort(); /* the printer wrote something the parser rejects */
  char *b = print(again);
  if (strcmp(a, b) != 0)
    abort();
  vmem_size z;
  vmem_shape_size(s, &z, &err);
  for (size_t i = 0; i < vmem_target_count(); i++) {
    vmem_shape *l = vmem_shape_with_tpu_layout(s, vmem_target_at(i), NULL, &err);
    if (l) {
      if (vmem_shape_size(l, &z, &err) == VMEM_OK && z.bytes < z.unpadded_bytes && !vmem_shape_is_tuple(l))
        abort(); /* default tiling never shrinks an array */
      vmem_shape_free(l);
    }
  }
  free(a);
  free(b);
  vmem_shape_free(again);
  vmem_shape_free(s);
  return 0;
}
