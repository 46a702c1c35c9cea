/*
 * spec.c — a kernel from a JSON kernel spec (docs/kernel-spec.md), in the
 * terms a Pallas author writes: grid, BlockSpecs (block shape, index map,
 * memory space, Buffered(n)), scratch shapes, vmem_limit_bytes. Block
 * dimensions may be named parameters ("bm") given values in "params".
 * Errors name the JSON path ("in_specs[1].block[0]: ...").
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"

typedef struct sreader {
  vmem_kernel *k;
  vmem_error *err;
  const char *text;
  size_t len;
  json_t *root;
} sreader;

static bool fail(sreader *r, vmem_status code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* ---- where a JSON path is in the text ------------------------------------
 * jansson keeps no positions, so an error's position is found again in the
 * text, which jansson has already accepted as JSON: these skippers need not
 * validate anything. */

static size_t skip_ws(const char *s, size_t n, size_t i) {
  while (i < n && ch_is_space(s[i]))
    i++;
  return i;
}

/* i at the opening quote; returns just past the closing one. */
static size_t skip_string(const char *s, size_t n, size_t i) {
  for (i++; i < n && s[i] != '"'; i++)
    if (s[i] == '\\')
      i++;
  return i < n ? i + 1 : n;
}

/* i at a value; returns just past it. */
static size_t skip_value(const char *s, size_t n, size_t i) {
  if (i < n && s[i] == '"')
    return skip_string(s, n, i);
  if (i < n && (s[i] == '{' || s[i] == '[')) {
    size_t depth = 0;
    do {
      if (s[i] == '"') {
        i = skip_string(s, n, i);
        continue;
      }
      depth += s[i] == '{' || s[i] == '[';
      depth -= s[i] == '}' || s[i] == ']';
      i++;
    } while (i < n && depth > 0);
    return i;
  }
  while (i < n && !strchr(",}] \t\r\n", s[i]))
    i++;
  return i;
}

/* i at a value; returns where its member `key` (object) or element `idx`
 * (array, when key is NULL) starts, or SIZE_MAX. */
static size_t child(const char *s, size_t n, size_t i, const char *key, size_t klen, size_t idx) {
  if (i >= n || s[i] != (key ? '{' : '['))
    return SIZE_MAX;
  for (size_t k = 0;; k++) {
    i = skip_ws(s, n, i + 1);
    if (i >= n || s[i] == '}' || s[i] == ']')
      return SIZE_MAX;
    if (key) {
      size_t kend = skip_string(s, n, i);
      bool match = kend - i == klen + 2 && !memcmp(s + i + 1, key, klen);
      i = skip_ws(s, n, skip_ws(s, n, kend) + 1); /* past ':' */
      if (match)
        return i;
    } else if (k == idx) {
      return i;
    }
    i = skip_ws(s, n, skip_value(s, n, i));
  }
}

/* path ::= name ('.' name | '[' index ']')*, as a message starts with it;
 * the offset of the value it names, or 0. */
static size_t path_offset(const char *s, size_t n, const char *msg) {
  size_t i = skip_ws(s, n, 0);
  const char *m = msg;
  while (*m && (ch_is_alpha(*m) || *m == '_' || *m == '[')) {
    if (*m == '[') {
      char *e;
      unsigned long idx = strtoul(m + 1, &e, 10);
      if (*e != ']' || e == m + 1)
        break;
      i = child(s, n, i, NULL, 0, idx);
      m = e + 1;
    } else {
      size_t k = 0;
      while (ch_is_alpha(m[k]) || ch_is_digit(m[k]) || m[k] == '_')
        k++;
      i = child(s, n, i, m, k, 0);
      m += k;
    }
    if (i == SIZE_MAX)
      return 0;
    if (*m == '.')
      m++;
  }
  return m == msg || i >= n ? 0 : i;
}

/* The first error is kept (err_first); its position is found from the
 * JSON path the message starts with. */
static bool fail(sreader *r, vmem_status code, const char *fmt, ...) {
  if (r->err->code != VMEM_OK)
    return false;
  char msg[sizeof r->err->message];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return err_first(r->err, code, r->root ? path_offset(r->text, r->len, msg) : 0, "%s", msg);
}

