/*
 * cmd_kernel.c — `vmemscope check` on a Pallas kernel (Mosaic MLIR or a
 * JSON kernel spec): the allocations, the limit in force, the verdict, the
 * compiler's own E1001 message when it does not fit, and the remedies.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

typedef struct kreport {
  const char *path, *format;
  const vmem_kernel *k;
  const vmem_target *t;
  vmem_footprint f;
  vmem_limits l;
  vmem_remedies rem;
  vmem_kernel_cost_report cost;
  bool has_cost;
  vmem_verdict v; /* the library's decision; this file renders it */
} kreport;

/* Operand i's allocation in the footprint, or NULL (ANY, SMEM, semaphores). */
static const vmem_allocation *alloc_of(const vmem_footprint *f, size_t i) {
  const vmem_allocation *al = NULL;
  for (size_t a = 0; a < f->count; a++)
    if (f->allocs[a].operand == i)
      al = &f->allocs[a];
  return al;
}

static const char *role_name(vmem_operand_role r) {
  static const char *const n[] = {"prefetch", "input", "output", "scratch"};
  return n[r];
}

static const char *space_name(vmem_memory_space s) {
  static const char *const n[] = {"vmem", "any", "smem", "semaphore"};
  return n[s];
}

/* "(i, 0)" from the index map: grid axis names, a constant's value, ? for unknown. */
static void index_map_text(const vmem_kernel *k, const vmem_operand *o, char *buf, size_t cap) {
  size_t n = 0;
  buf[n++] = '(';
  for (size_t d = 0; d < o->rank && n + 8 < cap; d++) {
    int a = o->index_axis[d];
    n += (size_t)snprintf(buf + n, cap - n, "%s", d ? ", " : "");
    if (a >= 0)
      n += (size_t)snprintf(buf + n, cap - n, "%s", vmem_kernel_grid_axis_name(k, (size_t)a));
    else if (a == VMEM_INDEX_CONSTANT) /* the constant's value: "c" read like an axis named c */
      n += (size_t)snprintf(buf + n, cap - n, "%lld", (long long)o->index_const[d]);
    else
      n += (size_t)snprintf(buf + n, cap - n, "?");
  }
  snprintf(buf + n, cap - n, ")");
}

/* The operand's block as printed: dtype[dims] with the padding layout. */
static char *block_str(const vmem_kernel *k, const vmem_target *t, const vmem_operand *o) {
  (void)k;
  vmem_error err;
  vmem_shape *laid = vmem_shape_with_tpu_layout(o->block, t, NULL, &err);
  char *s = cli_shape_text(laid ? laid : o->block);
  vmem_shape_free(laid);
  return s;
}

/* The compiler's E1001 message for this kernel, in its words and numbers. */
static void print_e1001(const kreport *r, FILE *out) {
  char x[32], y[32], z[32];
  const vmem_shape *res = vmem_kernel_result_shape(r->k);
  vmem_error err;
  vmem_shape *laid = res ? vmem_shape_with_tpu_layout(res, r->t, NULL, &err) : NULL;
  char *shape = laid ? cli_shape_text(laid) : NULL;
  vmem_format_bytes((int64_t)r->f.scoped_bytes, x, sizeof x);
  vmem_format_bytes((int64_t)r->v.limit_bytes, y, sizeof y);
  vmem_format_bytes((int64_t)(r->f.scoped_bytes - r->v.limit_bytes), z, sizeof z);
  fprintf(
      out,
      "predicted: RESOURCE_EXHAUSTED: Ran out of memory in memory space vmem while allocating on stack for %%%s = %s "
      "custom-call(...), custom_call_target=\"tpu_custom_call\" ... Scoped allocation with size %s and limit %s "
      "exceeded scoped vmem limit by %s.\n",
      vmem_kernel_name(r->k), shape ? shape : "(...)", x, y, z);
  free(shape);
  vmem_shape_free(laid);
}

static void print_allocations(const kreport *r) {
  static const int right[] = {1, 0, 0, 0, 0, 0, 1, 1, 1, 1};
  cli_table tb;
  table_init(&tb, 10, right);
  table_add(&tb, "#", "OPERAND", "ROLE", "SPACE", "BLOCK", "INDEX", "BUF", "BYTES", "UNPADDED", "OFFSET");
  for (size_t i = 0; i < vmem_kernel_operand_count(r->k); i++) {
    const vmem_operand *o = vmem_kernel_operand(r->k, i);
    const vmem_allocation *al = alloc_of(&r->f, i);
    char num[24], idx[64], buf[16], by[32], un[32], of[32];
    snprintf(num, sizeof num, "%zu", i);
    index_map_text(r->k, o, idx, sizeof idx);
    snprintf(buf, sizeof buf, "%d", al ? al->buffers : 0);
    char *blk = o->block ? block_str(r->k, r->t, o) : NULL;
    bool io = o->role == VMEM_ROLE_INPUT || o->role == VMEM_ROLE_OUTPUT;
    const char *role = io && !vmem_kernel_roles_known(r->k) ? "in/out" : role_name(o->role);
    bool windowed = io && o->block && o->space == VMEM_SPACE_VMEM && vmem_kernel_grid_rank(r->k);
    bool pre = al && al->kind == VMEM_ALLOC_PREFETCHED; /* off the stack: no buffer, no offset */
    table_add(&tb, num, o->name, role, space_name(o->space), blk ? blk : "semaphore", windowed ? idx : "",
              al && !pre ? buf : "-", al ? cli_human(by, sizeof by, al->bytes) : "-",
              al ? cli_human(un, sizeof un, al->unpadded_bytes) : "-",
              pre  ? (o->role == VMEM_ROLE_OUTPUT ? "in VMEM" : "prefetched")
              : al ? (snprintf(of, sizeof of, "%" PRIu64, al->offset), of)
                   : "-");
    free(blk);
  }
  table_print(&tb, CLI_OUT);
  table_free(&tb);
}

