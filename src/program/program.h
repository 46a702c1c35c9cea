/*
 * program.h — what live.c (values, the schedule, live ranges, packing) and
 * alias.c (values joined into one buffer) share. Private to src/program/.
 */
#ifndef VMEM_PROGRAM_H
#define VMEM_PROGRAM_H

#include "../hlo/hlo.h"

enum { PG_MAX_NEST = 64, PG_MAX_PATH = 16 };
#define PG_NONE SIZE_MAX

/* A shape index: the tuple element at each level ({} = the whole value). */
typedef struct pg_path {
  uint32_t n;
  int64_t k[PG_MAX_PATH];
} pg_path;

/* What a walk through forwarding instructions does with each value it
 * reaches: extend its life to the current step, or collect it. */
enum { PG_USE, PG_COLLECT };

typedef struct pg_walk {
  const vmem_hlo_module *m;
  const vmem_hlo_instruction **by_ptr; /* every instruction, by id (hlo.h) */
  size_t n;
  size_t *base; /* per instruction: its first value, or PG_NONE when it defines none */
  size_t nvalues;
  int64_t *vstart, *vend; /* per value; -1 unset */
  size_t *uf;             /* per value: union-find parent (buffers joined by aliasing) */
  int64_t *hs, *he;       /* per union-find root: the hull of its members' ranges */
  uint64_t *vbytes, *vunpadded;
  int64_t *vspace;  /* memory space, -1 when the value cannot be sized */
  int64_t *visited; /* per instruction: the mark of the walk that last reached it whole */
  int64_t t, mark, next_mark;
  int mode;
  size_t *hits, nhits, hits_cap; /* PG_COLLECT */
  vmem_error *err;
  const vmem_target *target;
  const vmem_program_options *opt;
  const vmem_allocator *alloc;
  uint64_t *resv;                       /* per step: the scoped reservation */
  const vmem_hlo_instruction **resv_in; /* per step: the instruction reserving it */
  size_t resv_cap;
} pg_walk;

size_t pg_index(const pg_walk *w, const vmem_hlo_instruction *in);
/* Reaches the values at shape index p of `in`, through every forwarding
 * instruction, and extends or collects them (w->mode). */
void pg_use_at(pg_walk *w, const vmem_hlo_instruction *in, const pg_path *p, unsigned depth);
/* The values at index p of `in`, into w->hits; false when memory ran out. */
bool pg_collect(pg_walk *w, const vmem_hlo_instruction *in, const pg_path *p);

/* A while's body: its body= computation, else its last. */
const vmem_hlo_computation *pg_while_body(const vmem_hlo_instruction *in);

size_t pg_find(pg_walk *w, size_t v);
void pg_union(pg_walk *w, size_t a, size_t b);
/* alias.c: joins the values that share a buffer — a while's state, an
 * instruction's output_to_operand_aliasing, the module's
 * input_output_alias, and an operand an elementwise op or
 * dynamic-update-slice overwrites in place when its life ends there. */
bool pg_join(pg_walk *w);

#endif