/* ---- keys -------------------------------------------------------------- */

/* The edit distance of a and b, capped at 9 (enough to suggest a key). */
static size_t distance(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b), row[33];
  if (la > 32 || lb > 32)
    return 9;
  for (size_t j = 0; j <= lb; j++)
    row[j] = j;
  for (size_t i = 1; i <= la; i++) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= lb; j++) {
      size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);
      if (up + 1 < best)
        best = up + 1;
      if (row[j - 1] + 1 < best)
        best = row[j - 1] + 1;
      diag = up;
      row[j] = best;
    }
  }
  return row[lb] < 9 ? row[lb] : 9;
}

/* Every key of obj must be one of known[0..n): a misspelt "in_spec" would
 * otherwise be ignored and the error land somewhere unrelated. */
static bool known_keys(sreader *r, json_t *obj, const char *path, const char *const *known, size_t n) {
  const char *key;
  json_t *v;
  json_object_foreach(obj, key, v) {
    const char *near = NULL;
    size_t best = 4;
    for (size_t i = 0; i < n; i++) {
      if (!strcmp(key, known[i])) {
        near = key;
        break;
      }
      size_t d = distance(key, known[i]);
      if (d < best)
        best = d, near = known[i];
    }
    if (near == key)
      continue;
    const char *dot = *path ? "." : "";
    if (near)
      return fail(r, VMEM_ERR_UNKNOWN, "%s%s%s: unknown key (did you mean \"%s\"?)", path, dot, key, near);
    return fail(r, VMEM_ERR_UNKNOWN, "%s%s%s: unknown key (docs/kernel-spec.md lists them)", path, dot, key);
  }
  return true;
}

static const char *const top_keys[] = {"name",
                                       "params",
                                       "grid_axes",
                                       "grid",
                                       "dimension_semantics",
                                       "scalar_prefetch",
                                       "in_specs",
                                       "out_specs",
                                       "scratch",
                                       "input_output_aliases",
                                       "vmem_limit_bytes",
                                       "internal_scratch_in_bytes",
                                       "flops",
                                       "flops_per_step",
                                       "values",
                                       "comment"};
static const char *const operand_keys[] = {"name",      "array",        "dtype",   "block",  "shape",
                                           "index_map", "memory_space", "buffers", "comment"};
static const char *const value_keys[] = {"name", "dtype", "shape", "comment"};

/* ---- parameters and grid axes ------------------------------------------ */

static bool read_params(sreader *r) {
  vmem_kernel *k = r->k;
  json_t *params = json_object_get(r->root, "params");
  if (!params)
    return true;
  if (!json_is_object(params))
    return fail(r, VMEM_ERR_SYNTAX, "params: expected an object of name: integer");
  k->nparams = json_object_size(params);
  if (!(k->params = arena_calloc(&k->a, k->nparams ? k->nparams : 1, sizeof *k->params)))
    return fail(r, VMEM_ERR_NOMEM, "out of memory");
  const char *key;
  json_t *v;
  size_t i = 0;
  json_object_foreach(params, key, v) {
    if (!json_is_integer(v) || json_integer_value(v) <= 0)
      return fail(r, VMEM_ERR_RANGE, "params.%s: expected a positive integer", key);
    k->params[i].name = arena_strndup(&k->a, key, strlen(key));
    k->params[i++].value = (int64_t)json_integer_value(v);
  }
  return true;
}

static int param_index(const vmem_kernel *k, const char *name) {
  for (size_t i = 0; i < k->nparams; i++)
    if (!strcmp(k->params[i].name, name))
      return (int)i;
  return -1;
}

/* dim ::= integer | parameter name | null (a squeezed dimension: 1) */
static bool read_dim(sreader *r, json_t *v, const char *path, int64_t *out, int *param) {
  *param = -1;
  if (json_is_null(v)) {
    *out = 1;
    return true;
  }
  if (json_is_integer(v)) {
    *out = (int64_t)json_integer_value(v);
    return *out > 0 || fail(r, VMEM_ERR_RANGE, "%s: a dimension must be positive", path);
  }
  if (json_is_string(v)) {
    int p = param_index(r->k, json_string_value(v));
    if (p < 0)
      return fail(r, VMEM_ERR_UNKNOWN, "%s: unknown parameter '%s' (give it in \"params\")", path,
                  json_string_value(v));
    *param = p;
    *out = r->k->params[p].value;
    return true;
  }
  return fail(r, VMEM_ERR_SYNTAX, "%s: expected an integer, a parameter name or null", path);
}

