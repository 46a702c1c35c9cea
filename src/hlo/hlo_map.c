/*
 * hlo_map.c — a hash map from name views to pointers (FNV-1a, linear
 * probing), for resolving operand and computation names while parsing.
 */
#include <string.h>

#include "hlo.h"

static uint64_t hash(sv k) {
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < k.len; i++)
    h = (h ^ (unsigned char)k.ptr[i]) * 1099511628211ULL;
  return h;
}

bool sv_eq(sv a, const char *s, size_t n) { return a.len == n && memcmp(a.ptr, s, n) == 0; }

sv sv_unquote(sv v) {
  if (v.len >= 2 && v.ptr[0] == '"' && v.ptr[v.len - 1] == '"') {
    v.ptr++;
    v.len -= 2;
  }
  return v;
}

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

static struct hlo_map_slot *find(struct hlo_map_slot *slots, size_t cap, sv key) {
  size_t i = (size_t)hash(key) & (cap - 1);
  while (slots[i].val && !(slots[i].key.len == key.len && memcmp(slots[i].key.ptr, key.ptr, key.len) == 0))
    i = (i + 1) & (cap - 1);
  return &slots[i];
}

static bool grow(hlo_map *m) {
  size_t cap = m->cap * 2;
  struct hlo_map_slot *s = vmem__alloc(m->alloc, cap * sizeof *s);
  if (!s)
    return false;
  memset(s, 0, cap * sizeof *s);
  for (size_t i = 0; i < m->cap; i++)
    if (m->slots[i].val)
      *find(s, cap, m->slots[i].key) = m->slots[i];
  vmem__free(m->alloc, m->slots);
  m->slots = s;
  m->cap = cap;
  return true;
}

void *hlo_map_put(hlo_map *m, sv key, void *val, bool *nomem) {
  if ((m->n + 1) * 2 > m->cap && !grow(m)) {
    *nomem = true;
    return NULL;
  }
  struct hlo_map_slot *s = find(m->slots, m->cap, key);
  if (s->val)
    return s->val;
  s->key = key;
  s->val = val;
  m->n++;
  return NULL;
}

void *hlo_map_get(const hlo_map *m, sv key) {
  if (!m->slots)
    return NULL;
  return find(m->slots, m->cap, key)->val;
}

void hlo_map_free(hlo_map *m) {
  vmem__free(m->alloc, m->slots);
  m->slots = NULL;
}
