/*
 * cli_compress.c — compressed logs read directly: a .gz (zlib's inflate,
 * gzip or zlib headers, concatenated members) or a .zst (zstd's streaming
 * decoder, concatenated frames), told apart by their magic bytes, not the
 * name. zlib and zstd are Debian's packages (docs/dependencies.md); a
 * decoder is not something to write by hand. The decoders stream: explain
 * reads a compressed log a window at a time, as it reads a plain one.
 */
#define _POSIX_C_SOURCE 200809L /* fmemopen */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "cli.h"

enum { IN_CHUNK = 1 << 16 };

struct cli_unpack {
  FILE *in;
  int kind;            /* CLI_GZIP or CLI_ZSTD */
  unsigned char *ibuf; /* compressed bytes read, not yet decoded: ibuf[ipos..ilen) */
  size_t ipos, ilen;
  uint64_t consumed;    /* compressed bytes decoded so far */
  bool eof, ended, bad; /* input at its end; the last stream ended cleanly; damaged */
  z_stream z;
  ZSTD_DStream *d;
  size_t zstd_hint; /* 0 when a zstd frame ended */
};

int cli_unpack_kind(const char *head, size_t n) {
  const unsigned char *b = (const unsigned char *)head;
  if (n >= 2 && b[0] == 0x1f && b[1] == 0x8b)
    return CLI_GZIP;
  if (n >= 4 && b[0] == 0x28 && b[1] == 0xb5 && b[2] == 0x2f && b[3] == 0xfd)
    return CLI_ZSTD;
  return CLI_PLAIN;
}

cli_unpack *cli_unpack_open(FILE *in, const char *head, size_t nhead) {
  cli_unpack *u = calloc(1, sizeof *u);
  int kind = cli_unpack_kind(head, nhead);
  if (!u || kind == CLI_PLAIN || !(u->ibuf = malloc(nhead > IN_CHUNK ? nhead : IN_CHUNK))) {
    free(u);
    return NULL;
  }
  u->in = in, u->kind = kind, u->zstd_hint = 1;
  memcpy(u->ibuf, head, nhead);
  u->ilen = nhead;
  bool ok = kind == CLI_GZIP ? inflateInit2(&u->z, 15 + 32) == Z_OK /* +32: a gzip or a zlib header */
                             : (u->d = ZSTD_createDStream()) != NULL;
  if (!ok) {
    free(u->ibuf);
    free(u);
    return NULL;
  }
  return u;
}

void cli_unpack_close(cli_unpack *u) {
  if (!u)
    return;
  if (u->kind == CLI_GZIP)
    inflateEnd(&u->z);
  else
    ZSTD_freeDStream(u->d);
  free(u->ibuf);
  free(u);
}

/* More compressed input when what was read is used up; false at its end. */
static bool refill(cli_unpack *u) {
  if (u->ipos < u->ilen)
    return true;
  if (u->eof)
    return false;
  u->ipos = 0;
  u->ilen = fread(u->ibuf, 1, IN_CHUNK, u->in);
  u->eof = u->ilen < IN_CHUNK;
  return u->ilen > 0;
}

/* One step of the decoder into out[0..n): the bytes made. */
static size_t step(cli_unpack *u, char *out, size_t n, char *why, size_t cap) {
  size_t made = 0, used = 0;
  if (u->kind == CLI_GZIP) {
    u->z.next_in = u->ibuf + u->ipos, u->z.avail_in = (uInt)(u->ilen - u->ipos);
    u->z.next_out = (unsigned char *)out, u->z.avail_out = (uInt)(n > (1u << 30) ? 1u << 30 : n);
    uInt ai = u->z.avail_in, ao = u->z.avail_out;
    int rc = inflate(&u->z, Z_NO_FLUSH);
    used = ai - u->z.avail_in, made = ao - u->z.avail_out;
    u->ended = rc == Z_STREAM_END;
    if (rc == Z_STREAM_END)
      inflateReset(&u->z); /* another gzip member may follow */
    else if (rc != Z_OK && rc != Z_BUF_ERROR)
      u->bad = true, snprintf(why, cap, "a damaged gzip stream at byte %llu: %s",
                              (unsigned long long)(u->consumed + used), u->z.msg ? u->z.msg : "inflate failed");
  } else {
    ZSTD_inBuffer ib = {u->ibuf + u->ipos, u->ilen - u->ipos, 0};
    ZSTD_outBuffer ob = {out, n, 0};
    size_t rc = ZSTD_decompressStream(u->d, &ob, &ib);
    used = ib.pos, made = ob.pos;
    if (ZSTD_isError(rc))
      u->bad = true, snprintf(why, cap, "a damaged zstd stream at byte %llu: %s",
                              (unsigned long long)(u->consumed + used), ZSTD_getErrorName(rc));
    else
      u->zstd_hint = rc, u->ended = rc == 0;
  }
  u->ipos += used, u->consumed += used;
  return made;
}

size_t cli_unpack_read(cli_unpack *u, char *out, size_t n, char *why, size_t cap, bool *bad) {
  size_t got = 0;
  *bad = false;
  while (got < n && !u->bad) {
    if (!refill(u)) {
      if (!u->ended && !why[0])
        snprintf(why, cap, "the %s stream is cut (it ends at byte %llu without its end)",
                 u->kind == CLI_GZIP ? "gzip" : "zstd", (unsigned long long)u->consumed);
      break;
    }
    size_t made = step(u, out + got, n - got, why, cap);
    got += made;
    if (!made && u->ipos < u->ilen && !u->bad && u->kind == CLI_GZIP && !u->ended && u->z.avail_out)
      break; /* no progress with input and room left: zlib's buffer error, a stream that cannot go on */
  }
  *bad = u->bad;
  return got;
}

/* Past this much decompressed text a buffer is refused: a few hundred KB of
 * gzip can expand without bound (a "bomb"). 16 GiB is past any real log. */
#define MAX_OUT ((size_t)16 << 30)

int cli_decompress(char **text, size_t *len, char *why, size_t cap) {
  why[0] = '\0';
  int kind = cli_unpack_kind(*text, *len);
  if (kind == CLI_PLAIN)
    return CLI_PLAIN;
  FILE *f = fmemopen(*text, *len, "rb");
  char head[4];
  size_t nh = f ? fread(head, 1, sizeof head, f) : 0;
  cli_unpack *u = f ? cli_unpack_open(f, head, nh) : NULL;
  size_t n = 0, room = 1 << 16;
  char *out = u ? malloc(room + 1) : NULL;
  bool bad = false;
  while (out && !bad) {
    size_t got = cli_unpack_read(u, out + n, room - n, why, cap, &bad);
    n += got;
    if (n < room)
      break;
    char *more = room * 2 <= MAX_OUT ? realloc(out, room * 2 + 1) : NULL;
    if (!more) {
      snprintf(why, cap, room * 2 > MAX_OUT ? "decompressed past %zu GiB: refused" : "out of memory", MAX_OUT >> 30);
      free(out), out = NULL;
      break;
    }
    out = more, room *= 2;
  }
  cli_unpack_close(u);
  if (f)
    fclose(f);
  if (!out || bad) {
    if (!why[0])
      snprintf(why, cap, "out of memory");
    free(out);
    return CLI_BAD_STREAM;
  }
  out[n] = '\0';
  free(*text);
  *text = out, *len = n;
  return kind;
}
