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

void err_set(vmem_error *err, vmem_status code, size_t offset, const char *fmt, ...) {
  if (!err)
    return;
  err->code = code;
  err->offset = offset;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err->message, sizeof err->message, fmt, ap);
  va_end(ap);
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
  sb->buf = buf;
  sb->cap = cap;
  sb->len = 0;
  if (buf && cap)
    buf[0] = '\0';
}

void sb_putn(strbuf *sb, const char *s, size_t n) {
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