static bool read_grid_axes(sreader *r) {
  vmem_kernel *k = r->k;
  json_t *axes = json_object_get(r->root, "grid_axes"), *grid = json_object_get(r->root, "grid");
  if (grid && !json_is_array(grid))
    return fail(r, VMEM_ERR_SYNTAX, "grid: expected an array of bounds");
  if (axes && !json_is_array(axes))
    return fail(r, VMEM_ERR_SYNTAX, "grid_axes: expected an array of names");
  size_t n = grid ? json_array_size(grid) : axes ? json_array_size(axes) : 0;
  if (grid && axes && json_array_size(axes) != n)
    return fail(r, VMEM_ERR_RANGE, "grid_axes names %zu axes but grid has %zu", json_array_size(axes), n);
  if (n > VMEM_KERNEL_MAX_RANK)
    return fail(r, VMEM_ERR_RANGE, "grid: more than 16 axes");
  k->grid_rank = n;
  for (size_t i = 0; i < n; i++) {
    char path[32], name[16];
    snprintf(path, sizeof path, "grid[%zu]", i);
    snprintf(name, sizeof name, "i%zu", i);
    json_t *a = axes ? json_array_get(axes, i) : NULL;
    if (a && !json_is_string(a))
      return fail(r, VMEM_ERR_SYNTAX, "grid_axes[%zu]: expected a name", i);
    const char *nm = a ? json_string_value(a) : name;
    k->grid_axis_name[i] = arena_strndup(&k->a, nm, strlen(nm));
    k->grid[i] = 0; /* derived from the arrays when not given */
    if (grid && !read_dim(r, json_array_get(grid, i), path, &k->grid[i], &k->grid_param[i]))
      return false;
  }
  json_t *ds = json_object_get(r->root, "dimension_semantics");
  for (size_t i = 0; ds && i < n && i < json_array_size(ds); i++) {
    const char *s = json_string_value(json_array_get(ds, i));
    if (!s)
      return fail(r, VMEM_ERR_SYNTAX, "dimension_semantics[%zu]: expected a string", i);
    k->semantics[i] = arena_strndup(&k->a, s, strlen(s));
  }
  return true;
}

static int axis_index(const vmem_kernel *k, const char *name) {
  for (size_t i = 0; i < k->grid_rank; i++)
    if (!strcmp(k->grid_axis_name[i], name))
      return (int)i;
  return -1;
}

/* ---- operands ---------------------------------------------------------- */

static bool read_space(sreader *r, json_t *spec, const char *path, vmem_memory_space *out) {
  json_t *v = json_object_get(spec, "memory_space");
  const char *s = v ? json_string_value(v) : "vmem";
  static const struct {
    const char *name;
    vmem_memory_space space;
  } names[] = {{"vmem", VMEM_SPACE_VMEM},
               {"any", VMEM_SPACE_ANY},
               {"hbm", VMEM_SPACE_ANY},
               {"smem", VMEM_SPACE_SMEM},
               {"semaphore", VMEM_SPACE_SEMAPHORE}};
  for (size_t i = 0; s && i < sizeof names / sizeof *names; i++)
    if (!strcmp(s, names[i].name)) {
      *out = names[i].space;
      return true;
    }
  return fail(r, VMEM_ERR_UNKNOWN, "%s.memory_space: expected vmem, any, hbm, smem or semaphore", path);
}

