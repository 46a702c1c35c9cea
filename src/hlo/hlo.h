/*
 * hlo.h — the HLO module IR (module prefix: hlo_). One arena owns all of
 * it; names, opcodes and attribute values are views into the text.
 */
#ifndef VMEM_HLO_H
#define VMEM_HLO_H

#include <string.h>

#include "../shape/shape.h"

typedef vmem_str sv;

/* An attribute `name=value`. The name stands right before the '=' that
 * precedes the value, so only its length is stored: 16 bytes an
 * attribute instead of 32, over a million attributes in a large dump. */
typedef struct hlo_attr {
  const char *value; /* raw text, as written */
  uint32_t value_len, name_len;
} hlo_attr;

static inline sv attr_value(const hlo_attr *a) {
  sv v = {a->value, a->value_len};
  return v;
}

static inline sv attr_name(const hlo_attr *a) {
  sv n = {a->value - 1 - a->name_len, a->name_len};
  return n;
}

enum { HLO_KIND_CALLS = 0, HLO_KIND_CONSTANT, HLO_KIND_PARAMETER };

/* The opcodes, each once (hlo_ops.def), and what the planners ask of them.
 * The reader looks each distinct opcode up once and stores its enum on
 * every instruction; an opcode not in the table is HLO_OP_OTHER. */
typedef enum hlo_op {
#define HLO_OP(e, text, flags, rule) HLO_OP_##e,
#include "hlo_ops.def"
#undef HLO_OP
  HLO_OP_OTHER
} hlo_op;

enum { /* the flag columns of hlo_ops.def, explained there */
       HLO_F_ALIAS = 1,
       HLO_F_FORWARD = 2,
       HLO_F_INLINES = 4,
       HLO_F_ELEMWISE = 8,
       HLO_F_UNSIZED = 16,
       HLO_F_EXTENT = 32
};

/* The standard-op model's rules (src/scoped/standard.c), named by the rule
 * column of hlo_ops.def. */
typedef enum hlo_std_rule {
  HLO_STD_NONE,
  HLO_STD_REDUCE,
  HLO_STD_REDUCE_WINDOW,
  HLO_STD_SORT,
  HLO_STD_DOT,
  HLO_STD_CONVOLUTION,
  HLO_STD_GATHER,
  HLO_STD_SCATTER,
  HLO_STD_COUNT
} hlo_std_rule;

typedef struct hlo_op_info {
  const char *text;
  uint8_t len, flags, rule;
} hlo_op_info;

/* Indexed by hlo_op, HLO_OP_OTHER last (hlo_ops.c). Constant data. */
extern const hlo_op_info hlo_op_table[HLO_OP_OTHER + 1];
/* The enum of an opcode's text (HLO_OP_OTHER when not in the table). */
hlo_op hlo_op_lookup(sv text);

/* Every object kept in an hlo_map starts with its key. An instruction is
 * one block: this head, then its operands, its attributes (hlo_attrs) and
 * a constant's literal — 64 bytes and no separate blocks for a typical
 * instruction, over the 650,000 of a 100 MB dump. */
struct vmem_hlo_instruction {
  sv name;           /* first: the hlo_map key */
  const sv *opcode;  /* interned: one copy per distinct opcode */
  vmem_shape *shape; /* interned: shared by every equal shape text (in each half of a large module) */
  struct vmem_hlo_computation *parent;
  /* constant and parameter hold a literal and call nothing; every other
   * opcode may call computations. One pointer serves both. */
  union {
    struct vmem_hlo_computation **called;
    sv *literal;        /* raw text inside constant(...), in this block */
    uint64_t parameter; /* N of parameter(N) */
  };
  uint32_t noperands;
  uint32_t id;                      /* its place among the module's instructions, computations in text order */
  uint16_t nattrs, ncalled;         /* 16 bits: the parser refuses more, with a positioned error */
  uint8_t kind;                     /* HLO_KIND_*: what the union holds */
  uint8_t op;                       /* hlo_op, looked up once per distinct opcode */
  vmem_hlo_instruction *operands[]; /* then nattrs hlo_attr */
};

/* The instruction's opcode has every flag in f (HLO_F_*). */
static inline bool hlo_has(const vmem_hlo_instruction *in, unsigned f) { return (hlo_op_table[in->op].flags & f) == f; }

