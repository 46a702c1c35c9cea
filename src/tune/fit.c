/*
 * fit.c — the block-size search (vmem_fit): every candidate of a template
 * evaluated, those that fit kept fastest first and as their Pareto front
 * (footprint against time), the smallest legal one and the fastest one
 * over the limit remembered. The CLI's `fit` renders this;
 * it does not search.
 */
#include <stdlib.h>
#include <string.h>

#include "../base/base.h"

/* The next permutation of a[0..n) in lexicographic order; false after the last. */
static bool next_permutation(int *a, int n) {
  int i = n - 2;
  while (i >= 0 && a[i] >= a[i + 1])
    i--;
  if (i < 0)
    return false;
  int j = n - 1;
  while (a[j] <= a[i])
    j--;
  int t = a[i];
  a[i] = a[j], a[j] = t;
  for (int l = i + 1, r = n - 1; l < r; l++, r--)
    t = a[l], a[l] = a[r], a[r] = t;
  return true;
}

const int *vmem_fit_decode(const vmem_fit_space *sp, uint64_t idx, int64_t *out, int *bufs) {
  if (!sp || !out)
    return NULL;
  const int *order = sp->norders > 1 ? sp->orders[idx % sp->norders] : NULL;
  idx /= sp->norders ? sp->norders : 1;
  for (size_t j = sp->nb; j-- > 0;) {
    if (bufs)
      bufs[j] = sp->choice[idx % sp->nchoice];
    idx /= sp->nchoice;
  }
  for (size_t p = sp->n; p-- > 0;) {
    out[p] = sp->values[p][idx % sp->count[p]];
    idx /= sp->count[p];
  }
  return order;
}

void vmem_fit_eval(const vmem_template *tpl, const vmem_fit_space *sp, uint64_t idx, vmem_eval *e) {
  if (!tpl || !sp || !e)
    return;
  int64_t v[VMEM_FIT_MAX_PARAMS];
  int bufs[VMEM_FIT_MAX_BUFFERED];
  const int *order = vmem_fit_decode(sp, idx, v, bufs);
  vmem_template_eval_order(tpl, v, sp->nb ? bufs : NULL, order, e);
}

/* Every order of the axes that can move (an axis an output does not
 * follow is a reduction and keeps its place), the kernel's first. */
static void grid_orders(const vmem_template *tpl, bool all, vmem_fit_space *sp) {
  sp->rank = vmem_template_grid_rank(tpl);
  if (sp->rank > VMEM_KERNEL_MAX_RANK)
    sp->rank = VMEM_KERNEL_MAX_RANK;
  int movable[VMEM_KERNEL_MAX_RANK], nm = 0;
  for (size_t a = 0; a < sp->rank; a++) {
    sp->orders[0][a] = (int)a;
    if (vmem_template_axis_reorderable(tpl, a))
      movable[nm++] = (int)a;
  }
  sp->norders = 1;
  sp->want_orders = all;
  int perm[VMEM_KERNEL_MAX_RANK];
  memcpy(perm, movable, sizeof perm);
  while (all && nm > 1 && sp->norders < VMEM_FIT_MAX_ORDERS && next_permutation(perm, nm)) {
    int *o = sp->orders[sp->norders++];
    memcpy(o, sp->orders[0], sizeof sp->orders[0]);
    for (int m = 0; m < nm; m++)
      o[movable[m]] = perm[m];
  }
}

