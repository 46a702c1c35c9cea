/*
 * tiling.c — the default TPU layout of an array that carries no tiles.
 *
 * The rule (docs/layouts.md has the full derivation and sources): for an
 * element width b, packing p = 32/b (pred counts as 8-bit, since TPU HLO
 * shows pred tiled like s8), sublanes S (8; 16 on TPU8t), and the target's
 * tiling facts (tile_min_two_packs, large_tiling_narrow, _scratch16):
 *   min_rows  = p, doubled before v4;   tiling_rows = max(S, p)
 *   large     = the row count of the width's "large" tiling (table below)
 *   rows      = large when the second-minor dimension R is a multiple of it
 *               (and R >= large); else min_rows doubled while < min(R,
 *               tiling_rows)
 *   rank >= 2: T(rows,128), plus the sub-tile (p,1) when b < 32
 *   rank 1:    R = ceil(N/128) and T(rows*128), plus (128)(p,1) when b < 32
 *   rank 0:    T(4096/b) — one 512-byte granule (observed: s32 T(128),
 *              bf16 T(256), s8 and pred T(512))
 *   b < 8:     E(b) is added: sub-byte elements are stored packed.
 * This is Mosaic's getTilingFactor with JAX's statement of which "large"
 * tilings XLA uses by default; it reproduces every default layout seen in
 * the TPU dumps of ../shared/corpus/hlo/.
 */
#include <string.h>

#include "shape.h"

typedef struct tiling_rule {
  int bits;           /* element width this row applies to */
  vmem_fact_id large; /* the target fact that turns the large tiling on; VMEM_FACT_COUNT: always on */
  int large_sublanes; /* large rows = large_sublanes x S */
  const char *source;
} tiling_rule;

/* One row per element width. Widths above 32 bits have no public fact and
 * are tiled like 32-bit values (stated in docs/layouts.md). */
static const tiling_rule rules[] = {
    {32, VMEM_FACT_COUNT, 1, "Mosaic getTilingFactor; XLA dumps f32 T(8,128)"},
    {16, VMEM_FACT_LARGE_TILING_NARROW, 2, "JAX tpu_info get_sublane_tiling: large x16 tiling from TPU7x"},
    {8, VMEM_FACT_LARGE_TILING_NARROW, 4,
     "XLA tests and oom_debugging.md show T(8,128)(4,1); JAX: large from TPU7x (flag-dependent)"},
    {4, VMEM_FACT_COUNT, 8, "XLA shape_util_test Int4: T(64,128)(8,1) E(4)"},
    {2, VMEM_FACT_COUNT, 16, "Mosaic getTilingFactor: 2-bit large tiling 16 x sublanes"},
};

static int storage_bits(vmem_dtype t);
static int64_t tile_rows(uint64_t R, int bits, const vmem_target *t, int sublanes, bool rank1, bool internal);

int tiling_storage_bits(vmem_dtype t) { return storage_bits(t); }

int64_t tiling_rows_for(uint64_t R, int bits, const vmem_target *t, bool rank1, bool internal) {
  int sublanes = (int)vmem_target_u64(t, VMEM_FACT_VREG_SUBLANES);
  return tile_rows(R, bits, t, sublanes > 0 ? sublanes : 8, rank1, internal);
}

static int storage_bits(vmem_dtype t) {
  int b = vmem_dtype_bits(t);
  if (t == VMEM_PRED)
    return 8;
  return b > 32 ? 32 : b;
}

static const tiling_rule *rule_for(int bits) {
  for (size_t i = 0; i < sizeof rules / sizeof *rules; i++)
    if (rules[i].bits == bits)
      return &rules[i];
  return &rules[0];
}

/* Rows of the second-minor tile for a second-minor extent R. Buffers a
 * kernel allocates itself (scratch) get Mosaic's 16-bit large tiling from
 * v6: "we can't do this for kernel arguments, because the layout of those
 * is controlled by XLA" (infer_memref_layout.cc). */
static bool large_tiling(const tiling_rule *r, const vmem_target *t, bool internal) {
  if (internal && r->bits == 16 && vmem_target_u64(t, VMEM_FACT_LARGE_TILING_SCRATCH16))
    return true;
  return r->large == VMEM_FACT_COUNT || vmem_target_u64(t, r->large) != 0;
}