/* The roofline of the kernel as it is (the model `fit` ranks by). */
static void print_cost(const kreport *r) {
  if (!r->has_cost)
    return;
  const vmem_eval *e = &r->cost.eval;
  char t[32], h[32];
  fprintf(CLI_OUT, "cost (modelled, docs/cost-model.md): %" PRIu64 " steps, %.4g FLOP (%s%s), %s HBM, %s, %s-bound\n",
          e->grid_steps, e->flops, vmem_flops_source_name(r->cost.flops_source),
          r->cost.body_loops ? "; the body loops, counted once" : "", cli_human(h, sizeof h, (uint64_t)e->hbm_bytes),
          cli_seconds(t, sizeof t, e->time_s), e->compute_bound ? "compute" : "hbm");
}

static void print_totals(const kreport *r) {
  char b[48], lim[48], phys[32];
  fprintf(CLI_OUT, "\nscoped allocation (windows + scratch; exact, as the compiler prints it)  %s\n",
          cli_bytes(b, sizeof b, r->f.scoped_bytes));
  for (size_t a = 0; a < r->f.count; a++) {
    const vmem_allocation *al = &r->f.allocs[a];
    if (al->kind == VMEM_ALLOC_INTERNAL_SCRATCH)
      fprintf(CLI_OUT, "internal scratch (%s)  %s  at offset %" PRIu64 "  [headroom]\n", al->note,
              cli_bytes(b, sizeof b, al->bytes), al->offset);
    if (al->kind == VMEM_ALLOC_MODELLED)
      fprintf(CLI_OUT, "modelled: %s  %s  at offset %" PRIu64 "  [estimate%s, not in the exact figure]\n", al->note,
              cli_bytes(b, sizeof b, al->bytes), al->offset,
              al->outside_domain ? "; a pattern or outside its rule's measured shapes" : "");
    if (al->kind == VMEM_ALLOC_PREFETCHED) {
      const vmem_operand *po = vmem_kernel_operand(r->k, al->operand);
      bool out = po->role == VMEM_ROLE_OUTPUT;
      if (po->array && vmem_shape_has_tiles(po->array)) /* the module's own layout says it */
        fprintf(CLI_OUT,
                "%s: %s (%s) is in VMEM (S(1)) %s the kernel, as the module lays it out, and %s in place, no window  "
                "[program-scoped, not in the scoped figure]\n",
                out ? "in VMEM" : "prefetched", po->name, cli_bytes(b, sizeof b, al->bytes), out ? "after" : "before",
                out ? "written" : "read");
      else
        fprintf(CLI_OUT,
                "prefetched: %s (%s) is copied whole into VMEM before the kernel and read in place, no window, as "
                "libtpu does on %s for a program's input that fits its budget  [program-scoped, not in the scoped "
                "figure; inside a larger program, where %s is not an input, its windows count]\n",
                po->name, cli_bytes(b, sizeof b, al->bytes), vmem_target_name(r->t), po->name);
    }
  }
  if (r->f.body_values_unread)
    fprintf(CLI_OUT,
            "not modelled: %zu vector value%s of the body the model cannot size (a dynamic or unknown type, or past "
            "its room), left out of the estimate and the ceiling\n",
            r->f.body_values_unread, r->f.body_values_unread == 1 ? "" : "s");
  if (r->f.smem_bytes)
    fprintf(CLI_OUT, "SMEM (scalar prefetch and SMEM operands)  %s of %s\n", cli_bytes(b, sizeof b, r->f.smem_bytes),
            cli_human(phys, sizeof phys, vmem_target_u64(r->t, VMEM_FACT_SMEM_BYTES)));
  fprintf(CLI_OUT, "limit  %s from the %s", cli_bytes(lim, sizeof lim, r->v.limit_bytes),
          vmem_limit_origin_name(r->l.origin));
  fprintf(CLI_OUT, " (physical VMEM %s)\n", cli_human(phys, sizeof phys, r->l.physical_bytes));
  for (size_t i = 0; i < r->l.warning_count; i++)
    fprintf(CLI_OUT, "warning: %s\n", r->l.warnings[i].message);
  print_cost(r);
}

