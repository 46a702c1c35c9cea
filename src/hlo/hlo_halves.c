/*
 * hlo_halves.c — a large HLO module read in two halves on two threads.
 *
 * The grammar (hlo_parse.c) reads each half; this file cuts the text,
 * starts the second half's parser, hands names over between the halves
 * and joins them, meeting the grammar only through the hooks of
 * hlo_parser.h (an operand or a callee the second half cannot resolve, an
 * instruction defined, a point between two instructions). The result and
 * the errors are always one pass's: a cut that does not hold is dropped.
 */
#define _POSIX_C_SOURCE 200809L /* pthreads */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "hlo_parser.h"

/* Records an open name, the k-th of p->ops or p->called (its instruction
 * and place among the instruction's are set by open_attach). */
static bool open_push(parser *p, open_name **list, size_t *n, size_t *cap, sv name, uint64_t hash, size_t k) {
  open_name *na = hp_grow(p, *list, *n, cap, sizeof *na);
  if (!na)
    return false;
  *list = na;
  open_name o = {NULL, name, hash, k};
  na[(*n)++] = o;
  return true;
}

/* The names recorded from *from on are instruction in's, whose operands or
 * callees start at `base` of the list they came from. */
static void open_attach(open_name *list, size_t n, size_t *from, vmem_hlo_instruction *in, size_t base) {
  for (; *from < n; (*from)++) {
    list[*from].in = in;
    list[*from].k -= base;
  }
}

/* The computation a name calls from computation `from`: one defined
 * before, among this parser's, the first half's once published, or the one
 * the first half stopped inside — which is defined for its callers after
 * it, not for its own instructions. */
static vmem_hlo_computation *callee_anywhere(parser *p, sv name, uint64_t hash, const vmem_hlo_computation *from) {
  vmem_hlo_computation *c = hlo_map_get_hashed(p->m->by_name, name, hash);
  if (!c && p->first_names)
    c = hlo_map_get_hashed(p->first_names, name, hash);
  vmem_hlo_computation *open = p->open_comp;
  if (!c && open && from != open && from != p->open_shell && open->name.len == name.len &&
      hlo_bytes_eq(open->name.ptr, name.ptr, name.len))
    c = open;
  return c;
}

/* A large module is read in two halves on two threads. The text is cut at
 * a guess near the middle — the line after a '}' alone on its line, or an
 * instruction when the module is one large computation — and a second
 * parser reads from there to the end while this one reads up to it.
 * Computations depend on each other only through the names of those they
 * call, instructions on the names before them: the second half leaves a
 * callee or operand it has not seen open, and this one fills them in once
 * it has stopped at the cut. The guess is used only if this parse stops
 * exactly at the cut (between two computations, or two instructions, as
 * the second half began) and the halves join without a clash; otherwise
 * the second half is dropped and this parser goes on alone, so results and
 * errors are those of one pass. */
enum { HALVES_MIN = 1 << 19 }; /* bytes of computations: 0.88x at 256 KB, 1.36x at 512 KB (performance.md) */

typedef struct half {
  vmem_hlo_module m; /* a shell: its own arena and computation names; the text is shared */
  parser p;
  vmem_error err;
  bool ok;
  /* The hand-over. The first half, ended at the cut, publishes its names
   * (first_ready); the second, seeing it between two instructions, hands
   * over the callers it left open so far (handed) and looks names up in
   * the first's table from then on; the first fills them in while the
   * second goes on. */
  pthread_mutex_t mu;
  pthread_cond_t cv;
  atomic_bool first_ready;
  const hlo_map *first_names;
  open_name *handed;
  size_t nhanded;
  bool handed_over, finished, sync;
  /* A cut inside a computation: the first part's names (first_index over
   * first_items) and the open computation, published with first_ready; the
   * second's open operands and the names it had defined in the rest of
   * that computation by the hand-over, which the first then checks. */
  const hlo_index *first_index;
  vmem_hlo_instruction *const *first_items;
  vmem_hlo_computation *open_comp;
  open_name *handed_ops;
  size_t nhanded_ops;
  vec handed_names;
  /* Numbering: the second half numbers its instructions from 0 until the
   * hand-over, then from base_id on; the first moves those numbered before
   * it (numbered) up by base_id while it waits. */
  size_t base_id;
  vec numbered_comps, numbered;
} half;