/* The values of parameter p: the caller's, else the template's. */
static vmem_status param_values(const vmem_template *tpl, const vmem_fit_options *o, size_t p, vmem_fit_space *sp,
                                const vmem_allocator *alloc, vmem_error *err) {
  if (!(sp->values[p] = vmem__alloc(alloc, VMEM_FIT_MAX_VALUES * sizeof **sp->values))) {
    err_set(err, VMEM_ERR_NOMEM, 0, "out of memory");
    return VMEM_ERR_NOMEM;
  }
  size_t n;
  if (o->values[p]) {
    n = o->counts[p] < VMEM_FIT_MAX_VALUES ? o->counts[p] : VMEM_FIT_MAX_VALUES;
    memcpy(sp->values[p], o->values[p], n * sizeof **sp->values);
  } else {
    n = o->allow_padding ? vmem_template_padded_values(tpl, p, sp->values[p], VMEM_FIT_MAX_VALUES)
                         : vmem_template_default_values(tpl, p, sp->values[p], VMEM_FIT_MAX_VALUES);
  }
  sp->count[p] = n < VMEM_FIT_MAX_VALUES ? n : VMEM_FIT_MAX_VALUES;
  if (!sp->count[p]) {
    err_set(err, VMEM_ERR_RANGE, 0, "%s: %s", vmem_template_param_name(tpl, p),
            o->values[p] ? "no values given" : "no legal value: it sets no array dimension the rules allow");
    return VMEM_ERR_RANGE;
  }
  return VMEM_OK;
}

static vmem_status build_space(const vmem_template *tpl, const vmem_fit_options *o, vmem_fit_space *sp,
                               const vmem_allocator *alloc, vmem_error *err) {
  sp->n = vmem_template_param_count(tpl);
  if (sp->n > VMEM_FIT_MAX_PARAMS) {
    err_set(err, VMEM_ERR_RANGE, 0, "more than %d parameters", VMEM_FIT_MAX_PARAMS);
    return VMEM_ERR_RANGE;
  }
  for (size_t p = sp->n; p < VMEM_FIT_MAX_PARAMS; p++)
    if (o->values[p]) {
      err_set(err, VMEM_ERR_ARGUMENT, 0, "values for parameter %zu of %zu", p, sp->n);
      return VMEM_ERR_ARGUMENT;
    }
  sp->padding = o->allow_padding;
  sp->room = o->room_bytes;
  sp->choice[sp->nchoice++] = 2;
  if (o->buffers)
    sp->choice[sp->nchoice++] = 1;
  if (o->color)
    sp->choice[sp->nchoice++] = 0;
  sp->nb = sp->nchoice > 1 ? vmem_template_buffer_choices(tpl) : 0;
  if (sp->nb > VMEM_FIT_MAX_BUFFERED)
    sp->nb = VMEM_FIT_MAX_BUFFERED;
  grid_orders(tpl, o->grid_order, sp);
  sp->total = sp->norders;
  for (size_t j = 0; j < sp->nb; j++)
    sp->total *= sp->nchoice;
  for (size_t p = 0; p < sp->n; p++) {
    vmem_status st = param_values(tpl, o, p, sp, alloc, err);
    if (st != VMEM_OK)
      return st;
    if (sp->total > VMEM_FIT_MAX_CANDIDATES / sp->count[p]) {
      err_set(err, VMEM_ERR_RANGE, 0, "more than 4e9 candidates: narrow the search");
      return VMEM_ERR_RANGE;
    }
    sp->total *= sp->count[p];
  }
  return VMEM_OK;
}

/* Those that fit at the body's ceiling before those at risk; then fastest
 * first; ties to less VMEM, then to the index (one order always). A
 * candidate that fits only with the body's estimate is "at risk" in check:
 * the compiler may refuse it (docs/kernels.md, "The ceiling"), so a faster
 * one at risk does not displace a safe best. */
