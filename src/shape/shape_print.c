/*
 * shape_print.c — canonical XLA printing of shapes (the inverse of
 * shape_parse.c), deep copies, and the public accessors.
 */
#include <inttypes.h>
#include <string.h>

#include "shape.h"

static void print_i64_list(strbuf *sb, const int64_t *v, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (i)
      sb_putn(sb, ",", 1);
    if (v[i] == TILE_COMBINE)
      sb_putn(sb, "*", 1);
    else
      sb_printf(sb, "%" PRId64, v[i]);
  }
}

void layout_print_sb(strbuf *sb, const vmem_shape *s) {
  const layout *l = &s->lay;
  if (s->tuple || !l->present)
    return;
  sb_putn(sb, "{", 1);
  print_i64_list(sb, l->minor_to_major, l->rank);
  bool colon = l->dim_level || l->ntiles || l->tail_align != 1 || l->index_type >= 0 || l->pointer_type >= 0 ||
               l->elem_bits || l->memory_space || l->split || l->physical || l->dyn_prefix;
  if (colon)
    sb_putn(sb, ":", 1);
  if (l->dim_level) { /* raw text of any length: sb_printf is for short fields */
    sb_puts(sb, "D(");
    sb_puts(sb, l->dim_level);
    sb_putn(sb, ")", 1);
  }
  if (l->ntiles)
    sb_putn(sb, "T", 1);
  for (size_t i = 0; i < l->ntiles; i++) {
    sb_putn(sb, "(", 1);
    print_i64_list(sb, l->tiles[i].dims, l->tiles[i].rank);
    sb_putn(sb, ")", 1);
  }
  if (l->tail_align != 1)
    sb_printf(sb, "L(%" PRId64 ")", l->tail_align);
  if (l->index_type >= 0)
    sb_printf(sb, "#(%s)", vmem_dtype_name((vmem_dtype)l->index_type));
  if (l->pointer_type >= 0)
    sb_printf(sb, "*(%s)", vmem_dtype_name((vmem_dtype)l->pointer_type));
  if (l->elem_bits)
    sb_printf(sb, "E(%" PRId64 ")", l->elem_bits);
  if (l->memory_space)
    sb_printf(sb, "S(%" PRId64 ")", l->memory_space);
  if (l->split) {
    sb_puts(sb, "SC(");
    sb_puts(sb, l->split);
    sb_putn(sb, ")", 1);
  }
  if (l->physical) {
    sb_puts(sb, "P(");
    shape_print_sb(sb, l->physical);
    sb_putn(sb, ")", 1);
  }
  if (l->dyn_prefix)
    sb_printf(sb, "M(%" PRId64 ")", l->dyn_prefix);
  sb_putn(sb, "}", 1);
}

void shape_print_sb(strbuf *sb, const vmem_shape *s) {
  if (s->tuple) {
    sb_putn(sb, "(", 1);
    for (size_t i = 0; i < s->count; i++) {
      if (i)
        sb_putn(sb, ", ", 2);
      shape_print_sb(sb, s->elems[i]);
    }
    sb_putn(sb, ")", 1);
    return;
  }
  sb_puts(sb, vmem_dtype_name(s->dtype));
  sb_putn(sb, "[", 1);
  for (size_t i = 0; i < s->rank; i++) {
    if (i)
      sb_putn(sb, ",", 1);
    if (s->dyn[i] == DIM_UNBOUNDED)
      sb_putn(sb, "?", 1);
    else
      sb_printf(sb, "%s%" PRId64, s->dyn[i] == DIM_BOUNDED ? "<=" : "", s->dims[i]);
  }
  sb_putn(sb, "]", 1);
  layout_print_sb(sb, s);
}

size_t vmem_shape_print(const vmem_shape *s, char *buf, size_t cap) {
  strbuf sb;
  sb_init(&sb, buf, cap);
  if (s)
    shape_print_sb(&sb, s);
  return sb.len;
}

