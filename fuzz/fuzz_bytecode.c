/* libFuzzer target for the MLIR bytecode reader: raw bytes, or base64
 * text when the input starts as a body does ("TUzvUg"). A failure must
 * carry a code and an offset inside the input; a file that reads must have
 * every table index inside its table, print to NUL-terminated text (or
 * fail the same way), and the kernel reader on top must do likewise. */
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
    vmem_str text;
    if (bc_print(&a, &f, &text, &err) != VMEM_OK) {
      if (err.code == VMEM_OK || err.offset > len)
        abort();
    } else if (text.ptr[text.len] != '\0' || strlen(text.ptr) > text.len) {
      abort();
    }
  }
  arena_destroy(&a);
  vmem_kernel *k = vmem_kernel_from_bytecode(buf, len, NULL, &err);
  if (!k && (err.code == VMEM_OK || err.offset > len))
    abort();
  vmem_kernel_free(k);
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