static void print_verdict(const kreport *r) {
  char b[32], c[32], d[32], e[32];
  uint64_t lim = r->v.limit_bytes, s = r->f.scoped_bytes;
  char bar[256];
  fprintf(CLI_OUT, "scoped %s %s of %s\n", cli_usage_bar(bar, sizeof bar, s, lim, 40), cli_human(b, sizeof b, s),
          cli_human(c, sizeof c, lim));
  if (r->v.smem_over)
    fprintf(CLI_OUT,
            "verdict: %sDOES NOT FIT in SMEM%s — scalar prefetch and SMEM operands take %s of %s, %s over "
            "(the compiler's \"Ran out of memory in memory space smem\")\n",
            cli_tone(CLI_BAD), cli_tone(CLI_RESET), cli_human(b, sizeof b, r->v.smem_bytes),
            cli_human(c, sizeof c, r->v.smem_capacity_bytes),
            cli_human(d, sizeof d, r->v.smem_bytes - r->v.smem_capacity_bytes));
  /* With SMEM over, the scoped line is not the verdict: it says which part fits. */
  const char *head = r->v.smem_over ? "scoped VMEM" : "verdict";
  if (r->v.scoped == VMEM_VERDICT_E1001) {
    fprintf(CLI_OUT, "%s: %sDOES NOT FIT%s — %s over the limit (E1001)\n", head, cli_tone(CLI_BAD), cli_tone(CLI_RESET),
            cli_human(b, sizeof b, s - lim));
  } else if (r->v.scoped == VMEM_VERDICT_LIKELY_E1001) {
    fprintf(CLI_OUT,
            "%s: %slikely E1001 (modelled: body values)%s — windows and scratch fit by %s, but with the "
            "body's values (%s, modelled) the kernel is %s over\n",
            head, cli_tone(CLI_BAD), cli_tone(CLI_RESET), cli_human(b, sizeof b, lim - s),
            cli_human(c, sizeof c, r->f.modelled_bytes), cli_human(d, sizeof d, s + r->f.modelled_bytes - lim));
  } else if (r->v.scoped == VMEM_VERDICT_AT_RISK && r->v.estimate_over) {
    fprintf(CLI_OUT,
            "%s: %sat risk%s — windows and scratch fit by %s; the body's estimated values (%s, modelled) put it %s "
            "over, but only through rules used as patterns or outside the shapes they were measured on; with the "
            "values the rules inside their domain size (%s) it fits: the model cannot say which\n",
            head, cli_tone(CLI_WARN), cli_tone(CLI_RESET), cli_human(b, sizeof b, lim - s),
            cli_human(c, sizeof c, r->f.modelled_bytes), cli_human(d, sizeof d, r->v.predicted_bytes - lim),
            cli_human(e, sizeof e, r->v.firm_bytes - s));
  } else if (r->v.scoped == VMEM_VERDICT_AT_RISK && r->v.ceiling_bytes <= lim) {
    fprintf(CLI_OUT,
            "%s: %sfits by %s with the values the model sizes, but %zu it cannot size are left out — at risk%s\n", head,
            cli_tone(CLI_WARN), cli_human(b, sizeof b, lim - r->v.ceiling_bytes), r->f.body_values_unread,
            cli_tone(CLI_RESET));
  } else if (r->v.scoped == VMEM_VERDICT_AT_RISK) {
    fprintf(CLI_OUT,
            "%s: %sfits by %s with the body's values (%s, modelled), but not at their ceiling (%s, %s over) — "
            "at risk: the model's estimate decides it%s\n",
            head, cli_tone(CLI_WARN), cli_human(b, sizeof b, lim - s - r->f.modelled_bytes),
            cli_human(c, sizeof c, r->f.modelled_bytes), cli_human(d, sizeof d, r->f.modelled_high_bytes),
            cli_human(e, sizeof e, r->v.ceiling_bytes - lim), cli_tone(CLI_RESET));
  } else if (r->f.modelled_high_bytes) {
    if (r->f.modelled_bytes)
      cli_human(c, sizeof c, r->f.modelled_bytes);
    fprintf(CLI_OUT,
            "%s: %sfits%s, %s to spare (the body's values: %s estimated, %s at the model's ceiling, which fits "
            "too; the internal scratch lies beside the limit)\n",
            head, cli_tone(CLI_OK), cli_tone(CLI_RESET), cli_human(b, sizeof b, lim - s - r->f.modelled_bytes),
            r->f.modelled_bytes ? c : "none", cli_human(d, sizeof d, r->f.modelled_high_bytes));
  } else {
    fprintf(CLI_OUT, "%s: %sfits%s, %s to spare (no modelled values; the internal scratch lies beside the limit)\n",
            head, cli_tone(CLI_OK), cli_tone(CLI_RESET), cli_human(b, sizeof b, lim - s));
  }
  if (!vmem_kernel_body_modelled(r->k) && r->v.scoped != VMEM_VERDICT_E1001)
    fprintf(CLI_OUT, "(the body is not modelled: a spec has none, so values it computes in VMEM are not counted)\n");
}

/* The body's largest charged value: what to shrink when the exact part fits. */
static const vmem_allocation *largest_modelled(const kreport *r) {
  const vmem_allocation *big = NULL;
  for (size_t a = 0; a < r->f.count; a++)
    if (r->f.allocs[a].kind == VMEM_ALLOC_MODELLED && (!big || r->f.allocs[a].bytes > big->bytes))
      big = &r->f.allocs[a];
  return big;
}