size_t vmem_shape_print_layout(const vmem_shape *s, char *buf, size_t cap) {
  strbuf sb;
  sb_init(&sb, buf, cap);
  if (s)
    layout_print_sb(&sb, s);
  return sb.len;
}

static void *dup(arena *a, const void *p, size_t n) {
  void *q = arena_alloc(a, n ? n : 1);
  if (q && n)
    memcpy(q, p, n);
  return q;
}

vmem_shape *shape_clone(arena *a, const vmem_shape *s) {
  vmem_shape *c = dup(a, s, sizeof *s);
  if (!c)
    return NULL;
  c->owner = NULL;
  if (s->tuple) {
    c->elems = arena_alloc(a, (s->count ? s->count : 1) * sizeof *c->elems);
    if (!c->elems)
      return NULL;
    for (size_t i = 0; i < s->count; i++)
      if (!(c->elems[i] = shape_clone(a, s->elems[i])))
        return NULL;
    return c;
  }
  c->dims = dup(a, s->dims, s->rank * sizeof *s->dims);
  c->dyn = dup(a, s->dyn, s->rank);
  c->dim_offset = dup(a, s->dim_offset, s->rank * sizeof *s->dim_offset);
  c->lay.minor_to_major = dup(a, s->lay.minor_to_major, s->lay.rank * sizeof(int64_t));
  c->lay.tiles = dup(a, s->lay.tiles, s->lay.ntiles * sizeof(tile));
  if (!c->dims || !c->dyn || !c->dim_offset || !c->lay.minor_to_major || !c->lay.tiles)
    return NULL;
  for (size_t i = 0; i < s->lay.ntiles; i++) {
    c->lay.tiles[i].dims = dup(a, s->lay.tiles[i].dims, s->lay.tiles[i].rank * sizeof(int64_t));
    if (!c->lay.tiles[i].dims)
      return NULL;
  }
  if (s->lay.physical && !(c->lay.physical = shape_clone(a, s->lay.physical)))
    return NULL;
  return c;
}

size_t shape_minor(const vmem_shape *s, size_t i) {
  if (s->lay.present && i < s->lay.rank)
    return (size_t)s->lay.minor_to_major[i];
  return s->rank - 1 - i;
}

bool vmem_shape_is_tuple(const vmem_shape *s) { return s && s->tuple; }
size_t vmem_shape_tuple_count(const vmem_shape *s) { return s && s->tuple ? s->count : 0; }
const vmem_shape *vmem_shape_tuple_at(const vmem_shape *s, size_t i) {
  return s && s->tuple && i < s->count ? s->elems[i] : NULL;
}
vmem_dtype vmem_shape_dtype(const vmem_shape *s) { return s ? s->dtype : 0; }
size_t vmem_shape_rank(const vmem_shape *s) { return s && !s->tuple ? s->rank : 0; }
int64_t vmem_shape_dim(const vmem_shape *s, size_t i) {
  if (!s)
    return 0;
  if (s->tuple || i >= s->rank)
    return 0;
  return s->dyn[i] == DIM_UNBOUNDED ? -1 : s->dims[i];
}
bool vmem_shape_dim_is_dynamic(const vmem_shape *s, size_t i) {
  if (!s)
    return false;
  return !s->tuple && i < s->rank && s->dyn[i] != DIM_STATIC;
}
bool vmem_shape_has_layout(const vmem_shape *s) { return s && s->lay.present; }
bool vmem_shape_has_tiles(const vmem_shape *s) {
  if (!s)
    return false;
  if (!s->tuple)
    return s->lay.ntiles > 0 || !dtype_is_array(s->dtype);
  for (size_t i = 0; i < s->count; i++)
    if (!vmem_shape_has_tiles(s->elems[i]))
      return false;
  return true;
}
int64_t vmem_shape_memory_space(const vmem_shape *s) { return s ? s->lay.memory_space : 0; }