static int by_time(const void *a, const void *b) {
  const vmem_fit_candidate *x = a, *y = b;
  if (x->at_risk != y->at_risk)
    return x->at_risk ? 1 : -1;
  if (x->time_s != y->time_s)
    return x->time_s < y->time_s ? -1 : 1;
  if (x->needed_bytes != y->needed_bytes)
    return x->needed_bytes < y->needed_bytes ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

/* Smallest first; ties to the faster, then to the index. */
static int by_bytes(const void *a, const void *b) {
  const vmem_fit_candidate *x = a, *y = b;
  if (x->needed_bytes != y->needed_bytes)
    return x->needed_bytes < y->needed_bytes ? -1 : 1;
  if (x->time_s != y->time_s)
    return x->time_s < y->time_s ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

/* The Pareto front of the candidates that fit: sorted by footprint, each
 * one faster than every smaller one (so no other is both smaller and
 * faster). */
static bool pareto(vmem_fit_result *r) {
  if (!r->fitting)
    return true;
  vmem_fit_candidate *f = vmem__alloc(&r->alloc, r->fitting * sizeof *f);
  if (!f)
    return false;
  memcpy(f, r->fit, r->fitting * sizeof *f);
  qsort(f, r->fitting, sizeof *f, by_bytes);
  size_t n = 0;
  for (size_t i = 0; i < r->fitting; i++)
    if (!n || f[i].time_s < f[n - 1].time_s)
      f[n++] = f[i];
  r->front = f, r->nfront = n;
  return true;
}

static bool keep(vmem_fit_result *r, size_t *cap, vmem_fit_candidate c) {
  if (r->fitting == *cap) {
    size_t bigger = *cap ? 2 * *cap : 1024;
    vmem_fit_candidate *n = vmem__alloc(&r->alloc, bigger * sizeof *n);
    if (!n)
      return false;
    if (r->fitting)
      memcpy(n, r->fit, r->fitting * sizeof *n);
    vmem__free(&r->alloc, r->fit);
    r->fit = n, *cap = bigger;
  }
  r->fit[r->fitting++] = c;
  return true;
}

static bool search(const vmem_template *tpl, uint64_t limit, vmem_fit_result *r) {
  const vmem_fit_space *sp = &r->space;
  size_t cap = 0;
  for (uint64_t idx = 0; idx < sp->total; idx++) {
    vmem_eval e;
    vmem_fit_eval(tpl, sp, idx, &e);
    r->considered++;
    if (!e.legal)
      continue;
    if (e.edge_waste > 0 && !sp->padding) {
      r->overhang++; /* a block that overhangs its array: only with allow_padding */
      continue;
    }
    r->legal++;
    vmem_fit_candidate c = {idx, e.needed_bytes, e.time_s, e.ceiling_bytes,
                            e.needed_bytes <= limit && (e.ceiling_bytes > limit || e.body_unread)};
    if (e.program_bytes > sp->room)
      continue; /* the colored arrays do not fit the VMEM the scoped limit leaves */
    if (!r->any_legal || c.needed_bytes < r->smallest.needed_bytes)
      r->smallest = c;
    r->any_legal = true;
    if (e.needed_bytes > limit) {
      if (!r->over++ || c.time_s < r->fastest_over.time_s)
        r->fastest_over = c;
      continue;
    }
    if (!keep(r, &cap, c))
      return false;
    r->at_risk += c.at_risk;
  }
  if (r->fitting)
    qsort(r->fit, r->fitting, sizeof *r->fit, by_time);
  return pareto(r);
}

vmem_status vmem_fit(const vmem_template *tpl, const vmem_fit_options *opt, vmem_fit_result *out,
                     const vmem_allocator *alloc, vmem_error *err) {
  if (!tpl || !opt || !out) {
    err_set(err, VMEM_ERR_ARGUMENT, 0, "a template, options and a result are needed");
    return VMEM_ERR_ARGUMENT;
  }
  err_clear(err);
  memset(out, 0, sizeof *out);
  if (alloc)
    out->alloc = *alloc;
  vmem_status st = build_space(tpl, opt, &out->space, &out->alloc, err);
  if (st == VMEM_OK && !search(tpl, opt->limit_bytes, out)) {
    err_set(err, VMEM_ERR_NOMEM, 0, "out of memory");
    st = VMEM_ERR_NOMEM;
  }
  if (st != VMEM_OK)
    vmem_fit_free(out);
  return st;
}

void vmem_fit_free(vmem_fit_result *r) {
  if (!r)
    return;
  for (size_t p = 0; p < VMEM_FIT_MAX_PARAMS; p++) {
    vmem__free(&r->alloc, r->space.values[p]);
    r->space.values[p] = NULL;
  }
  vmem__free(&r->alloc, r->fit);
  vmem__free(&r->alloc, r->front);
  r->fit = NULL, r->fitting = 0;
  r->front = NULL, r->nfront = 0;
}