/* The array: "bf16[4096,4096]" (XLA syntax). */
static bool read_array(sreader *r, json_t *spec, const char *path, kernel_operand *op) {
  json_t *v = json_object_get(spec, "array");
  if (!v)
    return true;
  const char *s = json_string_value(v);
  if (!s)
    return fail(r, VMEM_ERR_SYNTAX, "%s.array: expected a shape string like \"bf16[4096,4096]\"", path);
  vmem_error e;
  size_t pos = 0;
  err_clear(&e);
  vmem_shape *a = shape_parse_at(&r->k->a, s, strlen(s), &pos, &e);
  if (!a || pos != strlen(s) || a->tuple)
    return fail(r, e.code ? e.code : VMEM_ERR_SYNTAX, "%s.array: column %zu: %s", path, e.offset + 1,
                e.code ? e.message : "expected one array shape");
  uint64_t bytes = 1;
  for (size_t i = 0; i < a->rank; i++) {
    if (a->dyn[i] != DIM_STATIC)
      return fail(r, VMEM_ERR_UNSUPPORTED, "%s.array: dynamic dimensions have no static size", path);
    if (!ck_mul(bytes, (uint64_t)a->dims[i], &bytes) || bytes > (uint64_t)INT64_MAX / 8)
      return fail(r, VMEM_ERR_OVERFLOW, "%s.array: %s holds more than 2^60 elements: no TPU array is that large", path,
                  s);
  }
  op->pub.array = op->array = a;
  return true;
}

/* The dtype: from the array, else "dtype". */
static bool read_dtype(sreader *r, json_t *spec, const char *path, const kernel_operand *op, vmem_dtype *t) {
  if (op->pub.array) {
    *t = op->pub.array->dtype;
    return true;
  }
  const char *s = json_string_value(json_object_get(spec, "dtype"));
  if (!s || !vmem_dtype_from_name(s, strlen(s), t))
    return fail(r, s ? VMEM_ERR_UNKNOWN : VMEM_ERR_SYNTAX, "%s: give \"array\" or a known \"dtype\"", path);
  return true;
}

/* block ::= '[' dim (',' dim)* ']'  (absent: the whole array) */
static bool read_block(sreader *r, json_t *spec, const char *path, kernel_operand *op, int64_t *dims, size_t *rank) {
  json_t *b = json_object_get(spec, "block");
  if (!b) {
    b = json_object_get(spec, "shape"); /* scratch */
  }
  if (!b) {
    if (!op->pub.array)
      return fail(r, VMEM_ERR_SYNTAX, "%s: give \"block\" (or \"array\" for a whole-array block)", path);
    *rank = op->pub.array->rank;
    if (*rank) /* a scalar has no dims array to copy from */
      memcpy(dims, op->pub.array->dims, *rank * sizeof *dims);
    return true;
  }
  if (!json_is_array(b) || json_array_size(b) > VMEM_KERNEL_MAX_RANK)
    return fail(r, VMEM_ERR_SYNTAX, "%s.block: expected an array of at most 16 dimensions", path);
  *rank = json_array_size(b);
  for (size_t i = 0; i < *rank; i++) {
    char p[96];
    snprintf(p, sizeof p, "%s.block[%zu]", path, i);
    if (!read_dim(r, json_array_get(b, i), p, &dims[i], &op->pub.block_param[i]))
      return false;
  }
  if (op->pub.array && op->pub.array->rank != *rank)
    return fail(r, VMEM_ERR_RANGE, "%s.block has %zu dimensions, the array %zu", path, *rank, op->pub.array->rank);
  for (size_t i = 0; op->pub.array && i < *rank; i++)
    if (dims[i] > op->pub.array->dims[i])
      return fail(r, VMEM_ERR_RANGE, "%s.block[%zu] = %lld is larger than the array's %lld", path, i,
                  (long long)dims[i], (long long)op->pub.array->dims[i]);
  return true;
}

/* index_map ::= '[' (axis name | integer | null)* ']'  (absent: all zeros) */
static bool read_index_map(sreader *r, json_t *spec, const char *path, kernel_operand *op, size_t rank) {
  json_t *m = json_object_get(spec, "index_map");
  for (size_t i = 0; i < rank; i++)
    op->pub.index_axis[i] = VMEM_INDEX_CONSTANT;
  if (!m)
    return true;
  if (!json_is_array(m) || json_array_size(m) != rank)
    return fail(r, VMEM_ERR_RANGE, "%s.index_map: expected %zu entries, one per block dimension", path, rank);
  for (size_t i = 0; i < rank; i++) {
    json_t *v = json_array_get(m, i);
    if (json_is_integer(v)) {
      op->pub.index_const[i] = (int64_t)json_integer_value(v);
      continue;
    }
    if (json_is_null(v) || (json_is_string(v) && !strcmp(json_string_value(v), "?"))) {
      op->pub.index_axis[i] = VMEM_INDEX_UNKNOWN;
      continue;
    }
    int a = json_is_string(v) ? axis_index(r->k, json_string_value(v)) : -1;
    if (a < 0)
      return fail(r, VMEM_ERR_UNKNOWN, "%s.index_map[%zu]: not a grid axis name (grid_axes), integer or null", path, i);
    op->pub.index_axis[i] = a;
  }
  return true;
}