static inline const hlo_attr *hlo_attrs(const vmem_hlo_instruction *in) {
  return (const hlo_attr *)(const void *)(in->operands + in->noperands);
}

struct vmem_hlo_computation {
  sv name; /* first: the hlo_map key */
  struct vmem_hlo_module *module;
  sv thread; /* execution_thread, or empty */
  size_t offset;
  vmem_hlo_instruction **instrs;
  vmem_hlo_instruction *root;
  sv *param_names; /* the signature, when written */
  vmem_shape **param_shapes;
  vmem_shape *result; /* NULL when no signature */
  const vmem_hlo_instruction **callers;
  uint32_t ninstrs, nparams, ncallers, index;
  bool is_entry, has_signature, is_fusion;
};

struct vmem_hlo_module {
  arena a;
  const char *text;
  size_t len;
  void *map; /* mmap'd file, or NULL */
  size_t map_len;
  sv name;
  bool has_header, is_scheduled;
  hlo_attr *attrs;
  uint32_t nattrs, ncomps;
  sv frames; /* FileNames ... StackFrames tables, raw */
  vmem_hlo_computation **comps;
  vmem_hlo_computation *entry;
  size_t total_instrs;
  struct hlo_map *by_name; /* computation name -> computation */
  bool halves;             /* read by two threads, the halves joined */
  bool one_thread;         /* vmem_parse_options.threads == 1: nothing that reads it starts a thread */
  size_t cut;              /* where to cut the text for two threads: HLO_CUT_AUTO (0), HLO_CUT_NONE, or
                             a byte offset (tests force one) */
};

#define HLO_CUT_AUTO ((size_t)0)
#define HLO_CUT_NONE SIZE_MAX

/* A hash map from names to objects whose first member is their name (an
 * sv): slots hold pointers, not copies of keys, which matters for a module
 * with a million instructions. Open addressing, power-of-two size; each
 * slot keeps the key's hash beside the pointer. */
typedef struct hlo_slot {
  void *val;
  uint64_t hash;
} hlo_slot;

typedef struct hlo_map {
  const vmem_allocator *alloc;
  hlo_slot *slots;
  size_t cap, n;
} hlo_map;

/* An interned shape: its text is the key. */
typedef struct hlo_shape_entry {
  sv text;
  vmem_shape *shape;
} hlo_shape_entry;

bool hlo_map_init(hlo_map *m, const vmem_allocator *alloc, size_t hint);
/* Inserts val under its own name; returns the object already there with
 * that name (val is then not inserted), else NULL. Sets *nomem on
 * allocation failure. */
void *hlo_map_put(hlo_map *m, void *val, bool *nomem);
void *hlo_map_get(const hlo_map *m, sv key);
/* The same with the key's hash computed once by the caller. */
uint64_t hlo_hash(sv key);
void *hlo_map_put_hashed(hlo_map *m, void *val, uint64_t hash, bool *nomem);
void *hlo_map_get_hashed(const hlo_map *m, sv key, uint64_t hash);
/* Brings the slot a lookup of hash h probes first into the cache; with
 * `object`, the object already in it too (GCC and clang; elsewhere nothing). */
static inline void hlo_map_prefetch(const hlo_map *m, uint64_t h, bool object) {
#if defined(__GNUC__)
  if (!m->slots)
    return;
  const hlo_slot *s = &m->slots[(size_t)h & (m->cap - 1)];
  if (!object)
    __builtin_prefetch(s);
  else if (s->val)
    __builtin_prefetch(s->val);
#else
  (void)m, (void)h, (void)object;
#endif
}
void hlo_map_free(hlo_map *m);

/* Parses m->text into m (its arena and text set). hlo_parse.c. */
bool hlo_parse_into(vmem_hlo_module *m, vmem_error *err);
/* vmem_hlo_parse with the cut chosen by the caller (m->cut above), with
 * the default allocator: the two-halves path tested at every line. */
vmem_hlo_module *hlo_parse_cut(const char *text, size_t len, size_t cut, vmem_error *err);
/* Where the reader would cut text[from, len) for two threads (0: nowhere). */
size_t hlo_find_cut(const char *text, size_t from, size_t len);