static void print_body_remedy(const kreport *r) {
  const vmem_allocation *big = largest_modelled(r);
  if (!big)
    return;
  char b[48];
  if (big->unrolled) { /* the copies' line (footprint.c) */
    fprintf(CLI_OUT,
            "0. the body's largest term, %s (%s, modelled): a Python loop, one copy per head, whose copies the "
            "compiler interleaves; a lax.fori_loop over them keeps one live, or fewer of them per grid step, and a "
            "smaller block on the axes their values span shrinks each\n",
            big->note, cli_bytes(b, sizeof b, big->bytes));
    return;
  }
  fprintf(CLI_OUT,
          "0. the body's largest value, %s (%s, modelled): it follows the blocks, so a smaller block on the "
          "axes it spans shrinks it; or compute it in a loop over tiles (lax.fori_loop over row blocks) so that no "
          "whole copy is live\n",
          big->note, cli_bytes(b, sizeof b, big->bytes));
  if (big->alike > 1)
    fprintf(CLI_OUT,
            "   the body unrolls %zu copies of it (a Python loop, one per head), charged as held at once: "
            "a lax.fori_loop over them keeps one live, or fewer of them per grid step\n",
            big->alike);
}

/* The per-kernel limit to ask for, and what it holds: the body's values at
 * their ceiling where that is within physical VMEM (remedy.c). */
static void print_request(const kreport *r) {
  const vmem_remedies *m = &r->rem;
  char c[48], d[48], e[48];
  bool body = r->f.modelled_bytes || r->f.modelled_high_bytes, wider = m->ceiling_bytes > m->needed_bytes;
  uint64_t estimate = vmem_request_bytes(m->needed_bytes);
  fprintf(CLI_OUT, "pltpu.CompilerParams(vmem_limit_bytes=%" PRIu64 ")  # %s: ", m->request_bytes,
          cli_human(c, sizeof c, m->request_bytes));
  if (m->request_estimate)
    fprintf(CLI_OUT,
            "windows + scratch + the body's estimated values, rounded up to a MiB (the ceiling, each rule at "
            "its worst, is %s)",
            cli_human(d, sizeof d, m->ceiling_bytes));
  else if (m->request_at_ceiling && wider)
    fprintf(CLI_OUT, "windows + scratch + the body's values at their ceiling, rounded up to a MiB%s%s%s",
            estimate != m->request_bytes ? " (the estimate needs " : "",
            estimate != m->request_bytes ? cli_human(d, sizeof d, estimate) : "",
            estimate != m->request_bytes ? ")" : "");
  else if (wider && m->request_within_physical)
    fprintf(CLI_OUT,
            "all of physical VMEM: with the body's values at their ceiling (%s) it is above it; the estimate "
            "needs %s; at risk",
            cli_human(d, sizeof d, m->ceiling_bytes), cli_human(e, sizeof e, estimate));
  else
    fprintf(CLI_OUT, "windows + scratch%s, rounded up to a MiB", body ? " + the body's modelled values" : "");
  fprintf(CLI_OUT, "; %s\n",
          m->request_within_physical ? "within physical VMEM"
                                     : "ABOVE physical VMEM: the program-level 'Used X of Y vmem' error would follow");
}

/* At risk: it fits with the estimate; these make it fit at the ceiling. */
static void print_risk_remedies(const kreport *r) {
  const vmem_remedies *m = &r->rem;
  char b[48], c[48];
  if (r->v.ceiling_bytes <= r->v.limit_bytes) { /* at risk only for the values it cannot size */
    fprintf(CLI_OUT,
            "\nto be sure of it: compile it once; the model cannot size %zu of the body's values (their types), so "
            "no limit it asks for would be sure either\n",
            r->f.body_values_unread);
    return;
  }
  if (r->v.estimate_over) {
    fprintf(CLI_OUT, "\nto be sure of it (the estimate is over, the rules inside their domain fit):\n");
    fprintf(CLI_OUT, "1. compile it once; if the compiler refuses it, request the estimate's need: ");
    print_request(r);
    fprintf(CLI_OUT, "2. search blocks that fit with the estimate: vmemscope fit\n");
    return;
  }
  fprintf(CLI_OUT, "\nto be sure of it (the estimate fits, the ceiling does not):\n");
  if (m->request_at_ceiling) {
    fprintf(CLI_OUT, "1. request the limit of its ceiling: ");
    print_request(r);
  } else {
    fprintf(CLI_OUT, "1. no limit holds its ceiling (%s; physical VMEM is %s): smaller blocks are the way\n",
            cli_human(b, sizeof b, m->ceiling_bytes),
            cli_human(c, sizeof c, vmem_target_u64(r->t, VMEM_FACT_VMEM_BYTES)));
  }
  fprintf(CLI_OUT, "2. search blocks that fit at the ceiling: vmemscope fit (at-risk candidates rank last)\n");
}