static bool read_buffers(sreader *r, json_t *spec, const char *path, kernel_operand *op) {
  json_t *b = json_object_get(spec, "buffers");
  vmem_operand *o = &op->pub;
  if (o->space != VMEM_SPACE_VMEM || o->role == VMEM_ROLE_SCRATCH || o->role == VMEM_ROLE_SCALAR_PREFETCH) {
    o->buffers = o->role == VMEM_ROLE_SCRATCH ? 1 : 0;
    return true;
  }
  if (b) {
    if (!json_is_integer(b) || json_integer_value(b) < 1 || json_integer_value(b) > 2)
      return fail(r, VMEM_ERR_RANGE, "%s.buffers: pallas_call allows Buffered(1) or Buffered(2)", path);
    o->buffers = (int)json_integer_value(b);
    o->buffers_given = true;
  } else {
    /* Double-buffered unless the window never moves: the kernel model's
     * rule, applied to every reader's kernel (kernel.c). */
    o->buffers = 2;
  }
  return true;
}

/* The block-shape rules the Pallas lowering enforces (rank >= 2: the last
 * two dims multiples of 8 and 128 or whole; rank 1: whole, a multiple of
 * 1024, or a power of two >= 128*32/bits). */
static bool check_block_rules(sreader *r, const char *path, const kernel_operand *op, const int64_t *d, size_t rank) {
  const vmem_shape *a = op->pub.array;
  if (!a || op->pub.space != VMEM_SPACE_VMEM || rank == 0)
    return true;
  if (rank == 1) {
    int bits = vmem_dtype_bits(a->dtype);
    int64_t min = 128 * 32 / (bits ? bits : 32);
    bool pow2 = (d[0] & (d[0] - 1)) == 0;
    if (d[0] == a->dims[0] || d[0] % 1024 == 0 || (pow2 && d[0] >= min))
      return true;
    return fail(r, VMEM_ERR_RANGE,
                "%s: a 1-D block of %lld is not allowed (whole, a multiple of 1024, or a power "
                "of two >= %lld)",
                path, (long long)d[0], (long long)min);
  }
  if (d[rank - 1] != a->dims[rank - 1] && d[rank - 1] % 128 != 0)
    return fail(r, VMEM_ERR_RANGE,
                "%s: the last block dimension (%lld) must be a multiple of 128 or the whole "
                "array dimension (%lld)",
                path, (long long)d[rank - 1], (long long)a->dims[rank - 1]);
  if (d[rank - 2] != a->dims[rank - 2] && d[rank - 2] % 8 != 0)
    return fail(r, VMEM_ERR_RANGE,
                "%s: the second-to-last block dimension (%lld) must be a multiple of 8 or the "
                "whole array dimension (%lld)",
                path, (long long)d[rank - 2], (long long)a->dims[rank - 2]);
  return true;
}