/* The second half's instructions so far: those of the computations it has
 * ended (the rest of the open one among them) into comps, those of the one
 * it is in into instrs. */
static bool numbered_so_far(parser *p, vec *comps, vec *instrs) {
  if (p->cont && p->cont_done && !vec_push(p, comps, p->cont))
    return false;
  for (size_t i = 0; i < p->comps.n; i++)
    if (!vec_push(p, comps, p->comps.v[i]))
      return false;
  for (size_t i = p->comp_from; i < p->instrs.n; i++)
    if (!vec_push(p, instrs, p->instrs.v[i]))
      return false;
  return true;
}

/* The second half, between two instructions: has the first ended? */
static void half_poll(parser *p) {
  half *h = p->share;
  if (!atomic_load_explicit(&h->first_ready, memory_order_acquire))
    return;
  pthread_mutex_lock(&h->mu);
  p->first_names = h->first_names;
  p->first_index = h->first_index;
  p->first_items = h->first_items;
  p->open_comp = h->open_comp;
  h->handed = p->open_callees; /* between two instructions: every one has its instruction */
  h->nhanded = p->ncallees;
  p->open_callees = NULL;
  p->ncallees = p->cap_callees = p->open_callee_from = 0;
  h->handed_ops = p->open_ops;
  h->nhanded_ops = p->nopen;
  p->open_ops = NULL;
  p->nopen = p->cap_open = p->open_from = 0;
  bool ok = numbered_so_far(p, &h->numbered_comps, &h->numbered);
  p->id_base = h->base_id;
  if (p->cont) { /* the names of the rest of the open computation so far */
    void *const *names = p->cont_done ? (void *const *)p->cont->instrs : p->instrs.v + p->comp_from;
    size_t n = p->cont_done ? p->cont->ninstrs : p->instrs.n - p->comp_from;
    for (size_t i = 0; i < n && !p->clash; i++)
      if (!vec_push(p, &h->handed_names, names[i]))
        p->clash = true; /* out of memory: make the halves not join */
  }
  if (!ok)
    p->clash = true;
  h->handed_over = true;
  pthread_cond_signal(&h->cv);
  pthread_mutex_unlock(&h->mu);
}

/* ---- the hooks: the second half's parser meets the grammar here ---------------- */

/* An operand the rest of the cut computation uses before this half has
 * defined it: the first part's, once published, or left open. */
static hp_resolved second_operand(parser *p, const vmem_hlo_computation *c, sv name, uint64_t hash,
                                  vmem_hlo_instruction **out) {
  if (c != p->cont)
    return HP_MISSING;
  *out = p->first_items ? hlo_index_get(p->first_index, (void *const *)p->first_items, name, hash) : NULL;
  if (*out || open_push(p, &p->open_ops, &p->nopen, &p->cap_open, name, hash, p->ops.n))
    return HP_FOUND;
  return HP_ERROR;
}

/* A callee this half has not defined: the first half's (once published),
 * the one it stopped inside, or left open for the first half to fill in. */
static hp_resolved second_callee(parser *p, sv name, uint64_t hash, const vmem_hlo_computation *from,
                                 vmem_hlo_computation **out) {
  if ((*out = callee_anywhere(p, name, hash, from)) != NULL)
    return HP_FOUND;
  return open_push(p, &p->open_callees, &p->ncallees, &p->cap_callees, name, hash, p->called.n) ? HP_FOUND : HP_ERROR;
}

/* The names left open at `in` get their instruction; a name the first part
 * of the cut computation defines too is a clash (one pass names it). */
static bool second_defined(parser *p, vmem_hlo_instruction *in, size_t ops_from, size_t called_from) {
  open_attach(p->open_ops, p->nopen, &p->open_from, in, ops_from);
  if (in->kind == HLO_KIND_CALLS)
    open_attach(p->open_callees, p->ncallees, &p->open_callee_from, in, called_from);
  if (in->parent == p->cont && p->first_items &&
      hlo_index_get(p->first_index, (void *const *)p->first_items, in->name, hlo_hash(in->name)))
    p->clash = true;
  return true;
}

static void second_between(parser *p) {
  if (!p->first_names)
    half_poll(p);
}

static const hp_hooks second_half = {second_operand, second_callee, second_defined, second_between};