static void print_remedies(const kreport *r) {
  const vmem_remedies *m = &r->rem;
  char b[48], c[48];
  fprintf(CLI_OUT,
          "\nremedies, in this order: smaller blocks, a per-kernel limit, Buffered(1), coloring, the global flag:\n");
  if (r->v.scoped == VMEM_VERDICT_LIKELY_E1001)
    print_body_remedy(r);
  fprintf(CLI_OUT, "1. smaller blocks (each alone fits the limit%s):\n",
          r->f.modelled_high_bytes || r->f.modelled_bytes
              ? " with the body's estimated values held as they are; most shrink with the blocks, and vmemscope fit "
                "sizes them at each"
              : "");
  if (!m->nshrink)
    fprintf(CLI_OUT, "   none found by halving a block dimension alone; combine them, or use the steps below\n");
  for (size_t i = 0; i < m->nshrink; i++) {
    const vmem_shrink *s = &m->shrink[i];
    const vmem_operand *o = vmem_kernel_operand(r->k, s->operand);
    if (s->param_name)
      fprintf(CLI_OUT, "   %s: %" PRId64 " -> %" PRId64 "  (every block using it), scoped %s\n", s->param_name, s->from,
              s->to, cli_bytes(b, sizeof b, s->scoped_bytes));
    else
      fprintf(CLI_OUT,
              "   %s block dim %zu: %" PRId64 " -> %" PRId64 " (the grid axis it follows grows to match), scoped %s\n",
              o->name, s->dim, s->from, s->to, cli_bytes(b, sizeof b, s->scoped_bytes));
  }
  fprintf(CLI_OUT, "2. request the limit this kernel needs: ");
  print_request(r);
  fprintf(CLI_OUT,
          "3. single-buffer inputs whose block does not move along the innermost grid axis (pl.Buffered(1)):\n");
  if (!m->nbuffered1)
    fprintf(CLI_OUT, "   none\n");
  for (size_t i = 0; i < m->nbuffered1; i++)
    fprintf(CLI_OUT, "   %s: saves %s\n", vmem_kernel_operand(r->k, m->buffered1[i].operand)->name,
            cli_bytes(b, sizeof b, m->buffered1[i].saved_bytes));
  fprintf(CLI_OUT,
          "4. color an input to VMEM (pltpu.with_memory_space_constraint): its windows leave the scoped region, the "
          "whole array becomes program-scoped:\n");
  if (!m->ncoloring && !m->ncolor_too_big)
    fprintf(CLI_OUT, "   no windowed VMEM input\n");

  for (size_t i = 0; i < m->ncoloring; i++) {
    const vmem_coloring *co = &m->coloring[i];
    if (co->program_added_bytes >= 0)
      fprintf(CLI_OUT, "   %s: scoped -%s, program-scoped +%s\n", vmem_kernel_operand(r->k, co->operand)->name,
              cli_human(b, sizeof b, co->scoped_saved_bytes),
              cli_human(c, sizeof c, (uint64_t)co->program_added_bytes));
    else
      fprintf(CLI_OUT, "   %s: scoped -%s, program-scoped + the whole array (its shape is not in this input)\n",
              vmem_kernel_operand(r->k, co->operand)->name, cli_human(b, sizeof b, co->scoped_saved_bytes));
  }
  if (m->ncolor_too_big)
    fprintf(CLI_OUT,
            "   (%zu input%s left out: the whole array exceeds physical VMEM, so it cannot be colored there)\n",
            m->ncolor_too_big, m->ncolor_too_big == 1 ? "" : "s");
  fprintf(
      CLI_OUT,
      "5. if many kernels are over: raise the global limit, LIBTPU_INIT_ARGS=--xla_tpu_scoped_vmem_limit_kib=%" PRIu64
      "\n",
      m->request_bytes / 1024);
}

/* Every operand as the kernel declares it: what a Python caller compares
 * with the BlockSpecs it wrote. */
static json_t *json_operands(const kreport *r) {
  json_t *a = json_array();
  for (size_t i = 0; i < vmem_kernel_operand_count(r->k); i++) {
    const vmem_operand *o = vmem_kernel_operand(r->k, i);
    json_t *e = json_object(), *blk = json_array(), *idx = json_array();
    json_object_set_new(e, "name", json_string(o->name));
    json_object_set_new(e, "role", json_string(role_name(o->role)));
    json_object_set_new(e, "space", json_string(space_name(o->space)));
    json_object_set_new(e, "dtype", o->block ? json_string(vmem_dtype_name(vmem_shape_dtype(o->block))) : json_null());
    for (size_t d = 0; o->block && d < o->rank; d++) {
      json_array_append_new(blk, json_integer(vmem_shape_dim(o->block, d)));
      int ax = o->index_axis[d];
      json_array_append_new(idx, ax >= 0                     ? json_string(vmem_kernel_grid_axis_name(r->k, (size_t)ax))
                                 : ax == VMEM_INDEX_CONSTANT ? json_integer(o->index_const[d])
                                                             : json_null());
    }
    json_object_set_new(e, "block", o->block ? blk : (json_decref(blk), json_null()));
    bool windowed = (o->role == VMEM_ROLE_INPUT || o->role == VMEM_ROLE_OUTPUT) && o->block;
    json_object_set_new(e, "index", windowed ? idx : (json_decref(idx), json_null()));
    json_t *arr = json_null(); /* the whole array, where the kernel knows it */
    for (size_t d = 0; o->array && d < vmem_shape_rank(o->array); d++) {
      if (!d)
        arr = json_array();
      json_array_append_new(arr, json_integer(vmem_shape_dim(o->array, d)));
    }
    json_object_set_new(e, "array", arr);
    const vmem_allocation *al = alloc_of(&r->f, i);
    bool pre = al && al->kind == VMEM_ALLOC_PREFETCHED;
    json_object_set_new(e, "buffers", /* as allocated: 0 for ANY, SMEM, semaphores and prefetched inputs */
                        json_integer(al && !pre ? al->buffers : 0));
    json_object_set_new(e, "prefetched", json_boolean(pre));
    json_array_append_new(a, e);
  }
  return a;
}

static json_t *json_cost(const vmem_kernel_cost_report *c) {
  const vmem_eval *e = &c->eval;
  return json_pack("{s:I, s:f, s:s, s:f, s:b, s:f, s:f, s:s, s:f}", "grid_steps", (json_int_t)e->grid_steps, "flops",
                   e->flops, "flops_source", vmem_flops_source_name(c->flops_source), "transcendentals",
                   c->transcendentals, "body_loops", c->body_loops, "hbm_bytes", e->hbm_bytes, "time_s", e->time_s,
                   "bound", e->compute_bound ? "compute" : "hbm", "intensity", e->intensity);
}

