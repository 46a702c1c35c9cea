/*
 * base.h — internal foundation shared by every module: the arena, checked
 * arithmetic, error construction, and string views.
 * Internal names carry the module prefix (arena_, ck_, err_, sv_).
 */
#ifndef VMEM_BASE_H
#define VMEM_BASE_H

#include "names.h" /* first: the internal names below carry the library's prefix */

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmemscope.h"

/* ## Arena
 * A bump allocator over chunks from the caller's allocator. Everything a
 * handle owns lives in one arena and is released by arena_destroy. */
typedef struct arena_chunk arena_chunk;
typedef struct arena {
  vmem_allocator alloc;
  arena_chunk *head;
  char *cur, *end;
  size_t first; /* size of the first chunk */
} arena;

void arena_init(arena *a, const vmem_allocator *alloc);
/* Sizes the first chunk for a known amount of work (e.g. 8 x the text). */
void arena_init_sized(arena *a, const vmem_allocator *alloc, size_t first);
void *arena_alloc(arena *a, size_t size); /* 8-byte aligned (arena.c says why); NULL on failure */
void *arena_calloc(arena *a, size_t n, size_t size);
char *arena_strndup(arena *a, const char *s, size_t n);
void arena_destroy(arena *a);

/* A point to roll back to: arena_restore frees everything allocated since
 * arena_save (used for scratch parses that are checked, then dropped). */
typedef struct arena_mark {
  arena_chunk *head;
  char *cur, *end;
} arena_mark;
arena_mark arena_save(const arena *a);
void arena_restore(arena *a, arena_mark m);
/* Moves every chunk of `from` (same allocator) into `into`, which then frees them. */
void arena_adopt(arena *into, arena *from);

/* Processors to use for work split in two: 2 when two are online, else 1
 * (sys.c). */
unsigned sys_processors(void);

/* Allocation through a possibly-NULL caller allocator. */
void *vmem__alloc(const vmem_allocator *alloc, size_t size);
void vmem__free(const vmem_allocator *alloc, void *p);

/* ## Checked arithmetic: each returns false on overflow and leaves *out
 * unspecified. Sizes are uint64_t; dimensions are int64_t >= 0. */
static inline bool ck_mul(uint64_t a, uint64_t b, uint64_t *out) { return !__builtin_mul_overflow(a, b, out); }
static inline bool ck_add(uint64_t a, uint64_t b, uint64_t *out) { return !__builtin_add_overflow(a, b, out); }
/* Rounds a up to a multiple of m (m > 0). */
static inline bool ck_round_up(uint64_t a, uint64_t m, uint64_t *out) {
  uint64_t r = a % m;
  if (r == 0) {
    *out = a;
    return true;
  }
  return ck_add(a, m - r, out);
}

/* ## Errors */
void err_set(vmem_error *err, vmem_status code, size_t offset, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void err_clear(vmem_error *err);
/* The readers' failure: sets err unless it already holds an error (the first
 * one, where the input first went wrong, is the one to report), and returns
 * false so that a reader can `return err_first(...)`. */
bool err_first(vmem_error *err, vmem_status code, size_t offset, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* ## Bounded formatting into a caller's buffer (snprintf semantics,
 * accumulating the needed length past the end). */
typedef struct strbuf {
  char *buf;
  size_t cap;
  size_t len;                 /* length needed so far; may exceed cap */
  const vmem_allocator *grow; /* sb_init_growing: buf is the allocator's, doubled as needed */
  bool failed;                /* a growth failed: from then on it only counts */
} strbuf;

void sb_init(strbuf *sb, char *buf, size_t cap);
/* A buffer that grows through `alloc` (so that text is written in one pass,
 * not measured first); sb_release frees it. */
void sb_init_growing(strbuf *sb, const vmem_allocator *alloc);
void sb_release(strbuf *sb);
void sb_putn(strbuf *sb, const char *s, size_t n);
void sb_puts(strbuf *sb, const char *s);
void sb_printf(strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ASCII helpers that do not depend on the C locale. */
static inline bool ch_is_digit(int c) { return c >= '0' && c <= '9'; }
static inline bool ch_is_space(int c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
static inline bool ch_is_alpha(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static inline int ch_lower(int c) { return (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c; }

#endif