/* The rest of the computation a cut fell inside, into the shell `cont`. */
static bool continue_computation(parser *p) {
  if (!hp_body_begin(p) || !hp_body_rest(p, p->cont, p->pos))
    return false;
  p->cont_done = true;
  return hp_computation_thread(p, p->cont);
}

static void *half_main(void *arg) {
  half *h = arg;
  h->ok = (!h->p.cont || continue_computation(&h->p)) && hp_computations(&h->p, SIZE_MAX);
  pthread_mutex_lock(&h->mu);
  h->finished = true;
  pthread_cond_signal(&h->cv);
  pthread_mutex_unlock(&h->mu);
  return NULL;
}

/* Does an instruction start at i?   blank* ('ROOT' blank+)? '%'? ident blank* '='
 * (a computation starts with a name and '(' or '{'). */
static bool instruction_at(const char *s, size_t n, size_t i) {
  while (i < n && (s[i] == ' ' || s[i] == '\t'))
    i++;
  if (i + 5 < n && !memcmp(s + i, "ROOT", 4) && (s[i + 4] == ' ' || s[i + 4] == '\t'))
    for (i += 4; i < n && (s[i] == ' ' || s[i] == '\t');)
      i++;
  if (i < n && s[i] == '%')
    i++;
  size_t name = i;
  while (i < n && is_ident(s[i]))
    i++;
  if (i == name)
    return false;
  while (i < n && (s[i] == ' ' || s[i] == '\t'))
    i++;
  return i < n && s[i] == '=';
}

/* The first non-blank byte after a line holding only '}' in [lo, hi), the
 * first such from lo on; 0 when none. (The search starts at the "\n}\n"
 * that would end right at lo.) */
static size_t cut_after(const char *s, size_t len, size_t lo, size_t hi) {
  for (size_t i = lo >= 3 ? lo - 3 : 0; i < hi;) {
    const char *nl = memchr(s + i, '\n', hi - i);
    if (!nl)
      break;
    i = (size_t)(nl - s) + 1;
    if (i + 1 < len && s[i] == '}' && (s[i + 1] == '\n' || s[i + 1] == '\r')) {
      size_t j = i + 1;
      while (j < len && ch_is_space(s[j]))
        j++;
      if (j < hi)
        return j;
    }
  }
  return 0;
}

/* The last such in [lo, hi), searched back in 64 KB steps; 0 when none. */
static size_t cut_before(const char *s, size_t len, size_t lo, size_t hi) {
  for (size_t end = hi; end > lo;) {
    size_t from = end - lo > (64 << 10) ? end - (64 << 10) : lo, last = 0;
    for (size_t at = from; (at = cut_after(s, len, at, end)) != 0; at++)
      last = at;
    if (last)
      return last;
    end = from;
  }
  return 0;
}

/* The first line start in [lo, hi) where an instruction starts; 0 when
 * none. */
static size_t instruction_after(const char *s, size_t len, size_t lo, size_t hi) {
  for (size_t i = lo; i < hi;) {
    const char *nl = memchr(s + i, '\n', hi - i);
    if (!nl)
      break;
    i = (size_t)(nl - s) + 1;
    if (i < hi && instruction_at(s, len, i))
      return i;
  }
  return 0;
}

/* Where to cut [from, len): between two computations, the candidate nearest
 * the middle within its middle three fifths (a 20/80 split still gains a
 * fifth); when none is within a tenth of the middle, at an instruction just
 * after it (a module that is one large computation). Only a guess: the
 * first half's parse must stop exactly there for the cut to be used. */
size_t hlo_find_cut(const char *s, size_t from, size_t len) {
  size_t n = len - from, mid = from + n / 2, lo = from + n / 5;
  size_t ahead = cut_after(s, len, mid, from + n / 5 * 4);
  if (ahead && ahead - mid < mid - lo)
    lo = mid - (ahead - mid); /* one behind must be nearer than the one ahead */
  size_t back = cut_before(s, len, lo, mid);
  size_t best = back && (!ahead || mid - back <= ahead - mid) ? back : ahead;
  if (best && (best > mid ? best - mid : mid - best) <= n / 10)
    return best;
  size_t inside = instruction_after(s, len, mid, mid + n / 10);
  return inside ? inside : best;
}

/* Two halves pay when the caller's allocator is the default one (a
 * caller's allocator is only ever called from the calling thread), two
 * processors are online and the computations are large. */