static json_t *json_kernel(const kreport *r) {
  json_t *o = json_object(), *allocs = json_array();
  json_object_set_new(o, "name", json_string(vmem_kernel_name(r->k)));
  json_object_set_new(o, "format", json_string(r->format));
  json_object_set_new(o, "target", json_string(vmem_target_name(r->t)));
  json_t *grid = json_array();
  for (size_t g = 0; g < vmem_kernel_grid_rank(r->k); g++)
    json_array_append_new(grid, vmem_kernel_grid_bound(r->k, g) == VMEM_GRID_DYNAMIC
                                    ? json_null() /* known only at run time */
                                    : json_integer(vmem_kernel_grid_bound(r->k, g)));
  json_object_set_new(o, "grid", grid);
  json_object_set_new(o, "scoped_bytes", json_integer((json_int_t)r->f.scoped_bytes));
  json_object_set_new(o, "internal_scratch_bytes", json_integer((json_int_t)r->f.internal_scratch_bytes));
  json_object_set_new(o, "modelled_bytes", json_integer((json_int_t)r->f.modelled_bytes));
  json_object_set_new(o, "modelled_high_bytes", json_integer((json_int_t)r->f.modelled_high_bytes));
  json_object_set_new(o, "body_values_unread", json_integer((json_int_t)r->f.body_values_unread));
  json_object_set_new(o, "prefetched_bytes", json_integer((json_int_t)r->f.prefetched_bytes));
  json_object_set_new(o, "stack_bytes", json_integer((json_int_t)r->f.stack_bytes));
  json_object_set_new(o, "smem_bytes", json_integer((json_int_t)r->f.smem_bytes));
  json_object_set_new(o, "smem_capacity_bytes", json_integer((json_int_t)r->v.smem_capacity_bytes));
  json_object_set_new(o, "smem_fits", json_boolean(!r->v.smem_over));
  json_object_set_new(o, "limit_bytes", json_integer((json_int_t)r->v.limit_bytes));
  json_object_set_new(o, "limit_origin", json_string(vmem_limit_origin_name(r->l.origin)));
  json_object_set_new(o, "exact_bytes", json_integer((json_int_t)r->f.scoped_bytes));
  json_object_set_new(o, "predicted_bytes", json_integer((json_int_t)r->v.predicted_bytes));
  json_object_set_new(o, "ceiling_bytes", json_integer((json_int_t)r->v.ceiling_bytes));
  json_object_set_new(o, "firm_bytes", json_integer((json_int_t)r->v.firm_bytes));
  json_object_set_new(o, "estimate_over", json_boolean(r->v.estimate_over));
  json_object_set_new(o, "forwarded_bytes", json_integer((json_int_t)r->f.forwarded_bytes));
  json_object_set_new(o, "fits", json_boolean(r->v.fits));
  json_object_set_new(o, "at_risk", json_boolean(r->v.scoped == VMEM_VERDICT_AT_RISK));
  json_object_set_new(o, "verdict", json_string(vmem_verdict_name(r->v.scoped)));
  json_object_set_new(o, "body_modelled", json_boolean(vmem_kernel_body_modelled(r->k)));
  for (size_t a = 0; a < r->f.count; a++) {
    const vmem_allocation *al = &r->f.allocs[a];
    json_t *e = json_object();
    json_object_set_new(e, "kind", json_string(vmem_alloc_kind_name(al->kind)));
    if (al->operand < vmem_kernel_operand_count(r->k)) {
      const vmem_operand *op = vmem_kernel_operand(r->k, al->operand);
      char *blk = block_str(r->k, r->t, op);
      json_object_set_new(e, "operand", json_string(op->name));
      json_object_set_new(e, "role", json_string(role_name(op->role)));
      json_object_set_new(e, "block", json_string(blk ? blk : ""));
      free(blk);
    } else {
      json_object_set_new(e, "note", json_string(al->note ? al->note : ""));
    }
    json_object_set_new(e, "buffers", json_integer(al->buffers));
    json_object_set_new(e, "bytes", json_integer((json_int_t)al->bytes));
    json_object_set_new(e, "unpadded_bytes", json_integer((json_int_t)al->unpadded_bytes));
    json_object_set_new(e, "offset", json_integer((json_int_t)al->offset));
    if (al->kind == VMEM_ALLOC_MODELLED) {
      json_object_set_new(e, "alike", json_integer((json_int_t)(al->alike > 1 ? al->alike : 1)));
      json_object_set_new(e, "outside_domain", json_boolean(al->outside_domain));
    }
    json_object_set_new(e, "exact", json_boolean(al->kind == VMEM_ALLOC_WINDOW || al->kind == VMEM_ALLOC_SCRATCH));
    json_array_append_new(allocs, e);
  }
  json_object_set_new(o, "allocations", allocs);
  json_object_set_new(o, "operands", json_operands(r));
  if (r->has_cost)
    json_object_set_new(o, "cost", json_cost(&r->cost));
  if (r->v.scoped != VMEM_VERDICT_FITS) {
    json_t *rm = json_object(), *sh = json_array();
    for (size_t i = 0; i < r->rem.nshrink; i++) {
      const vmem_shrink *s = &r->rem.shrink[i];
      json_t *e = json_object();
      json_object_set_new(e, "operand", json_string(vmem_kernel_operand(r->k, s->operand)->name));
      json_object_set_new(e, "dim", json_integer((json_int_t)s->dim));
      json_object_set_new(e, "param", s->param_name ? json_string(s->param_name) : json_null());
      json_object_set_new(e, "from", json_integer(s->from));
      json_object_set_new(e, "to", json_integer(s->to));
      json_object_set_new(e, "scoped_bytes", json_integer((json_int_t)s->scoped_bytes));
      json_array_append_new(sh, e);
    }
    json_object_set_new(rm, "shrink", sh);
    json_object_set_new(rm, "vmem_limit_bytes", json_integer((json_int_t)r->rem.request_bytes));
    json_object_set_new(rm, "within_physical", json_boolean(r->rem.request_within_physical));
    json_object_set_new(rm, "at_ceiling", json_boolean(r->rem.request_at_ceiling));
    json_object_set_new(rm, "for_estimate", json_boolean(r->rem.request_estimate));
    json_object_set_new(rm, "ceiling_bytes", json_integer((json_int_t)r->rem.ceiling_bytes));
    json_t *b1 = json_array();
    for (size_t i = 0; i < r->rem.nbuffered1; i++)
      json_array_append_new(b1, json_string(vmem_kernel_operand(r->k, r->rem.buffered1[i].operand)->name));
    json_object_set_new(rm, "buffered1", b1);
    const vmem_allocation *big = largest_modelled(r);
    if (r->v.scoped == VMEM_VERDICT_LIKELY_E1001 && big) {
      json_t *bv = json_object();
      json_object_set_new(bv, "value", json_string(big->note ? big->note : ""));
      json_object_set_new(bv, "bytes", json_integer((json_int_t)big->bytes));
      json_object_set_new(bv, "alike", json_integer((json_int_t)(big->alike > 1 ? big->alike : 1)));
      json_object_set_new(rm, "body_value", bv);
    }
    json_object_set_new(o, "remedies", rm);
  }
  return o;
}

