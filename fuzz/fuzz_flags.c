/* libFuzzer target for the libtpu flag reader behind limit resolution:
 * the input is split into LIBTPU_INIT_ARGS, XLA_FLAGS and --flags. */
#include <stdlib.h>
#include <string.h>

#include "vmemscope.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *buf = malloc(size + 3);
  if (!buf)
    return 0;
  memcpy(buf, data, size);
  buf[size] = buf[size + 1] = buf[size + 2] = '\0';
  /* NUL bytes in the input separate the three strings. */
  const char *parts[3] = {buf, "", ""};
  size_t k = 1;
  for (size_t i = 0; i < size && k < 3; i++)
    if (buf[i] == '\0')
      parts[k++] = buf + i + 1;
  vmem_limit_inputs in = {parts[0], parts[1], parts[2], size % 7 == 0 ? (int64_t)size : -1};
  vmem_limits l;
  vmem_error err;
  const vmem_target *t = vmem_target_at(size % vmem_target_count());
  vmem_status st = vmem_limits_resolve(t, &in, &l, &err);
  if (st == VMEM_OK && l.warning_count > VMEM_LIMIT_MAX_WARNINGS)
    abort();
  if (st != VMEM_OK && err.code != st)
    abort();
  free(buf);
  return 0;
}