static bool halves_pay(const parser *p) {
  const vmem_allocator *a = p->alloc;
  return !a->alloc && !a->free && !p->m->one_thread && p->len - p->pos >= HALVES_MIN && sys_processors() >= 2;
}

static void half_drop(half *h) {
  if (h->sync) {
    pthread_cond_destroy(&h->cv);
    pthread_mutex_destroy(&h->mu);
  }
  vmem__free(h->p.alloc, h->handed);
  vmem__free(h->p.alloc, h->handed_ops);
  vmem__free(h->p.alloc, h->handed_names.v);
  vmem__free(h->p.alloc, h->numbered.v);
  vmem__free(h->p.alloc, h->numbered_comps.v);
  hp_free(&h->p);
  if (h->m.by_name)
    hlo_map_free(h->m.by_name);
  arena_destroy(&h->m.a);
}

/* Starts the second half at `cut`; false when it could not start. */
static bool half_start(parser *p, half *h, size_t cut, pthread_t *th) {
  memset(h, 0, sizeof *h);
  err_clear(&h->err);
  arena_init(&h->m.a, NULL);
  h->m.text = p->s;
  h->m.len = p->len;
  atomic_init(&h->first_ready, false);
  if (pthread_mutex_init(&h->mu, NULL) == 0) {
    if (pthread_cond_init(&h->cv, NULL) == 0)
      h->sync = true;
    else
      pthread_mutex_destroy(&h->mu);
  }
  if (h->sync && hp_init(&h->p, &h->m, &h->err)) {
    h->p.pos = cut; /* inside a computation, at the instruction's first byte: where the first half stops */
    h->p.hooks = &second_half;
    h->p.share = h;
    if (instruction_at(p->s, p->len, cut)) { /* inside a computation: the second half continues it */
      if (!(h->p.cont = arena_calloc(&h->m.a, 1, sizeof *h->p.cont))) {
        half_drop(h);
        return false;
      }
      h->p.cont->module = &h->m;
      h->p.open_shell = h->p.cont;
    }
    if (pthread_create(th, NULL, half_main, h) == 0)
      return true;
  }
  half_drop(h);
  return false;
}

/* Fills in the callees the second half left open from this half's
 * computations, by the names and hashes it kept; false when one is not
 * there (defined nowhere before its caller: one pass names it). */
static bool fill_open_callees(parser *p, const open_name *open, size_t n) {
  enum { AHEAD = 8 }; /* each lookup misses the cache: the slot, then the computation, fetched ahead */
  for (size_t i = 0; i < n; i++) {
    if (i + 2 * AHEAD < n)
      hlo_map_prefetch(p->m->by_name, open[i + 2 * AHEAD].hash, false);
    if (i + AHEAD < n)
      hlo_map_prefetch(p->m->by_name, open[i + AHEAD].hash, true);
    vmem_hlo_computation *c = callee_anywhere(p, open[i].name, open[i].hash, open[i].in->parent);
    if (!c)
      return false;
    open[i].in->called[open[i].k] = c;
  }
  return true;
}

/* The first part of the open computation's instructions (NULL: none yet). */
static vmem_hlo_instruction *const *open_items(const parser *p) {
  return p->instrs.v ? (vmem_hlo_instruction *const *)p->instrs.v + p->comp_from : NULL;
}

/* Fills in the operands the second half left open from the first part of
 * the computation the cut fell inside; false when one is not there. */
static bool fill_open_operands(parser *p, const open_name *open, size_t n) {
  void *const *items = (void *const *)open_items(p);
  for (size_t i = 0; i < n; i++) {
    vmem_hlo_instruction *op = items ? hlo_index_get(&p->names, items, open[i].name, open[i].hash) : NULL;
    if (!op)
      return false; /* defined nowhere before: one pass names it */
    open[i].in->operands[open[i].k] = op;
  }
  return true;
}

/* Is any of these second-half instructions' names one the first part of
 * the open computation defines too? */
static bool names_clash(parser *p, void *const *instrs, size_t n) {
  void *const *items = (void *const *)open_items(p);
  for (size_t i = 0; i < n && items; i++) {
    sv name = ((const vmem_hlo_instruction *)instrs[i])->name;
    if (hlo_index_get(&p->names, items, name, hlo_hash(name)))
      return true;
  }
  return false;
}

/* This half has ended at the cut: its names are final. Tells the second,
 * waits until it hands over its open callers (or ends), and fills them
 * in while it goes on. */