/* Footprint, limit and verdict; remedies when over. */
static bool kreport_eval(kreport *r, const vmem_limit_inputs *in, const vmem_plan_options *opt, vmem_error *err) {
  vmem_limit_inputs li = *in;
  if (li.vmem_limit_bytes < 0)
    li.vmem_limit_bytes = vmem_kernel_vmem_limit_bytes(r->k);
  if (vmem_limits_resolve(r->t, &li, &r->l, err) != VMEM_OK)
    return false;
  vmem_plan_options po = opt ? *opt : (vmem_plan_options){0, -1, false, 0};
  po.limit_bytes = r->l.effective_bytes; /* what 7x's prefetch budget leaves (footprint.c) */
  if (vmem_kernel_footprint(r->k, r->t, &po, &r->f, err) != VMEM_OK)
    return false;
  if (vmem_kernel_verdict(&r->f, &r->l, r->t, &r->v, err) != VMEM_OK)
    return false;
  if (r->v.scoped != VMEM_VERDICT_FITS)
    vmem_kernel_remedies(r->k, r->t, opt, r->v.limit_bytes, &r->rem, err);
  vmem_error cerr;
  r->has_cost = vmem_kernel_cost(r->k, r->t, opt, NULL, &r->cost, &cerr) == VMEM_OK;
  return true;
}

static void print_grid(const vmem_kernel *k) {
  fprintf(CLI_OUT, "grid (");
  for (size_t g = 0; g < vmem_kernel_grid_rank(k); g++) {
    const char *sem = vmem_kernel_dimension_semantics(k, g);
    int64_t b = vmem_kernel_grid_bound(k, g);
    char bound[24];
    if (b == VMEM_GRID_DYNAMIC)
      snprintf(bound, sizeof bound, "dynamic");
    else
      snprintf(bound, sizeof bound, "%" PRId64, b);
    fprintf(CLI_OUT, "%s%s=%s%s%s", g ? ", " : "", vmem_kernel_grid_axis_name(k, g), bound, sem && *sem ? " " : "",
            sem ? sem : "");
  }
  fprintf(CLI_OUT, ")");
}

int check_kernel(const char *path, const char *format, const vmem_kernel *k, const vmem_target *t,
                 const vmem_limit_inputs *in, const vmem_plan_options *opt, bool json) {
  kreport r = {.path = path, .format = format, .k = k, .t = t};
  vmem_error err;
  int rc = EXIT_OK;
  if (!kreport_eval(&r, in, opt, &err)) {
    fprintf(CLI_ERR, "vmemscope check: error: %s: %s\n", path, err.message);
    rc = EXIT_BAD;
  } else {
    if (json) {
      json_t *root = cli_json_root("check"), *ks = json_array();
      json_array_append_new(ks, json_kernel(&r));
      json_object_set_new(root, "kernels", ks);
      cli_print_json(root);
    } else {
      if (r.v.scoped == VMEM_VERDICT_E1001)
        print_e1001(&r, CLI_OUT);
      fprintf(CLI_OUT, "%skernel %s (%s), target %s; ", r.v.scoped == VMEM_VERDICT_E1001 ? "\n" : "",
              vmem_kernel_name(k), format, vmem_target_name(t));
      print_grid(k);
      fprintf(CLI_OUT, "\n\n");
      print_allocations(&r);
      print_totals(&r);
      print_verdict(&r);
      if (r.v.scoped == VMEM_VERDICT_E1001 || r.v.scoped == VMEM_VERDICT_LIKELY_E1001)
        print_remedies(&r);
      else if (r.v.scoped == VMEM_VERDICT_AT_RISK)
        print_risk_remedies(&r);
    }
    rc = r.v.fits ? EXIT_OK : EXIT_OOM;
    cli_now->at_risk_seen |= r.v.fits && r.v.scoped == VMEM_VERDICT_AT_RISK;
  }
  vmem_footprint_free(&r.f);
  return rc;
}

