/*
 * shape_size.c — exact byte sizes by XLA's rules.
 *
 * unpadded (ByteSizeOfElements): product of the dimensions times the byte
 *   width, or ceil(elements * E / 8) when the layout sets E(bits).
 * padded (ShapeUtil::ArraySize): with no tiles, the unpadded size. Else only
 *   the first tile pads: the i-th most-minor dimension is rounded up to the
 *   tile's i-th minor extent, a tile dimension beyond the shape's rank counts
 *   the missing dimension as 1, dimensions beyond the tile's rank are not
 *   padded; then the element count is rounded up to L(n); then E(bits) or
 *   the byte width. Sub-tiles are assumed to add no padding (XLA's comment).
 * Dynamic dimensions count at their bound; `?` has no size.
 */
#include <stdlib.h>

#include "shape.h"

static vmem_status overflow(const vmem_shape *s, vmem_error *err) {
  err_set(err, VMEM_ERR_OVERFLOW, s->offset, "the size of this shape does not fit in 64 bits");
  return VMEM_ERR_OVERFLOW;
}

/* Element count -> bytes, honouring E(bits). */
static bool elements_to_bytes(const vmem_shape *s, uint64_t n, uint64_t *out) {
  if (s->lay.elem_bits) {
    uint64_t bits;
    if (!ck_mul(n, (uint64_t)s->lay.elem_bits, &bits))
      return false;
    *out = bits / 8 + (bits % 8 != 0);
    return true;
  }
  return ck_mul(n, (uint64_t)vmem_dtype_bytes(s->dtype), out);
}

/* The padded element count under the first tile. */
static bool tiled_elements(const vmem_shape *s, uint64_t *out) {
  const tile *t = &s->lay.tiles[0];
  uint64_t n = 1;
  for (size_t i = 0; i < t->rank; i++) {
    uint64_t size = i < s->rank ? (uint64_t)s->dims[shape_minor(s, i)] : 1;
    int64_t td = t->dims[t->rank - 1 - i];
    /* `*` combines with the next minor dimension: no padding of its own. */
    if (td != TILE_COMBINE && !ck_round_up(size, (uint64_t)td, &size))
      return false;
    if (!ck_mul(n, size, &n))
      return false;
  }
  for (size_t i = t->rank; i < s->rank; i++)
    if (!ck_mul(n, (uint64_t)s->dims[shape_minor(s, i)], &n))
      return false;
  if (s->lay.tail_align > 1 && !ck_round_up(n, (uint64_t)s->lay.tail_align, &n))
    return false;
  *out = n;
  return true;
}

vmem_status shape_array_size(const vmem_shape *s, vmem_size *out, vmem_error *err) {
  out->bytes = out->unpadded_bytes = 0;
  if (s->dtype == VMEM_TOKEN)
    return VMEM_OK;
  if (s->dtype == VMEM_OPAQUE) {
    err_set(err, VMEM_ERR_UNSUPPORTED, s->offset, "an opaque value has no array size");
    return VMEM_ERR_UNSUPPORTED;
  }
  uint64_t n = 1;
  for (size_t i = 0; i < s->rank; i++) {
    if (s->dyn[i] == DIM_UNBOUNDED) {
      err_set(err, VMEM_ERR_UNSUPPORTED, s->dim_offset[i],
              "dimension %zu is unbounded (?): give a bound as <=N to size it", i);
      return VMEM_ERR_UNSUPPORTED;
    }
    if (!ck_mul(n, (uint64_t)s->dims[i], &n)) {
      err_set(err, VMEM_ERR_OVERFLOW, s->dim_offset[i], "the element count overflows 64 bits at dimension %zu", i);
      return VMEM_ERR_OVERFLOW;
    }
  }
  if (!elements_to_bytes(s, n, &out->unpadded_bytes) || out->unpadded_bytes > (uint64_t)INT64_MAX)
    return overflow(s, err);
  if (s->lay.ntiles == 0) {
    out->bytes = out->unpadded_bytes;
    return VMEM_OK;
  }
  uint64_t padded;
  if (!tiled_elements(s, &padded) || !elements_to_bytes(s, padded, &out->bytes))
    return overflow(s, err);
  /* XLA keeps sizes in int64_t: a size above INT64_MAX is an overflow too. */
  if (out->bytes > (uint64_t)INT64_MAX)
    return overflow(s, err);
  return VMEM_OK;
}