/* Names to positions in an array the caller owns (whose elements start
 * with their name): the name table of the computation being parsed.
 * The probe position comes from the hash's high 32 bits, which the slot
 * keeps, so that the table can grow without the keys. */
typedef struct hlo_index {
  const vmem_allocator *alloc;
  uint64_t *slots;
  size_t cap, n;
} hlo_index;

bool hlo_index_init(hlo_index *x, const vmem_allocator *alloc, size_t hint);
void *hlo_index_get(const hlo_index *x, void *const *items, sv key, uint64_t hash);
void *hlo_index_put(hlo_index *x, void *const *items, size_t pos, uint64_t hash, bool *nomem);
void hlo_index_free(hlo_index *x);
/* Brings the slot a get or put of hash h probes first into the cache, to be
 * there when the put comes (GCC and clang; elsewhere nothing). */
static inline void hlo_index_prefetch(const hlo_index *x, uint64_t h) {
#if defined(__GNUC__)
  if (x->slots)
    __builtin_prefetch(&x->slots[(size_t)(h >> 32) & (x->cap - 1)], 1);
#else
  (void)x, (void)h;
#endif
}
/* Empties x for the next computation: a small table is kept and zeroed, a
 * large one freed (hlo_index_init makes the next). */
void hlo_index_clear(hlo_index *x);

/* Equal bytes, compared eight at a time: the names and shape texts the
 * parser compares are 5-60 bytes, where a call to memcmp costs more than
 * the comparison (5% of a parse). */
static inline bool hlo_bytes_eq(const char *a, const char *b, size_t n) {
  uint64_t x, y;
  if (n < 8) {
    for (; n; a++, b++, n--)
      if (*a != *b)
        return false;
    return true;
  }
  for (size_t i = 0; i + 8 < n; i += 8) {
    memcpy(&x, a + i, 8);
    memcpy(&y, b + i, 8);
    if (x != y)
      return false;
  }
  memcpy(&x, a + n - 8, 8); /* the last eight, overlapping the words before */
  memcpy(&y, b + n - 8, 8);
  return x == y;
}

static inline bool sv_eq(sv a, const char *s, size_t n) { return a.len == n && hlo_bytes_eq(a.ptr, s, n); }
sv sv_unquote(sv v); /* strips one pair of surrounding double quotes */

/* hlo_config.c: the backend_config as JSON (jansson), or NULL — with err
 * set when a TPU config is malformed, clear when there is none or it is
 * another backend's. The caller json_decref's it. */
struct json_t;
struct json_t *hlo_config_json(const vmem_hlo_instruction *i, vmem_error *err);
/* A JSON integer or decimal string (protobuf's int64 form); -1 otherwise. */
int64_t hlo_json_i64(const struct json_t *v);
/* The memory-space-1 size of a *_memory_configs list, or -1. */
int64_t hlo_vmem_config_size(const struct json_t *list);

/* Every instruction's config into out[id] (vmem_hlo_module_scoped), in two
 * halves on two threads when there are split_from configs or more (tests
 * and the fuzzer pass 0 to force two threads on a small module, SIZE_MAX
 * for one). */
vmem_status hlo_scoped_all(const vmem_hlo_module *m, vmem_hlo_scoped *out, size_t split_from, vmem_error *err);

/* hlo_kernel.c: a kernel from a tpu_custom_call's config, completed with
 * the arrays behind its operands and results (either may be NULL). Shared
 * by the HLO and StableHLO readers. */
typedef struct kernel_arrays {
  const vmem_shape *const *ins;
  size_t nin;
  const vmem_shape *const *outs;
  size_t nout;
  vmem_str name;            /* a name from the caller, or empty */
  bool name_given;          /* an explicit kernel_name, over the body's own name */
  const char *text;         /* the source text, which src (below) points into */
  const vmem_shape *result; /* the custom call's whole result, or NULL */
} kernel_arrays;
/* src: the config's text in the source, where a bad body is pointed at;
 * at: the offset to name when it cannot be found there. */
vmem_kernel *hlo_config_kernel(const struct json_t *config, const kernel_arrays *io, vmem_str src, size_t at,
                               const vmem_allocator *alloc, vmem_error *err);

#endif
