/*
 * humansize.c — byte counts as the TPU compiler prints them.
 *
 * The compiler uses tsl's HumanReadableNumBytes: below 1024 "<n>B"; else
 * integer-divide by 1024 while the value is at least 1 MiB, then print
 * value/1024.0 with one decimal for K and two for M, G, T, P, E. The reverse
 * maps a printed size to the interval of byte counts that print that way,
 * which is how `explain` checks a quoted figure against a computed one.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base.h"

static const char units[] = "KMGTPE";

size_t vmem_format_bytes(int64_t bytes, char *buf, size_t cap) {
  char tmp[32];
  int n;
  if (bytes == INT64_MIN) {
    n = snprintf(tmp, sizeof tmp, "-8E");
  } else {
    const char *neg = bytes < 0 ? "-" : "";
    uint64_t v = bytes < 0 ? (uint64_t)(-bytes) : (uint64_t)bytes;
    if (v < 1024) {
      n = snprintf(tmp, sizeof tmp, "%s%" PRIu64 "B", neg, v);
    } else {
      const char *unit = units;
      while (v >= 1024u * 1024u) {
        v /= 1024;
        unit++;
      }
      n = snprintf(tmp, sizeof tmp, *unit == 'K' ? "%s%.1f%c" : "%s%.2f%c", neg, (double)v / 1024.0, *unit);
    }
  }
  strbuf sb;
  sb_init(&sb, buf, cap);
  sb_putn(&sb, tmp, n > 0 ? (size_t)n : 0);
  return sb.len;
}

/* A printed size as a totally ordered key: unit rank (B=0, K=1, ...) and
 * the printed digits as one integer. The printed form is monotone in the
 * byte count, so the key is too. */
typedef struct size_key {
  int unit;
  uint64_t digits;
} size_key;

static int key_cmp(size_key a, size_key b) {
  if (a.unit != b.unit)
    return a.unit < b.unit ? -1 : 1;
  if (a.digits != b.digits)
    return a.digits < b.digits ? -1 : 1;
  return 0;
}

/* Parses "<int>B" or "<int>.<d>K" / "<int>.<dd>[MGTPE]" into a key. On
 * failure returns false and the offset of the first bad character. */
static bool parse_key(const char *s, size_t len, size_key *out, size_t *bad) {
  size_t i = 0, ndig = 0, nfrac = 0;
  uint64_t digits = 0;
  bool dot = false;
  for (; i < len && (ch_is_digit(s[i]) || (s[i] == '.' && !dot)); i++) {
    if (s[i] == '.') {
      dot = true;
      continue;
    }
    if (!ck_mul(digits, 10, &digits) || !ck_add(digits, (uint64_t)(s[i] - '0'), &digits)) {
      *bad = i;
      return false;
    }
    ndig++;
    nfrac += dot;
  }
  *bad = i;
  if (ndig == 0 || i + 1 != len) /* exactly one unit letter must follow */
    return false;
  /* The compiler never prints a leading zero ("04.0K"). */
  if (len > 1 && s[0] == '0' && ch_is_digit(s[1])) {
    *bad = 0;
    return false;
  }
  int unit = -1;
  if (s[i] == 'B' && !dot)
    unit = 0;
  for (int u = 0; units[u] && unit < 0; u++)
    if (s[i] == units[u])
      unit = u + 1;
  if (unit < 0 || (unit >= 1 && nfrac != (unit == 1 ? 1u : 2u)))
    return false;
  out->unit = unit;
  out->digits = digits;
  return true;
}

static size_key key_of(uint64_t bytes) {
  char tmp[32];
  size_t n = vmem_format_bytes((int64_t)bytes, tmp, sizeof tmp);
  size_key k = {0, 0};
  size_t bad;
  parse_key(tmp, n, &k, &bad);
  return k;
}

/* Smallest b in [0, INT64_MAX] with key(b) >= k (or > k when strict). */
static uint64_t lower_bound(size_key k, bool strict) {
  uint64_t lo = 0, hi = (uint64_t)INT64_MAX;
  while (lo < hi) {
    uint64_t mid = lo + (hi - lo) / 2;
    int c = key_cmp(key_of(mid), k);
    if (c < 0 || (strict && c == 0))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

vmem_status vmem_parse_human_bytes(const char *text, size_t len, uint64_t *lo, uint64_t *hi, vmem_error *err) {
  err_clear(err);
  if (len == 0) {
    err_set(err, VMEM_ERR_SYNTAX, 0, "expected a size like 64.0K or 16.00M");
    return VMEM_ERR_SYNTAX;
  }
  /* A plain integer is an exact byte count. */
  size_t i = 0;
  uint64_t v = 0;
  while (i < len && ch_is_digit(text[i])) {
    if (!ck_mul(v, 10, &v) || !ck_add(v, (uint64_t)(text[i] - '0'), &v)) {
      err_set(err, VMEM_ERR_OVERFLOW, i, "byte count does not fit in 64 bits");
      return VMEM_ERR_OVERFLOW;
    }
    i++;
  }
  if (i == len) {
    *lo = *hi = v;
    return VMEM_OK;
  }
  size_key k;
  size_t bad;
  if (!parse_key(text, len, &k, &bad)) {
    err_set(err, VMEM_ERR_SYNTAX, bad, "expected a size as the compiler prints it: 512B, 64.0K, 16.00M");
    return VMEM_ERR_SYNTAX;
  }
  uint64_t a = lower_bound(k, false);
  if (key_cmp(key_of(a), k) != 0) {
    err_set(err, VMEM_ERR_RANGE, 0, "no byte count prints as %.*s", (int)len, text);
    return VMEM_ERR_RANGE;
  }
  *lo = a;
  /* The search space ends at INT64_MAX, which itself prints as "8.00E". */
  *hi = key_cmp(key_of((uint64_t)INT64_MAX), k) == 0 ? (uint64_t)INT64_MAX : lower_bound(k, true) - 1;
  return VMEM_OK;
}
