/*
 * shape.h — internal shape and layout structures (module prefix: shape_,
 * layout_, tiling_). The public API sees only the opaque vmem_shape.
 */
#ifndef VMEM_SHAPE_H
#define VMEM_SHAPE_H

#include "../base/base.h"

/* A tile dimension of TILE_COMBINE is XLA's `*` (combine with the next
 * minor dimension). */
#define TILE_COMBINE (-1)

typedef struct tile {
  size_t rank;
  int64_t *dims;
} tile;

/* Layout fields in XLA's print order: D T L # * E S SC P M. Fields that do
 * not affect size but must round-trip (D, SC) are kept as raw text. */
typedef struct layout {
  bool present;
  size_t rank;
  int64_t *minor_to_major;
  const char *dim_level; /* inside D(...), or NULL */
  size_t ntiles;
  tile *tiles;
  int64_t tail_align;          /* L(n); 1 when absent */
  int index_type;              /* #(type) as vmem_dtype; -1 when absent */
  int pointer_type;            /* *(type); -1 when absent */
  int64_t elem_bits;           /* E(n); 0 when absent */
  int64_t memory_space;        /* S(n); 0 when absent */
  const char *split;           /* inside SC(...), or NULL */
  struct vmem_shape *physical; /* P(shape), or NULL */
  int64_t dyn_prefix;          /* M(n); 0 when absent */
} layout;

enum { DIM_STATIC = 0, DIM_BOUNDED = 1, DIM_UNBOUNDED = 2 };

struct vmem_shape {
  arena *owner;  /* set on a root shape that owns its arena, else NULL */
  size_t offset; /* byte offset of the shape in the parsed text */
  bool tuple;
  size_t count; /* tuple elements */
  struct vmem_shape **elems;
  vmem_dtype dtype;
  size_t rank;
  int64_t *dims;      /* the bound for <=N; 0 for ? */
  uint8_t *dyn;       /* DIM_* per dimension */
  size_t *dim_offset; /* byte offset of each dimension in the text */
  layout lay;
};

/* Parses one shape starting at *pos (whitespace and comments skipped
 * before it); advances *pos past it. Nodes come from `a`. */
vmem_shape *shape_parse_at(arena *a, const char *text, size_t len, size_t *pos, vmem_error *err);

/* Deep copy into arena `a`. */
vmem_shape *shape_clone(arena *a, const vmem_shape *s);

/* Prints into a strbuf. */
void shape_print_sb(strbuf *sb, const vmem_shape *s);
void layout_print_sb(strbuf *sb, const vmem_shape *s);

/* The minor_to_major entry i (the i-th most minor dimension), using the
 * default major-to-minor order when the shape has no layout. */
size_t shape_minor(const vmem_shape *s, size_t i);

/* ArraySize / ByteSizeOfElements for one array shape. */
vmem_status shape_array_size(const vmem_shape *s, vmem_size *out, vmem_error *err);

/* The largest chunk of an array whose layout splits it (SC(d:i1,i2,...):
 * dimension d cut at those indices), sized as ArraySize sizes the array;
 * false (and *out untouched) without a split config, or one that does not
 * read as a dimension of the shape and increasing indices inside it. */
bool shape_split_chunk_size(const vmem_shape *s, vmem_size *out);

/* Fills default TPU tiling into an array shape without tiles (in place;
 * allocations from `a`). */
vmem_status tiling_apply_default(arena *a, vmem_shape *s, const vmem_target *t, vmem_error *err);
/* The same; `internal` for buffers a kernel allocates itself (scratch). */
vmem_status tiling_apply(arena *a, vmem_shape *s, const vmem_target *t, bool internal, vmem_error *err);

bool dtype_is_array(vmem_dtype t);

/* The pieces of the default tiling, for code that sizes many blocks
 * without building shapes (src/tune/): the bit width tiling counts for a
 * type, and the rows of the second-minor tile for an extent R. */
int tiling_storage_bits(vmem_dtype t);
int64_t tiling_rows_for(uint64_t R, int bits, const vmem_target *t, bool rank1, bool internal);

#endif