/* split ::= int ':' int (',' int)* */
bool shape_split_chunk_size(const vmem_shape *s, vmem_size *out) {
  if (!s || s->tuple || !s->lay.present || !s->lay.split)
    return false;
  const char *p = s->lay.split;
  char *end;
  long long d = strtoll(p, &end, 10);
  if (end == p || *end != ':' || d < 0 || (size_t)d >= s->rank)
    return false;
  int64_t extent = s->dims[d], prev = 0, most = 0;
  for (p = end + 1;; p = end + 1) {
    long long at = strtoll(p, &end, 10);
    if (end == p || at <= prev || at >= extent)
      return false;
    most = at - prev > most ? at - prev : most;
    prev = at;
    if (*end != ',')
      break;
  }
  if (*end != '\0')
    return false;
  most = extent - prev > most ? extent - prev : most;
  int64_t dims[64];
  if (s->rank > sizeof dims / sizeof *dims)
    return false;
  for (size_t i = 0; i < s->rank; i++)
    dims[i] = s->dims[i];
  dims[d] = most;
  vmem_shape chunk = *s; /* the same layout over the chunk's extent */
  chunk.dims = dims;
  vmem_error err;
  return shape_array_size(&chunk, out, &err) == VMEM_OK;
}

vmem_status vmem_shape_size(const vmem_shape *s, vmem_size *out, vmem_error *err) {
  err_clear(err);
  if (!s || !out) {
    err_set(err, VMEM_ERR_ARGUMENT, 0, "no shape");
    return VMEM_ERR_ARGUMENT;
  }
  if (!s->tuple)
    return shape_array_size(s, out, err);
  out->bytes = out->unpadded_bytes = 0;
  for (size_t i = 0; i < s->count; i++) {
    vmem_size e;
    vmem_status st = vmem_shape_size(s->elems[i], &e, err);
    if (st != VMEM_OK)
      return st;
    if (!ck_add(out->bytes, e.bytes, &out->bytes) ||
        !ck_add(out->unpadded_bytes, e.unpadded_bytes, &out->unpadded_bytes) || out->bytes > (uint64_t)INT64_MAX)
      return overflow(s, err);
  }
  return VMEM_OK;
}

static vmem_status apply_all(arena *a, vmem_shape *s, const vmem_target *t, vmem_error *err) {
  if (!s->tuple)
    return tiling_apply_default(a, s, t, err);
  for (size_t i = 0; i < s->count; i++) {
    vmem_status st = apply_all(a, s->elems[i], t, err);
    if (st != VMEM_OK)
      return st;
  }
  return VMEM_OK;
}

vmem_shape *vmem_shape_with_tpu_layout(const vmem_shape *s, const vmem_target *t, const vmem_allocator *alloc,
                                       vmem_error *err) {
  err_clear(err);
  if (!s || !t) {
    err_set(err, VMEM_ERR_ARGUMENT, 0, "no shape or no target");
    return NULL;
  }
  arena tmp;
  /* One array with a tiled layout takes under 512 bytes of nodes. */
  arena_init_sized(&tmp, alloc, 1024);
  arena *owner = arena_alloc(&tmp, sizeof *owner);
  vmem_shape *c = NULL;
  if (owner) {
    *owner = tmp;
    c = shape_clone(owner, s);
    if (!c)
      err_set(err, VMEM_ERR_NOMEM, 0, "out of memory");
    else if (apply_all(owner, c, t, err) != VMEM_OK)
      c = NULL;
    tmp = *owner;
  } else {
    err_set(err, VMEM_ERR_NOMEM, 0, "out of memory");
  }
  if (!c) {
    arena_destroy(&tmp);
    return NULL;
  }
  c->owner = owner;
  return c;
}