/* The spec at path with --param NAME=VALUE applied to its "params" (one
 * block size tried without editing the file, as fit --param does). */
static vmem_kernel *spec_with_params(const char *path, const char *const *params, size_t n) {
  json_error_t je;
  json_t *root = json_load_file(path, 0, &je);
  if (!root) {
    cli_error("check", "%s:%d:%d: JSON: %s", path, je.line, je.column, je.text);
    return NULL;
  }
  json_t *ps = json_object_get(root, "params");
  vmem_kernel *k = NULL;
  for (size_t i = 0; i < n; i++) {
    const char *eq = strchr(params[i], '=');
    char *end = NULL;
    long long v = eq ? strtoll(eq + 1, &end, 10) : 0;
    char name[64];
    size_t len = eq ? (size_t)(eq - params[i]) : 0;
    if (!eq || len == 0 || len >= sizeof name || !end || *end || end == eq + 1 || v <= 0) {
      cli_error("check", "--param %s: expected NAME=N, N a positive block size", params[i]);
      goto done;
    }
    memcpy(name, params[i], len);
    name[len] = '\0';
    if (!json_is_object(ps) || !json_object_get(ps, name)) {
      cli_error("check", "--param %s: the spec has no parameter '%s' (its \"params\")", params[i], name);
      goto done;
    }
    json_object_set_new(ps, name, json_integer(v));
  }
  char *text = json_dumps(root, 0);
  vmem_error err;
  if (text && !(k = vmem_kernel_from_spec(text, strlen(text), NULL, &err)))
    cli_error("check", "%s with --param: %s", path, err.message);
  free(text);
done:
  json_decref(root);
  return k;
}

int check_kernel_file(const char *path, const char *format, const char *instr, const vmem_target *t,
                      const vmem_limit_inputs *in, const vmem_plan_options *opt, bool json, const char *const *params,
                      size_t nparams) {
  const char *used = format;
  if (nparams && (!format || strcmp(format, "spec") != 0)) {
    cli_error("check",
              "--param sets a kernel spec's \"params\"; %s is %s: vmemscope fit %s --param g0=N ... "
              "evaluates one block size of a Mosaic kernel",
              path, format ? format : "not a spec", path);
    return EXIT_BAD;
  }
  vmem_kernel *k =
      nparams ? spec_with_params(path, params, nparams) : cli_load_kernel("check", path, format, instr, &used);
  if (!k)
    return EXIT_BAD;
  int rc = check_kernel(path, used, k, t, in, opt, json);
  vmem_kernel_free(k);
  return rc;
}

int kernel_brief(const vmem_kernel *k, const vmem_target *t, const vmem_limit_inputs *in, const vmem_plan_options *opt,
                 const char *indent, json_t **json, vmem_verdict *verdict) {
  kreport r = {.path = "", .format = "bytecode", .k = k, .t = t};
  vmem_error err;
  char b[48], l[48];
  if (!kreport_eval(&r, in, opt, &err)) {
    if (json)
      *json = json_pack("{s:s}", "error", err.message);
    else
      fprintf(CLI_OUT, "%skernel %s: cannot be sized: %s\n", indent, vmem_kernel_name(k), err.message);
    vmem_footprint_free(&r.f);
    return -1;
  }
  if (json) {
    *json = json_kernel(&r);
  } else {
    fprintf(CLI_OUT, "%skernel %s: ", indent, vmem_kernel_name(k));
    print_grid(k);
    fprintf(CLI_OUT, "; scoped %s of %s (%s) -> %s%s%s\n", cli_bytes(b, sizeof b, r.f.scoped_bytes),
            cli_human(l, sizeof l, r.v.limit_bytes), vmem_limit_origin_name(r.l.origin),
            cli_tone(!r.v.fits                            ? CLI_BAD
                     : r.v.scoped == VMEM_VERDICT_AT_RISK ? CLI_WARN
                                                          : CLI_OK),
            r.v.scoped == VMEM_VERDICT_E1001          ? "DOES NOT FIT (E1001)"
            : r.v.scoped == VMEM_VERDICT_LIKELY_E1001 ? "likely E1001 (modelled: body values)"
            : r.v.smem_over                           ? "DOES NOT FIT in SMEM"
            : r.v.scoped == VMEM_VERDICT_AT_RISK      ? "fits, at risk"
                                                      : "fits",
            cli_tone(CLI_RESET));
  }
  int v = !r.v.fits ? 2 : r.v.scoped == VMEM_VERDICT_AT_RISK ? 1 : 0;
  cli_now->at_risk_seen |= v == 1;
  if (verdict)
    *verdict = r.v;
  vmem_footprint_free(&r.f);
  return v;
}
