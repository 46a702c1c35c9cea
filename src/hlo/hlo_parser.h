/*
 * hlo_parser.h — the HLO reader's state, shared by the grammar
 * (hlo_parse.c) and the two-halves reader (hlo_halves.c), and the seam
 * between them: the grammar resolves what its own part of the text
 * defines and asks the hooks for the rest. A parser that reads alone has
 * no hooks.
 */
#ifndef VMEM_HLO_PARSER_H
#define VMEM_HLO_PARSER_H

#include "hlo.h"

typedef struct vec {
  void **v;
  size_t n, cap;
} vec;

/* A name the second half left open, kept with its hash for the first half
 * to look up: an operand (the cut fell inside its computation and the name
 * is not among the instructions after the cut), or a callee (it may be the
 * first half's: tens of thousands of them, filled in by lookups alone while
 * or after the second half reads on). */
typedef struct open_name {
  vmem_hlo_instruction *in;
  sv name;
  uint64_t hash;
  size_t k; /* its place among in's operands, or callees */
} open_name;

enum { RECENT = 512, OPCODES_SEEN = 64, SHAPE_SETS = 64, SHAPE_WAYS = 4 };

struct half;
struct hp_hooks;

typedef struct parser {
  const char *s;
  size_t len, pos;
  vmem_hlo_module *m;
  arena *a;
  arena scratch; /* inline operand shapes and signature names: used, then dropped */
  vmem_error *err;
  const vmem_allocator *alloc;
  hlo_index names;  /* instruction names of the current computation */
  size_t comp_from; /* where its instructions start in `instrs` */
  hlo_map shapes;   /* shape text -> parsed shape (hlo_shape_entry) */
  hlo_map opcodes;  /* opcode text -> its interned sv */
  /* The instructions defined last, by hash: operands mostly name recent
   * instructions, and this small table stays in cache where the name map
   * of a large computation does not. */
  vmem_hlo_instruction *recent[RECENT];
  /* In front of the opcode and shape tables: the last opcodes and shape
   * texts seen, found by their first bytes without hashing the whole text
   * (the tables were a fifth of a parse). */
  const struct interned_op *opcodes_seen[OPCODES_SEEN];
  hlo_shape_entry *shapes_seen[SHAPE_SETS][SHAPE_WAYS];
  vec instrs, ops, called, comps;
  vec calling; /* the instructions that call computations, for link_callers */
  /* The second half's parser leaves a callee it has not seen NULL (it may
   * be in the first half) and lists it here; those of the instruction being
   * read are from open_callee_from on. */
  open_name *open_callees;
  size_t ncallees, cap_callees, open_callee_from;
  /* The second half's link to the first: once the first has ended at the
   * cut, its computation names (first_names) are final and this half looks
   * callees up there itself. */
  struct half *share;
  const hlo_map *first_names;
  /* A cut inside a computation. The first half stops at the instruction
   * that starts at stop_at and leaves that computation open (suspended,
   * its '{' at body_open); the second reads the rest of it into `cont`, a
   * shell, leaving operands it cannot find open (open_ops), and after the
   * hand-over finds them among the first part's (first_index over
   * first_items) and marks a name both parts define (clash). A callee named
   * as the open computation (open_comp) is it, but not from inside it. */
  size_t stop_at;
  vmem_hlo_computation *suspended, *cont, *open_comp, *open_shell;
  size_t body_open;
  bool cont_done, clash;
  const hlo_index *first_index;
  vmem_hlo_instruction *const *first_items;
  open_name *open_ops;
  size_t nopen, cap_open, open_from;
  size_t id_base; /* the second half, after the hand-over: the first half's instruction count */
  hlo_attr *attrs;
  size_t nattrs, cap_attrs;
  /* The second half's parser resolves through these what its own part
   * does not define (hlo_halves.c); NULL for a parser that reads alone. */
  const struct hp_hooks *hooks;
} parser;

/* Identifier characters, by byte: 1 may continue a name ([0-9.-]), 3 may
 * also start one ([a-zA-Z_]); bytes from 128 on are neither (hlo_parse.c). */
extern const unsigned char hp_ident_class[256];
static inline bool is_ident_start(int c) { return hp_ident_class[(unsigned char)c] == 3; }
static inline bool is_ident(int c) { return hp_ident_class[(unsigned char)c] != 0; }

/* What a hook made of a name the grammar could not resolve. */
typedef enum hp_resolved {
  HP_MISSING, /* defined nowhere it may be: the grammar reports it */
  HP_FOUND,   /* found, or left open for later (the result is then NULL) */
  HP_ERROR    /* out of memory: the error is set */
} hp_resolved;

typedef struct hp_hooks {
  /* An operand computation c has not defined (yet). */
  hp_resolved (*operand)(parser *p, const vmem_hlo_computation *c, sv name, uint64_t hash, vmem_hlo_instruction **out);
  /* A callee not among this parser's computations, called from `from`. */
  hp_resolved (*callee)(parser *p, sv name, uint64_t hash, const vmem_hlo_computation *from,
                        vmem_hlo_computation **out);
  /* After instruction `in` (its operands from ops_from of p->ops, its
   * callees from called_from of p->called): false stops the parse. */
  bool (*defined)(parser *p, vmem_hlo_instruction *in, size_t ops_from, size_t called_from);
  /* Between two instructions of a body. */
  void (*between)(parser *p);
} hp_hooks;

/* ---- hlo_parse.c: the grammar pieces the halves drive ---------------------- */

/* A parser over m's text, into m's arena; false when out of memory (then
 * hp_free still applies). */
bool hp_init(parser *p, vmem_hlo_module *m, vmem_error *err);
void hp_free(parser *p);
bool hp_nomem(parser *p);
void *hp_grow(parser *p, void *items, size_t n, size_t *cap, size_t size);
/* computation* up to byte `stop` (or a suspension at p->stop_at). */
bool hp_computations(parser *p, size_t stop);
bool hp_body_begin(parser *p);
/* instruction* '}' from where a body stands (its '{' at `open`). */
bool hp_body_rest(parser *p, vmem_hlo_computation *c, size_t open);
bool hp_computation_thread(parser *p, vmem_hlo_computation *c);
bool hp_computation_name(parser *p, vmem_hlo_computation *c);
bool hp_add_computation(parser *p, vmem_hlo_computation *c);

static inline bool vec_push(parser *p, vec *v, void *x) {
  if (v->n < v->cap) { /* the common case, without a call */
    v->v[v->n++] = x;
    return true;
  }
  void **nv = hp_grow(p, v->v, v->n, &v->cap, sizeof *nv);
  if (!nv)
    return false;
  v->v = nv;
  v->v[v->n++] = x;
  return true;
}

/* ---- hlo_halves.c ------------------------------------------------------------ */

/* Every computation from p->pos on: in two halves on two threads where the
 * module's cut (or its size) says, else in one pass; the module and the
 * errors one pass gives. */
bool hh_computations(parser *p);
/* The first NUL byte of the text, or NULL (searched in two halves where a
 * parse would be). */
const char *hh_find_nul(const parser *p);

#endif