static bool read_operand(sreader *r, json_t *spec, const char *path, vmem_operand_role role, kernel_operand *op) {
  vmem_kernel *k = r->k;
  if (!json_is_object(spec))
    return fail(r, VMEM_ERR_SYNTAX, "%s: expected an object", path);
  if (!known_keys(r, spec, path, operand_keys, sizeof operand_keys / sizeof *operand_keys))
    return false;
  op->pub.role = role;
  for (size_t d = 0; d < VMEM_KERNEL_MAX_RANK; d++)
    op->pub.block_param[d] = -1;
  json_t *name = json_object_get(spec, "name");
  if (name && !json_is_string(name))
    return fail(r, VMEM_ERR_SYNTAX, "%s.name: expected a string", path);
  const char *nm = json_string_value(name);
  op->pub.name = arena_strndup(&k->a, nm ? nm : path, strlen(nm ? nm : path));
  if (role == VMEM_ROLE_SCALAR_PREFETCH)
    op->pub.space = VMEM_SPACE_SMEM;
  else if (!read_space(r, spec, path, &op->pub.space))
    return false;
  if (op->pub.space == VMEM_SPACE_SEMAPHORE)
    return true;
  int64_t dims[VMEM_KERNEL_MAX_RANK];
  size_t rank = 0;
  vmem_dtype t;
  if (!read_array(r, spec, path, op) || !read_dtype(r, spec, path, op, &t) ||
      !read_block(r, spec, path, op, dims, &rank) || !read_index_map(r, spec, path, op, rank) ||
      !read_buffers(r, spec, path, op) || !check_block_rules(r, path, op, dims, rank))
    return false;
  op->pub.rank = rank;
  if (!(op->pub.block = kernel_shape(k, t, dims, rank)))
    return fail(r, VMEM_ERR_NOMEM, "out of memory");
  return true;
}

static bool read_list(sreader *r, const char *key, vmem_operand_role role, size_t *at) {
  json_t *list = json_object_get(r->root, key);
  if (!list)
    return true;
  if (!json_is_array(list))
    return fail(r, VMEM_ERR_SYNTAX, "%s: expected an array", key);
  for (size_t i = 0; i < json_array_size(list); i++) {
    char path[48];
    snprintf(path, sizeof path, "%s[%zu]", key, i);
    if (!read_operand(r, json_array_get(list, i), path, role, &r->k->ops[(*at)++]))
      return false;
  }
  return true;
}

/* input_output_aliases ::= '{' '"' input '"' ':' output (',' ...)* '}'
 * (indices into in_specs and out_specs, as pallas_call takes them). The
 * aliasing shares HBM buffers; the VMEM windows stay separate (no public
 * source says Mosaic shares them). */
static bool read_aliases(sreader *r) {
  vmem_kernel *k = r->k;
  json_t *al = json_object_get(r->root, "input_output_aliases");
  if (!al)
    return true;
  if (!json_is_object(al))
    return fail(r, VMEM_ERR_SYNTAX, "input_output_aliases: expected an object {\"input\": output}");
  size_t nin = json_array_size(json_object_get(r->root, "in_specs"));
  size_t nout = json_array_size(json_object_get(r->root, "out_specs"));
  size_t first_in = json_array_size(json_object_get(r->root, "scalar_prefetch"));
  const char *key;
  json_t *v;
  json_object_foreach(al, key, v) {
    char *end;
    long in = strtol(key, &end, 10);
    if (*end || in < 0 || (size_t)in >= nin || !json_is_integer(v) || json_integer_value(v) < 0 ||
        (size_t)json_integer_value(v) >= nout)
      return fail(r, VMEM_ERR_RANGE, "input_output_aliases.%s: expected an input index mapped to an output index", key);
    k->ops[first_in + (size_t)in].pub.aliased = true;
    k->ops[first_in + nin + (size_t)json_integer_value(v)].pub.aliased = true;
  }
  return true;
}

/* A grid bound not given is the number of blocks along the first array
 * dimension that axis drives. */
static bool derive_grid(sreader *r) {
  vmem_kernel *k = r->k;
  for (size_t g = 0; g < k->grid_rank; g++) {
    if (k->grid[g] > 0)
      continue;
    k->grid_derived[g] = true;
    for (size_t i = 0; i < k->nops && !k->grid[g]; i++) {
      const vmem_operand *o = &k->ops[i].pub;
      for (size_t d = 0; o->array && d < o->rank; d++)
        if (o->index_axis[d] == (int)g && o->block->dims[d] > 0) /* an empty block drives nothing */
          k->grid[g] = (o->array->dims[d] + o->block->dims[d] - 1) / o->block->dims[d];
    }
    if (k->grid[g] <= 0)
      return fail(r, VMEM_ERR_RANGE, "grid[%zu] (%s): not given, and no array dimension it drives", g,
                  k->grid_axis_name[g]);
  }
  return true;
}

/* The kernel's output as the custom call prints it: the output arrays
 * (a tuple for several), when every one is known. */
