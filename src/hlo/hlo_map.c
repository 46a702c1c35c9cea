/*
 * hlo_map.c — a hash map from name views to pointers (FNV-1a, linear
 * probing), for resolving operand and computation names while parsing.
 */
#include <string.h>

#include "hlo.h"

/* A word-at-a-time multiply-xorshift hash: names and shape texts are
 * 10-60 bytes, and a byte-at-a-time hash was a quarter of the parse. */
uint64_t hlo_hash(sv k) {
  const unsigned char *p = (const unsigned char *)k.ptr;
  size_t n = k.len;
  uint64_t h = 0x9E3779B97F4A7C15ULL ^ n, v = 0;
  if (n >= 8) {
    for (size_t i = 0; i + 8 < n; i += 8) {
      memcpy(&v, p + i, 8);
      h = (h ^ v) * 0xBF58476D1CE4E5B9ULL;
      h ^= h >> 31;
    }
    memcpy(&v, p + n - 8, 8); /* the last eight, overlapping: no byte-sized tail */
  } else {
    for (size_t i = 0; i < n; i++)
      v |= (uint64_t)p[i] << (8 * i);
  }
  h = (h ^ v) * 0x94D049BB133111EBULL;
  h ^= h >> 29;
  h *= 0xBF58476D1CE4E5B9ULL;
  return h ^ (h >> 32);
}

sv sv_unquote(sv v) {
  if (v.len >= 2 && v.ptr[0] == '"' && v.ptr[v.len - 1] == '"') {
    v.ptr++;
    v.len -= 2;
  }
  return v;
}

static sv key_of(const void *obj) { return *(const sv *)obj; }

bool hlo_map_init(hlo_map *m, const vmem_allocator *alloc, size_t hint) {
  size_t cap = 16;
  while (cap < hint * 2)
    cap *= 2;
  m->alloc = alloc;
  m->cap = cap;
  m->n = 0;
  m->slots = vmem__alloc(alloc, cap * sizeof *m->slots);
  if (!m->slots)
    return false;
  memset(m->slots, 0, cap * sizeof *m->slots);
  return true;
}

/* Slots keep the hash beside the pointer, so a probe that misses does not
 * touch the object. */
static hlo_slot *find(hlo_slot *slots, size_t cap, sv key, uint64_t h) {
  size_t i = (size_t)h & (cap - 1);
  for (;; i = (i + 1) & (cap - 1)) {
    if (!slots[i].val)
      return &slots[i];
    if (slots[i].hash != h)
      continue;
    sv k = key_of(slots[i].val);
    if (k.len == key.len && hlo_bytes_eq(k.ptr, key.ptr, key.len))
      return &slots[i];
  }
}

static bool grow(hlo_map *m) {
  size_t cap = m->cap * 2;
  hlo_slot *s = vmem__alloc(m->alloc, cap * sizeof *s);
  if (!s)
    return false;
  memset(s, 0, cap * sizeof *s);
  for (size_t i = 0; i < m->cap; i++)
    if (m->slots[i].val) {
      size_t j = (size_t)m->slots[i].hash & (cap - 1);
      while (s[j].val)
        j = (j + 1) & (cap - 1);
      s[j] = m->slots[i];
    }
  vmem__free(m->alloc, m->slots);
  m->slots = s;
  m->cap = cap;
  return true;
}

void *hlo_map_put(hlo_map *m, void *val, bool *nomem) {
  return hlo_map_put_hashed(m, val, hlo_hash(key_of(val)), nomem);
}

void *hlo_map_put_hashed(hlo_map *m, void *val, uint64_t h, bool *nomem) {
  if ((m->n + 1) * 2 > m->cap && !grow(m)) {
    *nomem = true;
    return NULL;
  }
  sv key = key_of(val);
  hlo_slot *s = find(m->slots, m->cap, key, h);
  if (s->val)
    return s->val;
  s->val = val;
  s->hash = h;
  m->n++;
  return NULL;
}

