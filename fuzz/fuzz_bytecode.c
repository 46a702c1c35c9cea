/* libFuzzer target for the MLIR bytecode container reader: raw bytes, or
 * base64 text when the input starts as a body does ("TUzvUg"). A failure
 * must carry a code and an offset inside the input; a file that reads must
 * have every table index inside its table. */
#include <stdlib.h>
#include <string.h>

#include "../src/mosaic/bytecode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const uint8_t *buf, size_t len) {
  arena a;
  arena_init(&a, NULL);
  bc_file f;
  vmem_error err;
  if (bc_read(&a, buf, len, &f, &err) != VMEM_OK) {
    if (err.code == VMEM_OK || err.offset > len)
      abort();
  } else {
    for (size_t i = 0; i < f.ndialects; i++)
      if (f.dialects[i] >= f.nstrings)
        abort();
    for (size_t i = 0; i < f.nops; i++)
      if (f.ops[i].dialect >= f.ndialects || f.ops[i].name >= f.nstrings)
        abort();
    for (size_t i = 0; i < f.nattrs + f.ntypes; i++)
      if (f.entries[i].start + f.entries[i].len > len || bc_entry_text(&f, &f.entries[i]).len > len)
        abort();
  }
  arena_destroy(&a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size >= 6 && !memcmp(data, "TUzvUg", 6)) {
    uint8_t *raw = malloc(size / 4 * 3 + 3);
    size_t bad, n = raw ? bc_base64_decode((const char *)data, size, raw, &bad) : SIZE_MAX;
    if (n != SIZE_MAX)
      check(raw, n);
    free(raw);
    return 0;
  }
  check(data, size);
  return 0;
}
