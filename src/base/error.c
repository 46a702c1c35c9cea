/*
 * error.c — error values and bounded string building.
 */
#include <stdio.h>
#include <string.h>

#include "base.h"

static const char *const status_names[] = {
    [VMEM_OK] = "ok",
    [VMEM_ERR_SYNTAX] = "syntax",
    [VMEM_ERR_OVERFLOW] = "overflow",
    [VMEM_ERR_UNKNOWN] = "unknown",
    [VMEM_ERR_RANGE] = "range",
    [VMEM_ERR_UNSUPPORTED] = "unsupported",
    [VMEM_ERR_NOMEM] = "nomem",
    [VMEM_ERR_ARGUMENT] = "argument",
    [VMEM_ERR_INTERNAL] = "internal",
};

const char *vmem_version(void) { return VMEM_VERSION_STRING; }

const char *vmem_status_name(vmem_status s) {
  if ((size_t)s < sizeof status_names / sizeof *status_names)
    return status_names[s];
  return "invalid";
}

__attribute__((format(printf, 4, 0))) static void err_vset(vmem_error *err, vmem_status code, size_t offset,
                                                           const char *fmt, va_list ap) {
  err->code = code;
  err->offset = offset;
  vsnprintf(err->message, sizeof err->message, fmt, ap);
}

void err_set(vmem_error *err, vmem_status code, size_t offset, const char *fmt, ...) {
  if (!err)
    return;
  va_list ap;
  va_start(ap, fmt);
  err_vset(err, code, offset, fmt, ap);
  va_end(ap);
}

bool err_first(vmem_error *err, vmem_status code, size_t offset, const char *fmt, ...) {
  if (!err || err->code != VMEM_OK)
    return false;
  va_list ap;
  va_start(ap, fmt);
  err_vset(err, code, offset, fmt, ap);
  va_end(ap);
  return false;
}

void err_clear(vmem_error *err) {
  if (err) {
    err->code = VMEM_OK;
    err->offset = 0;
    err->message[0] = '\0';
  }
}

void vmem_locate(const char *text, size_t len, size_t offset, size_t *line, size_t *column) {
  size_t l = 1, c = 1;
  if (offset > len)
    offset = len;
  for (size_t i = 0; i < offset; i++) {
    if (text[i] == '\n') {
      l++;
      c = 1;
    } else {
      c++;
    }
  }
  if (line)
    *line = l;
  if (column)
    *column = c;
}

void sb_init(strbuf *sb, char *buf, size_t cap) {
  *sb = (strbuf){buf, cap, 0, NULL, false};
  if (buf && cap)
    buf[0] = '\0';
}

void sb_init_growing(strbuf *sb, const vmem_allocator *alloc) { *sb = (strbuf){NULL, 0, 0, alloc, false}; }

void sb_release(strbuf *sb) {
  if (sb->grow)
    vmem__free(sb->grow, sb->buf);
  sb->buf = NULL;
  sb->cap = 0;
}

/* Room for n more bytes and the NUL in a growing buffer: doubled, copied
 * (the allocator has no realloc). False, and only counting from then on,
 * when the allocator fails or the size passes SIZE_MAX. */
static bool sb_room(strbuf *sb, size_t n) {
  if (sb->failed || (sb->len <= sb->cap && n < sb->cap - sb->len))
    return !sb->failed;
  size_t want = sb->cap ? sb->cap : 4096;
  while (want - 1 < sb->len || n >= want - sb->len) {
    if (want > SIZE_MAX / 2) {
      sb->failed = true;
      return false;
    }
    want *= 2;
  }
  char *nb = vmem__alloc(sb->grow, want);
  if (!nb) {
    sb->failed = true;
    return false;
  }
  if (sb->buf)
    memcpy(nb, sb->buf, sb->len < sb->cap ? sb->len + 1 : sb->cap);
  vmem__free(sb->grow, sb->buf);
  sb->buf = nb;
  sb->cap = want;
  return true;
}

void sb_putn(strbuf *sb, const char *s, size_t n) {
  if (sb->grow)
    sb_room(sb, n);
  if (sb->buf && sb->len + 1 < sb->cap) {
    size_t room = sb->cap - 1 - sb->len;
    size_t k = n < room ? n : room;
    if (k) /* an empty view may have a NULL pointer */
      memcpy(sb->buf + sb->len, s, k);
    sb->buf[sb->len + k] = '\0';
  }
  sb->len += n;
}

void sb_puts(strbuf *sb, const char *s) { sb_putn(sb, s, strlen(s)); }

void sb_printf(strbuf *sb, const char *fmt, ...) {
  char tmp[128];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (n < 0)
    return;
  /* For numbers and short names only: text of any length goes through
   * sb_puts (a raw D(...) layout group once came here and was cut). */
  if ((size_t)n >= sizeof tmp)
    n = (int)sizeof tmp - 1;
  sb_putn(sb, tmp, (size_t)n);
}