void *hlo_map_get(const hlo_map *m, sv key) { return hlo_map_get_hashed(m, key, hlo_hash(key)); }

void *hlo_map_get_hashed(const hlo_map *m, sv key, uint64_t h) {
  if (!m->slots)
    return NULL;
  return find(m->slots, m->cap, key, h)->val;
}

void hlo_map_free(hlo_map *m) {
  vmem__free(m->alloc, m->slots);
  m->slots = NULL;
}

/* ---- hlo_index: names -> positions in an array the caller owns -------- */

/* A slot packs the high 32 bits of the hash with position + 1 (0 = empty):
 * 8 bytes a slot, half of an hlo_map's, for the name table of a
 * computation that may hold hundreds of thousands of instructions. */
bool hlo_index_init(hlo_index *x, const vmem_allocator *alloc, size_t hint) {
  size_t cap = 64;
  while (cap < hint * 2)
    cap *= 2;
  x->alloc = alloc;
  x->cap = cap;
  x->n = 0;
  x->slots = vmem__alloc(alloc, cap * sizeof *x->slots);
  if (x->slots)
    memset(x->slots, 0, cap * sizeof *x->slots);
  return x->slots != NULL;
}

void hlo_index_free(hlo_index *x) {
  vmem__free(x->alloc, x->slots);
  x->slots = NULL;
}

void hlo_index_clear(hlo_index *x) {
  if (x->cap > 1024) {
    hlo_index_free(x);
  } else if (x->slots) {
    memset(x->slots, 0, x->cap * sizeof *x->slots);
    x->n = 0;
  }
}

static uint64_t *index_find(uint64_t *slots, size_t cap, void *const *items, sv key, uint64_t h) {
  uint64_t tag = h & 0xFFFFFFFF00000000ULL;
  for (size_t i = (size_t)(h >> 32) & (cap - 1);; i = (i + 1) & (cap - 1)) {
    if (!slots[i])
      return &slots[i];
    if ((slots[i] & 0xFFFFFFFF00000000ULL) != tag)
      continue;
    sv k = key_of(items[(slots[i] & 0xFFFFFFFFu) - 1]);
    if (k.len == key.len && hlo_bytes_eq(k.ptr, key.ptr, key.len))
      return &slots[i];
  }
}

void *hlo_index_get(const hlo_index *x, void *const *items, sv key, uint64_t h) {
  uint64_t s = *index_find(x->slots, x->cap, items, key, h);
  return s ? items[(s & 0xFFFFFFFFu) - 1] : NULL;
}

static bool index_grow(hlo_index *x) {
  size_t cap = x->cap * 2;
  uint64_t *s = vmem__alloc(x->alloc, cap * sizeof *s);
  if (!s)
    return false;
  memset(s, 0, cap * sizeof *s);
  /* Reinsert by the stored hash bits: the low bits of the full hash are
   * gone, so probe from the tag's own bits, which are as good a spread. */
  for (size_t i = 0; i < x->cap; i++)
    if (x->slots[i]) {
      size_t j = (size_t)(x->slots[i] >> 32) & (cap - 1);
      while (s[j])
        j = (j + 1) & (cap - 1);
      s[j] = x->slots[i];
    }
  vmem__free(x->alloc, x->slots);
  x->slots = s;
  x->cap = cap;
  return true;
}

void *hlo_index_put(hlo_index *x, void *const *items, size_t pos, uint64_t h, bool *nomem) {
  if (pos >= 0xFFFFFFFFu || ((x->n + 1) * 2 > x->cap && !index_grow(x))) {
    *nomem = true;
    return NULL;
  }
  uint64_t *s = index_find(x->slots, x->cap, items, key_of(items[pos]), h);
  if (*s)
    return items[(*s & 0xFFFFFFFFu) - 1];
  *s = (h & 0xFFFFFFFF00000000ULL) | (uint64_t)(pos + 1);
  x->n++;
  return NULL;
}
