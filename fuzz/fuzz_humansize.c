/* libFuzzer target for the reader of compiler-printed sizes ("64.0K"):
 * every interval it returns must print back as the input. */
#include <stdlib.h>
#include <string.h>

#include "vmemscope.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uint64_t lo, hi;
  vmem_error err;
  const char *text = (const char *)data;
  if (vmem_parse_human_bytes(text, size, &lo, &hi, &err) != VMEM_OK)
    return 0;
  if (lo > hi)
    abort();
  /* Plain integers are exact; printed sizes must print back the same. */
  bool plain = size > 0;
  for (size_t i = 0; i < size; i++)
    plain = plain && text[i] >= '0' && text[i] <= '9';
  if (!plain && lo <= (uint64_t)INT64_MAX) {
    char buf[32];
    size_t n = vmem_format_bytes((int64_t)lo, buf, sizeof buf);
    if (n != size || memcmp(buf, text, size) != 0)
      abort();
  }
  return 0;
}