static bool first_half_done(parser *p, half *h) {
  pthread_mutex_lock(&h->mu);
  h->first_names = p->m->by_name;
  h->base_id = p->m->total_instrs + (p->suspended ? p->instrs.n - p->comp_from : 0);
  if (p->suspended) {
    h->first_index = &p->names;
    h->first_items = open_items(p);
    h->open_comp = p->suspended;
    p->open_comp = p->suspended; /* for the callees filled in below */
    p->open_shell = h->p.cont;
  }
  atomic_store_explicit(&h->first_ready, true, memory_order_release);
  while (!h->handed_over && !h->finished)
    pthread_cond_wait(&h->cv, &h->mu);
  bool over = h->handed_over;
  pthread_mutex_unlock(&h->mu);
  if (!over)
    return true; /* the second half ended first: all is checked after the join */
  for (size_t i = 0; i < h->numbered_comps.n; i++) {
    const vmem_hlo_computation *c = h->numbered_comps.v[i];
    for (uint32_t k = 0; k < c->ninstrs; k++)
      c->instrs[k]->id += (uint32_t)h->base_id;
  }
  for (size_t i = 0; i < h->numbered.n; i++)
    ((vmem_hlo_instruction *)h->numbered.v[i])->id += (uint32_t)h->base_id;
  return fill_open_callees(p, h->handed, h->nhanded) && fill_open_operands(p, h->handed_ops, h->nhanded_ops) &&
         !names_clash(p, h->handed_names.v, h->handed_names.n);
}

/* Can the second half join this one? Its computations' names must be new,
 * at most one ENTRY between them, and every callee it left open one of
 * this half's computations (the callees it found are its own, defined
 * before their callers, or this half's). Nothing of this half changes. */
static bool half_fits(parser *p, half *h) {
  vmem_hlo_computation *const *cs = (vmem_hlo_computation *const *)h->p.comps.v, *open = p->suspended;
  for (size_t i = 0; i < h->p.comps.n; i++)
    if (hlo_map_get(p->m->by_name, cs[i]->name) ||
        (open && cs[i]->name.len == open->name.len && hlo_bytes_eq(cs[i]->name.ptr, open->name.ptr, open->name.len)))
      return false;
  int entries = !!p->m->entry + !!h->m.entry + (open && open->is_entry);
  if (entries > 1)
    return false;
  if (open) { /* the open computation: a new name, one ROOT, no name twice, every operand found */
    vmem_hlo_computation *rest = h->p.cont;
    if (hlo_map_get(p->m->by_name, open->name) || (open->root && rest->root) || h->p.clash ||
        (!h->handed_over && names_clash(p, (void *const *)rest->instrs, rest->ninstrs)) ||
        !fill_open_operands(p, h->p.open_ops, h->p.nopen))
      return false;
  }
  return fill_open_callees(p, h->p.open_callees, h->p.ncallees);
}

/* The open computation, its two parts as one: the first's instructions
 * (still in p->instrs), then the rest's, which move into it. */
static bool join_open(parser *p, half *h) {
  vmem_hlo_computation *c = p->suspended, *rest = h->p.cont;
  size_t n1 = p->instrs.n - p->comp_from, n2 = rest->ninstrs;
  vmem_hlo_instruction **all = arena_alloc(p->a, (n1 + n2) * sizeof *all);
  if (!all)
    return hp_nomem(p);
  if (n1)
    memcpy(all, p->instrs.v + p->comp_from, n1 * sizeof *all);
  memcpy(all + n1, rest->instrs, n2 * sizeof *all);
  for (size_t k = 0; k < n2; k++)
    rest->instrs[k]->parent = c;
  c->instrs = all;
  c->ninstrs = (uint32_t)(n1 + n2);
  if (!c->root)
    c->root = rest->root ? rest->root : all[n1 + n2 - 1];
  c->thread = rest->thread;
  p->instrs.n = p->comp_from;
  hlo_index_clear(&p->names);
  p->m->total_instrs += n1;
  p->suspended = p->open_comp = NULL;
  return hp_computation_name(p, c) && hp_add_computation(p, c);
}

/* Joins the second half's computations, instructions and memory to this
 * one's, as if one parser had read them. */