static int64_t tile_rows(uint64_t R, int bits, const vmem_target *t, int sublanes, bool rank1, bool internal) {
  int64_t packing = 32 / bits;
  int64_t min_rows = packing * (vmem_target_u64(t, VMEM_FACT_TILE_MIN_TWO_PACKS) ? 2 : 1);
  int64_t tiling_rows = sublanes > packing ? sublanes : packing;
  const tiling_rule *r = rule_for(bits);
  int64_t large = tiling_rows;
  if (!rank1 && large_tiling(r, t, internal))
    large = (int64_t)r->large_sublanes * sublanes;
  if (R >= (uint64_t)large && R % (uint64_t)large == 0)
    return large;
  int64_t rows = min_rows;
  uint64_t cap = R < (uint64_t)tiling_rows ? R : (uint64_t)tiling_rows;
  while ((uint64_t)rows < cap)
    rows *= 2;
  return rows;
}

static bool set_tiles(arena *a, layout *l, const int64_t (*dims)[2], const size_t *ranks, size_t n) {
  l->tiles = arena_calloc(a, n, sizeof *l->tiles);
  if (!l->tiles)
    return false;
  for (size_t i = 0; i < n; i++) {
    l->tiles[i].rank = ranks[i];
    l->tiles[i].dims = arena_alloc(a, 2 * sizeof(int64_t));
    if (!l->tiles[i].dims)
      return false;
    memcpy(l->tiles[i].dims, dims[i], ranks[i] * sizeof(int64_t));
  }
  l->ntiles = n;
  return true;
}

static bool ensure_minor_to_major(arena *a, vmem_shape *s) {
  layout *l = &s->lay;
  if (l->present)
    return true;
  l->present = true;
  l->rank = s->rank;
  l->tail_align = 1;
  l->index_type = l->pointer_type = -1;
  l->minor_to_major = arena_alloc(a, (s->rank ? s->rank : 1) * sizeof(int64_t));
  if (!l->minor_to_major)
    return false;
  for (size_t i = 0; i < s->rank; i++)
    l->minor_to_major[i] = (int64_t)(s->rank - 1 - i);
  return true;
}

vmem_status tiling_apply_default(arena *a, vmem_shape *s, const vmem_target *t, vmem_error *err) {
  return tiling_apply(a, s, t, false, err);
}

vmem_status tiling_apply(arena *a, vmem_shape *s, const vmem_target *t, bool internal, vmem_error *err) {
  if (s->tuple || !dtype_is_array(s->dtype) || s->lay.ntiles > 0)
    return VMEM_OK;
  if (!ensure_minor_to_major(a, s))
    goto nomem;
  int bits = storage_bits(s->dtype);
  int64_t packing = 32 / bits;
  int sublanes = (int)vmem_target_u64(t, VMEM_FACT_VREG_SUBLANES);
  if (sublanes <= 0)
    sublanes = 8;
  int64_t dims[3][2];
  size_t ranks[3], n = 0;
  if (s->rank == 0) {
    dims[0][0] = 4096 / bits;
    ranks[n++] = 1;
  } else if (s->rank == 1) {
    uint64_t N = (uint64_t)s->dims[0];
    uint64_t R = N / 128 + (N % 128 != 0);
    dims[n][0] = tile_rows(R, bits, t, sublanes, true, internal) * 128;
    ranks[n++] = 1;
    if (bits < 32) {
      dims[n][0] = 128;
      ranks[n++] = 1;
      dims[n][0] = packing, dims[n][1] = 1;
      ranks[n++] = 2;
    }
  } else {
    uint64_t R = (uint64_t)s->dims[shape_minor(s, 1)];
    dims[n][0] = tile_rows(R, bits, t, sublanes, false, internal), dims[n][1] = 128;
    ranks[n++] = 2;
    if (bits < 32) {
      dims[n][0] = packing, dims[n][1] = 1;
      ranks[n++] = 2;
    }
  }
  if (!set_tiles(a, &s->lay, (const int64_t(*)[2])dims, ranks, n))
    goto nomem;
  if (vmem_dtype_bits(s->dtype) < 8 && s->dtype != VMEM_PRED && !s->lay.elem_bits)
    s->lay.elem_bits = vmem_dtype_bits(s->dtype);
  return VMEM_OK;
nomem:
  err_set(err, VMEM_ERR_NOMEM, s->offset, "out of memory");
  return VMEM_ERR_NOMEM;
}