static bool result_shape(sreader *r) {
  vmem_kernel *k = r->k;
  size_t n = 0;
  vmem_shape *outs[64];
  for (size_t i = 0; i < k->nops && n < 64; i++)
    if (k->ops[i].pub.role == VMEM_ROLE_OUTPUT) {
      if (!k->ops[i].array)
        return true;
      outs[n++] = k->ops[i].array;
    }
  if (n == 1) {
    k->result = outs[0]; /* shapes are shared, read-only */
    return true;
  }
  if (n == 0)
    return true;
  vmem_shape *t = arena_calloc(&k->a, 1, sizeof *t);
  if (!t || !(t->elems = arena_alloc(&k->a, n * sizeof *t->elems)))
    return fail(r, VMEM_ERR_NOMEM, "out of memory");
  t->tuple = true;
  t->count = n;
  memcpy(t->elems, outs, n * sizeof *outs);
  k->result = t;
  return true;
}

/* values ::= '[' {"name": s, "dtype": t, "shape": [dim...]} ... ']': the
 * body's large values, declared (a spec has no body to read): all live at
 * once, kept whole (docs/kernel-spec.md). Their dims may name parameters. */
static bool read_values(sreader *r) {
  vmem_kernel *k = r->k;
  json_t *vs = json_object_get(r->root, "values");
  if (!vs)
    return true;
  if (!json_is_array(vs) || json_array_size(vs) > 4096)
    return fail(r, VMEM_ERR_SYNTAX, "values: expected an array of {\"name\", \"dtype\", \"shape\"} objects");
  if (!(k->modelled = arena_calloc(&k->a, json_array_size(vs) ? json_array_size(vs) : 1, sizeof *k->modelled)))
    return fail(r, VMEM_ERR_NOMEM, "out of memory");
  for (size_t i = 0; i < json_array_size(vs); i++) {
    json_t *v = json_array_get(vs, i), *shape = json_object_get(v, "shape");
    const char *nm = json_string_value(json_object_get(v, "name")),
               *dt = json_string_value(json_object_get(v, "dtype"));
    vmem_dtype t;
    char path[64];
    snprintf(path, sizeof path, "values[%zu]", i);
    if (json_is_object(v) && !known_keys(r, v, path, value_keys, sizeof value_keys / sizeof *value_keys))
      return false;
    if (!json_is_object(v) || !dt || !vmem_dtype_from_name(dt, strlen(dt), &t))
      return fail(r, VMEM_ERR_SYNTAX, "%s: expected a known \"dtype\"", path);
    if (!json_is_array(shape) || json_array_size(shape) > VMEM_KERNEL_MAX_RANK)
      return fail(r, VMEM_ERR_SYNTAX, "%s.shape: expected an array of at most 16 dimensions", path);
    kernel_modelled *m = &k->modelled[k->nmodelled];
    int64_t dims[VMEM_KERNEL_MAX_RANK];
    size_t rank = json_array_size(shape);
    m->contracted_param = m->columns_param = -1;
    for (size_t d = 0; d < VMEM_KERNEL_MAX_RANK; d++)
      m->param[d] = -1;
    for (size_t d = 0; d < rank; d++) {
      char pd[112];
      snprintf(pd, sizeof pd, "%s.shape[%zu]", path, d);
      if (!read_dim(r, json_array_get(shape, d), pd, &dims[d], &m->param[d]))
        return false;
    }
    char note[160];
    snprintf(note, sizeof note, "%s (declared in the spec)", nm ? nm : path);
    m->shape = kernel_shape(k, t, dims, rank);
    m->note = arena_strndup(&k->a, note, strlen(note));
    m->kind = VALUE_KEPT;
    m->declared = true; /* the user's figure, not a rule's: it decides */
    m->start = 1;
    m->end = 1;
    if (!m->shape || !m->note)
      return fail(r, VMEM_ERR_NOMEM, "out of memory");
    k->nmodelled++;
  }
  k->body_known = true; /* declared: the verdicts count them */
  return true;
}

