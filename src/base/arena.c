/*
 * arena.c — bump allocation over chunks obtained from the caller's
 * allocator. One arena per handle; one call frees it all.
 */
#include <stdlib.h>
#include <string.h>

#include "base.h"

struct arena_chunk {
  arena_chunk *next;
  size_t size;
  /* payload follows, 16-byte aligned */
};

/* 8-byte alignment suffices: the library stores no long double or vector
 * types, and a parsed 100 MB module is mostly small nodes. Chunks double up
 * to ARENA_MAX_GROWTH so a big parse makes few allocator calls without
 * wasting half of a huge last chunk. */
enum { ARENA_ALIGN = 8, ARENA_MIN_CHUNK = 4096 - 64, ARENA_MAX_GROWTH = 4 << 20 };

static size_t chunk_header(void) { return (sizeof(arena_chunk) + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1); }

void *vmem__alloc(const vmem_allocator *alloc, size_t size) {
  if (alloc && alloc->alloc)
    return alloc->alloc(alloc->ctx, size);
  return malloc(size);
}

void vmem__free(const vmem_allocator *alloc, void *p) {
  if (!p)
    return;
  if (alloc && alloc->free)
    alloc->free(alloc->ctx, p);
  else
    free(p);
}

void arena_init(arena *a, const vmem_allocator *alloc) {
  memset(a, 0, sizeof *a);
  if (alloc)
    a->alloc = *alloc;
  a->first = ARENA_MIN_CHUNK;
}

void arena_init_sized(arena *a, const vmem_allocator *alloc, size_t first) {
  arena_init(a, alloc);
  if (first < 256)
    first = 256;
  if (first < ARENA_MIN_CHUNK)
    a->first = first;
}

/* Starts a new chunk large enough for `size`. Chunks grow geometrically so
 * that a large parse makes O(log n) calls to the caller's allocator. */
static bool arena_grow(arena *a, size_t size) {
  size_t want = a->first;
  if (a->head)
    want = a->head->size < ARENA_MAX_GROWTH / 2 ? a->head->size * 2 : ARENA_MAX_GROWTH;
  if (want < size)
    want = size;
  size_t hdr = chunk_header();
  if (want > SIZE_MAX - hdr)
    return false;
  arena_chunk *c = vmem__alloc(&a->alloc, hdr + want);
  if (!c)
    return false;
  c->next = a->head;
  c->size = want;
  a->head = c;
  a->cur = (char *)c + hdr;
  a->end = a->cur + want;
  return true;
}

void *arena_alloc(arena *a, size_t size) {
  if (size > SIZE_MAX - ARENA_ALIGN)
    return NULL;
  size = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
  if (size == 0)
    size = ARENA_ALIGN;
  if ((size_t)(a->end - a->cur) < size || !a->cur) {
    if (!arena_grow(a, size))
      return NULL;
  }
  void *p = a->cur;
  a->cur += size;
  return p;
}

void *arena_calloc(arena *a, size_t n, size_t size) {
  if (size && n > SIZE_MAX / size)
    return NULL;
  void *p = arena_alloc(a, n * size);
  if (p)
    memset(p, 0, n * size);
  return p;
}

char *arena_strndup(arena *a, const char *s, size_t n) {
  char *p = arena_alloc(a, n + 1);
  if (p) {
    memcpy(p, s, n);
    p[n] = '\0';
  }
  return p;
}

void arena_destroy(arena *a) {
  arena_chunk *c = a->head;
  while (c) {
    arena_chunk *next = c->next;
    vmem__free(&a->alloc, c);
    c = next;
  }
  a->head = NULL;
  a->cur = a->end = NULL;
}

arena_mark arena_save(const arena *a) {
  arena_mark m = {a->head, a->cur, a->end};
  return m;
}

void arena_restore(arena *a, arena_mark m) {
  while (a->head && a->head != m.head) {
    arena_chunk *next = a->head->next;
    vmem__free(&a->alloc, a->head);
    a->head = next;
  }
  a->cur = m.cur;
  a->end = m.end;
}

/* Moves every chunk of `from` into `into` (freed with it); `from` is left
 * empty. into's current chunk stays current. */
void arena_adopt(arena *into, arena *from) {
  if (!from->head)
    return;
  arena_chunk *tail = from->head;
  while (tail->next)
    tail = tail->next;
  if (into->head) {
    tail->next = into->head->next;
    into->head->next = from->head;
  } else {
    into->head = from->head;
    into->cur = from->cur;
    into->end = from->end;
  }
  from->head = NULL;
  from->cur = from->end = NULL;
}
