/*
 * cli_compress.c — compressed logs read directly: a .gz (zlib's inflate,
 * gzip or zlib headers, concatenated members) or a .zst (zstd's streaming
 * decoder, concatenated frames), told apart by their magic bytes, not the
 * name. zlib and zstd are Debian's packages (docs/dependencies.md); a
 * decoder is not something to write by hand.
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "cli.h"

/* Past this much decompressed text a log is refused: a few hundred KB of
 * gzip can expand without bound (a "bomb"). 16 GiB is past any real log. */
#define MAX_OUT ((size_t)16 << 30)

typedef struct growbuf {
  char *p;
  size_t n, cap;
} growbuf;

/* Room for at least `more` bytes after n; false when out of memory or past MAX_OUT. */
static bool reserve(growbuf *b, size_t more) {
  if (b->cap - b->n >= more)
    return true;
  size_t cap = b->cap ? b->cap : 1 << 16;
  while (cap - b->n < more)
    cap *= 2;
  if (cap > MAX_OUT)
    return false;
  char *p = realloc(b->p, cap + 1);
  if (!p)
    return false;
  b->p = p, b->cap = cap;
  return true;
}

static bool gunzip(const unsigned char *in, size_t len, growbuf *out, char *why, size_t cap) {
  z_stream z;
  memset(&z, 0, sizeof z);
  if (inflateInit2(&z, 15 + 32) != Z_OK) /* +32: a gzip or a zlib header, detected */
    return snprintf(why, cap, "cannot start zlib's decoder"), false;
  z.next_in = (unsigned char *)(uintptr_t)in;
  bool ok = true;
  size_t left = len;
  while (ok) {
    if (!reserve(out, 1 << 20)) {
      snprintf(why, cap, "decompressed past %zu GiB: refused", MAX_OUT >> 30);
      ok = false;
      break;
    }
    uInt chunk = left > (1u << 30) ? 1u << 30 : (uInt)left;
    z.avail_in = chunk;
    z.next_out = (unsigned char *)out->p + out->n;
    z.avail_out = (uInt)(out->cap - out->n > (1u << 30) ? 1u << 30 : out->cap - out->n);
    uInt before_out = z.avail_out;
    int rc = inflate(&z, Z_NO_FLUSH);
    out->n += before_out - z.avail_out;
    left -= chunk - z.avail_in;
    if (rc == Z_STREAM_END) {
      if (!left)
        break;
      inflateReset(&z); /* another gzip member follows */
    } else if (rc == Z_BUF_ERROR && !left) {
      snprintf(why, cap, "the gzip stream is cut (it ends at byte %zu without its end): the text before the cut is read",
               len);
      break; /* a cut log: read what it held, and say so */
    } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
      snprintf(why, cap, "a damaged gzip stream at byte %zu: %s", len - left, z.msg ? z.msg : "inflate failed");
      ok = false;
    }
  }
  inflateEnd(&z);
  return ok;
}

static bool unzstd(const unsigned char *in, size_t len, growbuf *out, char *why, size_t cap) {
  ZSTD_DStream *d = ZSTD_createDStream();
  if (!d)
    return snprintf(why, cap, "cannot start zstd's decoder"), false;
  ZSTD_inBuffer ib = {in, len, 0};
  bool ok = true;
  size_t last = 1;
  while (ok && ib.pos < ib.size) {
    if (!reserve(out, ZSTD_DStreamOutSize())) {
      snprintf(why, cap, "decompressed past %zu GiB: refused", MAX_OUT >> 30);
      ok = false;
      break;
    }
    ZSTD_outBuffer ob = {out->p + out->n, out->cap - out->n, 0};
    last = ZSTD_decompressStream(d, &ob, &ib);
    out->n += ob.pos;
    if (ZSTD_isError(last)) {
      snprintf(why, cap, "a damaged zstd stream at byte %zu: %s", ib.pos, ZSTD_getErrorName(last));
      ok = false;
    }
  }
  if (ok && last != 0) /* the input ended inside a frame */
    snprintf(why, cap, "the zstd stream is cut (it ends at byte %zu inside a frame): the text before the cut is read",
             len);
  ZSTD_freeDStream(d);
  return ok;
}

int cli_decompress(char **text, size_t *len, char *why, size_t cap) {
  const unsigned char *b = (const unsigned char *)*text;
  bool gz = *len >= 2 && b[0] == 0x1f && b[1] == 0x8b;
  bool zst = *len >= 4 && b[0] == 0x28 && b[1] == 0xb5 && b[2] == 0x2f && b[3] == 0xfd;
  why[0] = '\0';
  if (!gz && !zst)
    return CLI_PLAIN;
  growbuf out = {0};
  bool ok = gz ? gunzip(b, *len, &out, why, cap) : unzstd(b, *len, &out, why, cap);
  if (!ok || !reserve(&out, 1)) {
    if (!why[0])
      snprintf(why, cap, "out of memory");
    free(out.p);
    return CLI_BAD_STREAM;
  }
  out.p[out.n] = '\0';
  free(*text);
  *text = out.p;
  *len = out.n;
  return gz ? CLI_GZIP : CLI_ZSTD;
}