static bool read_kernel(sreader *r) {
  vmem_kernel *k = r->k;
  k->roles_inferred = true; /* a spec says which operands are outputs */
  if (!json_is_object(r->root))
    return fail(r, VMEM_ERR_SYNTAX, "a kernel spec is a JSON object");
  if (!known_keys(r, r->root, "", top_keys, sizeof top_keys / sizeof *top_keys))
    return false;
  json_t *name = json_object_get(r->root, "name");
  if (name && !json_is_string(name))
    return fail(r, VMEM_ERR_SYNTAX, "name: expected a string");
  const char *nm = json_string_value(name);
  k->name = arena_strndup(&k->a, nm ? nm : "kernel", strlen(nm ? nm : "kernel"));
  json_t *lim = json_object_get(r->root, "vmem_limit_bytes"),
         *is = json_object_get(r->root, "internal_scratch_in_bytes");
  if (lim && (!json_is_integer(lim) || json_integer_value(lim) < 0))
    return fail(r, VMEM_ERR_RANGE, "vmem_limit_bytes: expected a non-negative integer");
  if (is && (!json_is_integer(is) || json_integer_value(is) < 0))
    return fail(r, VMEM_ERR_RANGE, "internal_scratch_in_bytes: expected a non-negative integer");
  k->vmem_limit = lim ? (int64_t)json_integer_value(lim) : -1;
  json_t *fl = json_object_get(r->root, "flops"), *fps = json_object_get(r->root, "flops_per_step");
  if (fl && (!json_is_number(fl) || json_number_value(fl) < 0))
    return fail(r, VMEM_ERR_RANGE, "flops: expected the kernel's total FLOPs, a non-negative number");
  if (fps && !json_is_string(fps))
    return fail(r, VMEM_ERR_SYNTAX, "flops_per_step: expected an expression like \"2*bm*bk*bn\"");
  k->flops = fl ? json_number_value(fl) : -1;
  k->flops_per_step = fps ? arena_strndup(&k->a, json_string_value(fps), strlen(json_string_value(fps))) : NULL;
  k->internal_scratch = is ? (int64_t)json_integer_value(is) : -1;
  static const char *const lists[] = {"scalar_prefetch", "in_specs", "out_specs", "scratch"};
  size_t total = 0;
  for (size_t i = 0; i < 4; i++)
    total += json_array_size(json_object_get(r->root, lists[i]));
  k->nops = total;
  if (!(k->ops = arena_calloc(&k->a, total ? total : 1, sizeof *k->ops)))
    return fail(r, VMEM_ERR_NOMEM, "out of memory");
  size_t at = 0;
  return read_params(r) && read_grid_axes(r) && read_list(r, lists[0], VMEM_ROLE_SCALAR_PREFETCH, &at) &&
         read_list(r, lists[1], VMEM_ROLE_INPUT, &at) && read_list(r, lists[2], VMEM_ROLE_OUTPUT, &at) &&
         read_list(r, lists[3], VMEM_ROLE_SCRATCH, &at) && read_aliases(r) && derive_grid(r) && result_shape(r) &&
         read_values(r);
}

vmem_kernel *vmem_kernel_from_spec(const char *text, size_t len, const vmem_allocator *alloc, vmem_error *err) {
  vmem_error local;
  err_clear(&local);
  vmem_kernel *k = kernel_new(alloc);
  if (!k) {
    err_set(err, VMEM_ERR_NOMEM, 0, "out of memory");
    return NULL;
  }
  sreader r = {k, &local, text, len, NULL};
  json_error_t je;
  bool ok;
  if (!text || len == 0) {
    ok = fail(&r, VMEM_ERR_SYNTAX, "empty input: expected a JSON kernel spec");
  } else if (memchr(text, '\0', len)) {
    err_set(&local, VMEM_ERR_SYNTAX, (size_t)((const char *)memchr(text, '\0', len) - text),
            "binary data (a NUL byte): not a JSON kernel spec");
    ok = false;
  } else if (!(r.root = json_loadb(text, len, 0, &je))) {
    err_set(&local, VMEM_ERR_SYNTAX, (size_t)je.position > len ? len : (size_t)je.position, "JSON: %s", je.text);
    ok = false;
  } else {
    ok = read_kernel(&r);
  }
  json_decref(r.root);
  return kernel_finish(k, ok, &local, err);
}