static bool half_join(parser *p, half *h) {
  if (p->suspended && !join_open(p, h))
    return false;
  /* Instructions numbered from 0 move up, unless the hand-over did that. */
  size_t base_comp = p->comps.n, base_id = h->handed_over ? 0 : p->m->total_instrs;
  if (h->p.cont) /* the rest of the open computation, numbered first in the second half */
    for (uint32_t k = 0; k < h->p.cont->ninstrs && base_id; k++)
      h->p.cont->instrs[k]->id += (uint32_t)base_id;
  for (size_t i = 0; i < h->p.comps.n; i++) {
    vmem_hlo_computation *c = h->p.comps.v[i];
    bool oom = false;
    c->module = p->m;
    c->index = (uint32_t)(base_comp + i);
    for (uint32_t k = 0; k < c->ninstrs && base_id; k++)
      c->instrs[k]->id += (uint32_t)base_id;
    hlo_map_put(p->m->by_name, c, &oom);
    if (oom || !vec_push(p, &p->comps, c))
      return hp_nomem(p);
  }
  for (size_t i = 0; i < h->p.calling.n; i++)
    if (!vec_push(p, &p->calling, h->p.calling.v[i]))
      return false;
  if (h->m.entry)
    p->m->entry = h->m.entry;
  p->m->total_instrs += h->m.total_instrs;
  p->pos = h->p.pos;
  p->m->halves = true;
  arena_adopt(&p->m->a, &h->m.a);
  return true;
}

/* The first half's open computation, read on from its cut by this parser
 * alone. */
static bool resume_computation(parser *p) {
  vmem_hlo_computation *c = p->suspended;
  p->suspended = p->open_comp = NULL;
  p->open_shell = NULL;
  return hp_body_rest(p, c, p->body_open) && hp_computation_thread(p, c) && hp_computation_name(p, c) &&
         hp_add_computation(p, c);
}

/* ---- the module's computations ------------------------------------------------ */

bool hh_computations(parser *p) {
  half h;
  pthread_t th;
  size_t cut = p->m->cut;
  if (cut == HLO_CUT_AUTO)
    cut = halves_pay(p) ? hlo_find_cut(p->s, p->pos, p->len) : 0;
  else if (cut <= p->pos || cut >= p->len)
    cut = 0; /* HLO_CUT_NONE, or a forced cut outside the computations */
  while (cut && cut < p->len && (p->s[cut] == ' ' || p->s[cut] == '\t'))
    cut++; /* an instruction's indent: the first half stops where its first byte is */
  bool two = cut && cut < p->len && half_start(p, &h, cut, &th);
  if (two && h.p.cont)
    p->stop_at = cut; /* the cut is inside a computation: stop at that instruction */
  bool ok = hp_computations(p, two ? cut : SIZE_MAX);
  p->stop_at = SIZE_MAX;
  if (two) {
    /* Only a first half that ended at the cut, as the second half began
     * there, publishes its names: one that ran past it goes on alone. */
    bool fits = ok && p->pos == cut && !p->suspended == !h.p.cont && first_half_done(p, &h);
    pthread_join(th, NULL);
    if (fits && h.ok && half_fits(p, &h))
      ok = half_join(p, &h);
    half_drop(&h);
  }
  if (ok && p->suspended) /* the halves did not join: the open computation goes on here */
    ok = resume_computation(p);
  return ok && hp_computations(p, SIZE_MAX);
}

/* The first NUL byte of the text, or NULL. A text that will be read in
 * two halves is searched in two halves too: memory bound, but 4-5 ms of
 * 100 MB against 7 ms on one thread. */
typedef struct nul_search {
  const char *s, *at;
  size_t n;
} nul_search;

static void *nul_half(void *arg) {
  nul_search *h = arg;
  h->at = h->n ? memchr(h->s, '\0', h->n) : NULL;
  return NULL;
}

const char *hh_find_nul(const parser *p) {
  nul_search a = {p->s, NULL, p->len}, b = {p->s, NULL, 0};
  pthread_t th;
  bool two = halves_pay(p);
  if (two) {
    a.n = p->len / 2;
    b = (nul_search){p->s + a.n, NULL, p->len - a.n};
    two = pthread_create(&th, NULL, nul_half, &b) == 0;
    if (!two)
      a.n = p->len;
  }
  nul_half(&a);
  if (two)
    pthread_join(th, NULL);
  return a.at ? a.at : b.at;
}
