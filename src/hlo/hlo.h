/*
 * hlo.h — the HLO module IR (module prefix: hlo_). One arena owns all of
 * it; names, opcodes and attribute values are views into the text.
 */
#ifndef VMEM_HLO_H
#define VMEM_HLO_H

#include "../shape/shape.h"

typedef vmem_str sv;

typedef struct hlo_attr {
  sv name;
  sv value;   /* raw text, as written */
} hlo_attr;

/* Every object kept in an hlo_map starts with its key. */
struct vmem_hlo_instruction {
  sv name, opcode;        /* name first: the hlo_map key */
  vmem_shape *shape;      /* interned: shared by every equal shape text */
  struct vmem_hlo_computation *parent;
  vmem_hlo_instruction **operands;
  hlo_attr *attrs;
  struct vmem_hlo_computation **called;
  sv *literal;            /* constant(...) / parameter(N): raw text inside (), or NULL */
  uint32_t noperands, nattrs, ncalled, index;
  bool is_root;
};

struct vmem_hlo_computation {
  sv name;                /* first: the hlo_map key */
  struct vmem_hlo_module *module;
  sv thread;              /* execution_thread, or empty */
  size_t offset;
  vmem_hlo_instruction **instrs;
  vmem_hlo_instruction *root;
  sv *param_names;        /* the signature, when written */
  vmem_shape **param_shapes;
  vmem_shape *result;     /* NULL when no signature */
  const vmem_hlo_instruction **callers;
  uint32_t ninstrs, nparams, ncallers, index;
  bool is_entry, has_signature, is_fusion;
};

struct vmem_hlo_module {
  arena a;
  const char *text;
  size_t len;
  void *map;              /* mmap'd file, or NULL */
  size_t map_len;
  sv name;
  bool has_header, is_scheduled;
  hlo_attr *attrs;
  uint32_t nattrs, ncomps;
  sv frames;              /* FileNames ... StackFrames tables, raw */
  vmem_hlo_computation **comps;
  vmem_hlo_computation *entry;
  size_t total_instrs;
  struct hlo_map *by_name; /* computation name -> computation */
};

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
void hlo_map_free(hlo_map *m);

/* Parses m->text into m (its arena and text set). hlo_parse.c. */
bool hlo_parse_into(vmem_hlo_module *m, vmem_error *err);

bool sv_eq(sv a, const char *s, size_t n);
sv sv_unquote(sv v); /* strips one pair of surrounding double quotes */

#endif
