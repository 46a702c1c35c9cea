/*
 * bc_kernel.c — the public face of the bytecode reader: a Mosaic body as
 * raw bytecode or as the base64 a backend_config carries, decoded to MLIR
 * text, and that text read by the one kernel reader (mlir_text.c).
 */
#include <string.h>

#include "bytecode.h"

/* Raw bytecode as is; base64 ("TUzvUg..." is "ML\xefR") decoded into `a`.
 * Surrounding whitespace is allowed around base64 (a file's newline). */
static bool raw_bytes(arena *a, const void *data, size_t len, const uint8_t **out, size_t *n, vmem_error *err) {
  const char *s = data;
  if (len >= 4 && !memcmp(s, "ML\xefR", 4)) {
    *out = data;
    *n = len;
    return true;
  }
  size_t b = 0, e = len;
  while (b < e && ch_is_space(s[b]))
    b++;
  while (e > b && ch_is_space(s[e - 1]))
    e--;
  if (e - b < 8 || memcmp(s + b, "TUzvUg", 6) != 0) {
    err_set(err, VMEM_ERR_SYNTAX, b, "not MLIR bytecode: neither the bytes 'ML\\xefR' nor their base64 'TUzvUg'");
    return false;
  }
  uint8_t *buf = arena_alloc(a, (e - b) / 4 * 3 + 3);
  size_t bad = 0;
  size_t got = buf ? bc_base64_decode(s + b, e - b, buf, &bad) : 0;
  if (!buf) {
    err_set(err, VMEM_ERR_NOMEM, 0, "out of memory");
    return false;
  }
  if (got == SIZE_MAX) {
    err_set(err, VMEM_ERR_SYNTAX, b + bad, "base64: %s at character %zu",
            b + bad >= e ? "length not a multiple of 4" : "invalid character", b + bad);
    return false;
  }
  *out = buf;
  *n = got;
  return true;
}

/* Decodes and prints; the text lives in `a`. Errors carry the offset in
 * the caller's input: for base64, the character that holds the byte the
 * message names. */
static bool decode(arena *a, const void *data, size_t len, vmem_str *text, vmem_error *err) {
  const uint8_t *bytes = NULL;
  size_t n;
  bc_file f;
  if (!data && len) {
    err_set(err, VMEM_ERR_ARGUMENT, 0, "no data");
    return false;
  }
  if (!raw_bytes(a, data ? data : "", len, &bytes, &n, err))
    return false;
  if (bc_read(a, bytes, n, &f, err) == VMEM_OK && bc_print(a, &f, text, err) == VMEM_OK)
    return true;
  if (bytes != data) { /* base64: skip the leading blanks, then 4 characters per 3 bytes */
    const char *s = data;
    size_t b = 0;
    while (b < len && ch_is_space(s[b]))
      b++;
    err->offset = b + err->offset / 3 * 4;
  }
  return false;
}

size_t vmem_bytecode_text(const void *data, size_t len, char *buf, size_t cap, const vmem_allocator *alloc,
                          vmem_error *err) {
  vmem_error local;
  err_clear(&local);
  arena a;
  arena_init(&a, alloc);
  vmem_str text;
  size_t n = SIZE_MAX;
  if (decode(&a, data, len, &text, &local)) {
    strbuf sb;
    sb_init(&sb, buf, cap);
    sb_putn(&sb, text.ptr, text.len);
    n = text.len;
  }
  arena_destroy(&a);
  if (err)
    *err = local;
  return n;
}

vmem_kernel *vmem_kernel_from_bytecode(const void *data, size_t len, const vmem_allocator *alloc, vmem_error *err) {
  vmem_error local;
  err_clear(&local);
  arena a;
  arena_init(&a, alloc);
  vmem_str text;
  vmem_kernel *k = NULL;
  if (decode(&a, data, len, &text, &local)) {
    k = vmem_kernel_from_mlir(text.ptr, text.len, alloc, &local);
    if (!k) { /* the position is in the decoded text, not in the input */
      char msg[sizeof local.message];
      memcpy(msg, local.message, sizeof msg);
      size_t b = 0;
      while (b < len && ch_is_space(((const char *)data)[b]))
        b++;
      err_set(&local, local.code, b, "decoded MLIR, byte %zu: %.200s", local.offset, msg);
    }
  }
  arena_destroy(&a);
  if (err)
    *err = local;
  return k;
}
