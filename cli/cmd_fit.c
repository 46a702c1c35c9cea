/*
 * cmd_fit.c — `vmemscope fit SPEC [--target T] [--top K] [--param N=LIST]
 *              [--vmem-limit-bytes N | --physical] [--json]`
 *
 * The search is the library's (vmem_fit, src/tune/fit.c: every
 * combination evaluated through a template, no pruning, so the result is
 * the exhaustive one by construction); this file reads the options and
 * renders the result as text or JSON.
 */
#define _POSIX_C_SOURCE 200809L /* popen, pclose: --lower */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char help[] =
    "usage: vmemscope fit KERNEL [--target T] [--top K] [--param NAME=VALUES]... [--array NAME=SHAPE]...\n"
    "                     [--instruction NAME] [--buffers] [--color] [--allow-padding-blocks]\n"
    "                     [--vmem-limit-bytes N | --physical] [--flags \"...\"] [--no-env] [--json]\n"
    "                     [--fixed-scratch NAME]... [--explain] [--all] [--grid-order]\n\n"
    "Searches the block sizes of a kernel that fit: a spec's named \"params\", or for\n"
    "a Mosaic kernel one parameter per grid axis (g0, g1, ...). KERNEL is any input\n"
    "check reads; a Pallas custom call in an HLO module or StableHLO text (named by\n"
    "--instruction when there are several) brings its arrays, limit and FLOPs; for\n"
    "Mosaic MLIR alone, --array gives each windowed operand's whole array\n"
    "(argN=bf16[4096,4096]; scratch keeps its shape). Ranked by a roofline model\n"
    "(docs/cost-model.md): HBM bytes moved (a block is fetched only when its index\n"
    "changes), FLOPs from the spec (\"flops\" or \"flops_per_step\") or the custom\n"
    "call's cost_estimate, and a per-step overhead. NEEDED counts the body's values\n"
    "at the model's estimate, CEILING at its ceiling; a candidate that fits only\n"
    "with the estimate is at risk and ranks after every one that fits at the\n"
    "ceiling.\n\n"
    "options:\n"
    "  --param NAME=VALUES   values to try: 128,256,512 or 128..2048:pow2 or 128..1024:128;\n"
    "                        default: every divisor of the array dims the parameter sets\n"
    "                        that the block rules allow\n"
    "  --buffers             also try pl.Buffered(1) on each double-buffered input\n"
    "  --grid-order          also try each order of the grid axes that every output follows (an axis an\n"
    "                        output does not follow is a reduction and keeps its place): the order\n"
    "                        decides which blocks move along the innermost axis, so the HBM bytes and\n"
    "                        what Buffered(1) costs; the result says the order to write\n"
    "  --color               also try coloring each such input to VMEM (whole array resident,\n"
    "                        program-scoped; it must fit the VMEM above the scoped limit)\n"
    "  --allow-padding-blocks  also try sizes that do not divide the array (the last block\n"
    "                        padded); WASTE is the share of an operand's blocks past its array\n"
    "  --top K               how many candidates to list (default 10)\n"
    "  --array NAME=SHAPE    the whole array of a windowed operand (MLIR: argN)\n"
    "  --instruction NAME    HLO/StableHLO: the custom call whose kernel to search\n"
    "  --vmem-limit-bytes N  fit this limit instead of the one in force\n"
    "  --physical            fit physical VMEM and report the vmem_limit_bytes to request\n"
    "  --step-overhead-us X  the per-grid-step overhead (default 0.35; no public source)\n"
    "  --flops N             the kernel's total FLOPs (default: the custom call's cost_estimate, else\n"
    "                        counted from the Mosaic body)\n"
    "  --fixed-scratch NAME  keep scratch NAME at its shape (by default a scratch of a window's shape\n"
    "                        follows that window's blocks)\n"
    "  --explain             say why the best beat the next candidates and the fastest one that does not fit\n"
    "  --all                 list every point of the Pareto front (by default, points less than 3% faster\n"
    "                        than the one above are left out)\n"
    "  --confirm N           compile the N best with the real compiler (libtpu, docs/compiler.md) and list\n"
    "                        those it compiles first; needs --lower\n"
    "  --lower CMD           a shell command that prints a candidate's StableHLO; {NAME} in it is the\n"
    "                        value of parameter NAME (e.g. \"python k.py --lower --bm {bm}\")\n"
    "  --libtpu PATH, --compile-timeout S, --topology NAME   as for check --compile\n"
    "  --target T, --flags \"...\", --no-env, --json   as for check\n\n"
    "Exit status: 0 when something fits, 1 when nothing does, 2 on bad input.\n\n"
    "examples:\n"
    "  vmemscope fit kernel.json --top 5\n"
    "  vmemscope fit kernel.json --param bm=128..2048:pow2 --buffers --physical\n"
    "  vmemscope fit module.hlo --instruction flash_attention_kernel.7 --target v6e\n";

enum { MAX_VALUES = VMEM_FIT_MAX_VALUES, MAX_P = VMEM_FIT_MAX_PARAMS, MAX_OPS_B = VMEM_FIT_MAX_BUFFERED };

typedef vmem_fit_candidate cand; /* the library's search (src/tune/fit.c) */

/* What the command line asks of the search. */
typedef struct fit_opts {
  const char *given[MAX_P]; /* --param NAME=VALUES */
  size_t ngiven;
  const char *arrays[64]; /* --array NAME=SHAPE */
  size_t narrays;
  const char *fixed[64]; /* --fixed-scratch NAME */
  size_t nfixed;
  const char *instr; /* --instruction NAME */
  size_t top;
  bool physical, json, buffers, padding, color, explain, all, grid_order;
  const char *confirm_s, *lower; /* --confirm N, --lower CMD */
  size_t confirm;
  cli_compile_req req; /* --libtpu, --compile-timeout, --topology */
} fit_opts;

typedef vmem_fit_space space;
typedef vmem_fit_result search;

/* Whether the order is the kernel's own (NULL is). */
static bool own_order(const space *sp, const int *order) {
  for (size_t p = 0; order && p < sp->rank; p++)
    if (order[p] != (int)p)
      return false;
  return true;
}

/* "(g1, g0)": the order by the grid axes' names. */
static void order_text(const vmem_kernel *k, const space *sp, const int *order, char *buf, size_t cap) {
  size_t n = (size_t)snprintf(buf, cap, "(");
  for (size_t p = 0; p < sp->rank && n < cap; p++) {
    const char *name = vmem_kernel_grid_axis_name(k, (size_t)order[p]);
    n += name ? (size_t)snprintf(buf + n, cap - n, "%s%s", p ? ", " : "", name)
              : (size_t)snprintf(buf + n, cap - n, "%sg%d", p ? ", " : "", order[p]);
  }
  if (n < cap)
    snprintf(buf + n, cap - n, ")");
}

/* No block dimension is larger: 2^40 elements are past any TPU's memory,
 * and the bound keeps the ranges' arithmetic below overflow. */
#define MAX_BLOCK_VALUE (1LL << 40)

/* VALUES ::= v (',' v)* | lo '..' hi ':' ('pow2' | step) */
static size_t parse_values(const char *s, int64_t *out, size_t cap) {
  char *end;
  long long lo = strtoll(s, &end, 10);
  size_t n = 0;
  if (end[0] == '.' && end[1] == '.') {
    long long hi = strtoll(end + 2, &end, 10);
    if (*end != ':' || lo < 1 || hi < lo || hi > MAX_BLOCK_VALUE)
      return 0;
    if (!strcmp(end + 1, "pow2")) {
      for (long long v = 1; v <= hi && n < cap; v *= 2)
        if (v >= lo)
          out[n++] = v;
    } else {
      long long step = strtoll(end + 1, &end, 10);
      if (*end || step < 1 || step > MAX_BLOCK_VALUE)
        return 0;
      for (long long v = lo; v <= hi && n < cap; v += step)
        out[n++] = v;
    }
    return n;
  }
  for (const char *p = s;;) {
    long long v = strtoll(p, &end, 10);
    if (end == p || v < 1 || v > MAX_BLOCK_VALUE || n == cap)
      return 0;
    out[n++] = v;
    if (*end == '\0')
      return n;
    if (*end != ',')
      return 0;
    p = end + 1;
  }
}

static void params_text(const vmem_kernel *k, const vmem_template *tpl, const space *sp, uint64_t idx, char *buf,
                        size_t cap) {
  int64_t v[MAX_P];
  int bufs[MAX_OPS_B];
  const int *order = vmem_fit_decode(sp, idx, v, bufs);
  size_t n = 0;
  buf[0] = '\0';
  for (size_t p = 0; p < vmem_template_param_count(tpl) && n + 2 < cap; p++)
    n += (size_t)snprintf(buf + n, cap - n, "%s%s=%" PRId64, p ? " " : "", vmem_template_param_name(tpl, p), v[p]);
  for (size_t j = 0; j < sp->nb && n + 2 < cap; j++)
    if (bufs[j] < 2)
      n += (size_t)snprintf(buf + n, cap - n, " %s:%s",
                            vmem_kernel_operand(k, vmem_template_buffer_choice_operand(tpl, j))->name,
                            bufs[j] ? "Buffered(1)" : "VMEM");
  if (!own_order(sp, order) && n + 2 < cap) {
    char ot[96];
    order_text(k, sp, order, ot, sizeof ot);
    snprintf(buf + n, cap - n, " order=%s", ot);
  }
}

static json_t *json_cand(const vmem_kernel *k, const vmem_template *tpl, const space *sp, const cand *c,
                         uint64_t limit) {
  int64_t v[MAX_P];
  int bufs[MAX_OPS_B];
  const int *order = vmem_fit_decode(sp, c->index, v, bufs);
  vmem_eval e;
  vmem_fit_eval(tpl, sp, c->index, &e);
  json_t *o = json_object(), *ps = json_object();
  for (size_t p = 0; p < sp->n; p++)
    json_object_set_new(ps, vmem_template_param_name(tpl, p), json_integer(v[p]));
  json_object_set_new(o, "params", ps);
  if (sp->nb) {
    json_t *b = json_object();
    for (size_t j = 0; j < sp->nb; j++)
      json_object_set_new(b, vmem_kernel_operand(k, vmem_template_buffer_choice_operand(tpl, j))->name,
                          json_integer(bufs[j]));
    json_object_set_new(o, "buffers", b);
  }
  if (sp->norders > 1) {
    json_t *g = json_array();
    for (size_t p = 0; p < sp->rank; p++)
      json_array_append_new(g, json_integer(order[p]));
    json_object_set_new(o, "grid_order", g);
    json_object_set_new(o, "grid_order_changed", json_boolean(!own_order(sp, order)));
  }
  json_t *blocks = json_object();
  for (size_t i = 0; i < vmem_kernel_operand_count(k); i++) {
    const vmem_operand *op = vmem_kernel_operand(k, i);
    if (!op->block || op->space != VMEM_SPACE_VMEM || op->role == VMEM_ROLE_SCALAR_PREFETCH)
      continue;
    json_t *d = json_array();
    for (size_t j = 0; j < op->rank; j++)
      json_array_append_new(
          d, json_integer(op->block_param[j] >= 0 ? v[op->block_param[j]] : vmem_shape_dim(op->block, j)));
    json_object_set_new(blocks, op->name, d);
  }
  json_object_set_new(o, "blocks", blocks);
  json_object_set_new(o, "scoped_bytes", json_integer((json_int_t)e.scoped_bytes));
  json_object_set_new(o, "needed_bytes", json_integer((json_int_t)e.needed_bytes));
  json_object_set_new(o, "modelled_bytes", json_integer((json_int_t)e.modelled_bytes));
  json_object_set_new(o, "modelled_high_bytes", json_integer((json_int_t)e.modelled_high_bytes));
  json_object_set_new(o, "ceiling_bytes", json_integer((json_int_t)e.ceiling_bytes));
  json_object_set_new(o, "limit_bytes", json_integer((json_int_t)limit));
  json_object_set_new(o, "fits", json_boolean(e.needed_bytes <= limit));
  json_object_set_new(o, "at_risk", json_boolean(c->at_risk)); /* the library's (vmem_fit) */
  json_object_set_new(o, "time_s", json_real(e.time_s));
  json_object_set_new(o, "bound", json_string(e.compute_bound ? "compute" : "hbm"));
  json_object_set_new(o, "intensity", json_real(e.intensity));
  json_object_set_new(o, "hbm_bytes", json_real(e.hbm_bytes));
  json_object_set_new(o, "grid_steps", json_integer((json_int_t)e.grid_steps));
  if (sp->padding)
    json_object_set_new(o, "edge_waste", json_real(e.edge_waste));
  if (sp->choice[sp->nchoice - 1] == 0)
    json_object_set_new(o, "program_bytes", json_integer((json_int_t)e.program_bytes));
  return o;
}

/* The code change for the chosen candidate: each BlockSpec's block shape. */
static void print_change(const vmem_kernel *k, const vmem_template *tpl, const space *sp, const int64_t *v,
                         const int *bufs, const int *order, const cand *best, uint64_t limit_default,
                         uint64_t physical_bytes, bool request) {
  fprintf(CLI_OUT, "\nthe change, for the best candidate:\n");
  for (size_t p = 0; p < vmem_template_param_count(tpl); p++)
    fprintf(CLI_OUT, "  %s = %" PRId64 "\n", vmem_template_param_name(tpl, p), v[p]);
  for (size_t i = 0; i < vmem_kernel_operand_count(k); i++) {
    const vmem_operand *o = vmem_kernel_operand(k, i);
    if (!o->block || o->space != VMEM_SPACE_VMEM || o->role == VMEM_ROLE_SCALAR_PREFETCH)
      continue;
    fprintf(CLI_OUT, "  %-8s %s (", o->name, o->role == VMEM_ROLE_SCRATCH ? "scratch shape" : "BlockSpec block");
    for (size_t d = 0; d < o->rank; d++)
      fprintf(CLI_OUT, "%s%" PRId64, d ? ", " : "",
              o->block_param[d] >= 0 ? v[o->block_param[d]] : vmem_shape_dim(o->block, d));
    fprintf(CLI_OUT, ")");
    for (size_t j = 0; j < sp->nb; j++)
      if (vmem_template_buffer_choice_operand(tpl, j) == i && bufs[j] == 1)
        fprintf(CLI_OUT, ", pipeline_mode=pl.Buffered(1)");
    fprintf(CLI_OUT, "\n");
    for (size_t j = 0; j < sp->nb; j++)
      if (vmem_template_buffer_choice_operand(tpl, j) == i && bufs[j] == 0)
        fprintf(CLI_OUT, "  %-8s %s = pltpu.with_memory_space_constraint(%s, pltpu.VMEM)  # before the call\n", "",
                o->name, o->name);
  }
  if (!own_order(sp, order)) {
    char ot[96];
    order_text(k, sp, order, ot, sizeof ot);
    fprintf(CLI_OUT,
            "  grid order %s, outermost first: permute grid= and the arguments of every index_map (and each "
            "pl.program_id) to match\n",
            ot);
  }
  vmem_eval e;
  vmem_template_eval_order(tpl, v, sp->nb ? bufs : NULL, order, &e);
  if (e.program_bytes) {
    char a[48], b[48];
    fprintf(CLI_OUT, "  (colored inputs: %s program-scoped, of the %s above the scoped limit; modelled)\n",
            cli_bytes(a, sizeof a, e.program_bytes), cli_bytes(b, sizeof b, sp->room));
  }
  /* The request holds the body's values at their ceiling, as check's does
   * (vmem_request_limit); an at-risk best gets one under the default too. */
  uint64_t ask = vmem_request_limit(best->needed_bytes, best->ceiling_bytes, physical_bytes);
  if (request || best->ceiling_bytes > limit_default)
    fprintf(CLI_OUT,
            "  pltpu.CompilerParams(vmem_limit_bytes=%" PRIu64 ")  # the scoped VMEM it needs%s, rounded up to a MiB\n",
            ask,
            ask >= best->ceiling_bytes && best->ceiling_bytes > best->needed_bytes
                ? " with the body's values at their ceiling"
                : "");
}

/* The VALUES of a --param NAME=VALUES given for `name`, or NULL. */
static const char *values_for(const char *given, const char *name) {
  size_t n = strlen(name);
  return !strncmp(given, name, n) && given[n] == '=' ? given + n + 1 : NULL;
}

/* The search the command line asks for, by the library (vmem_fit): the
 * --param lists read here, every other decision there. False (printed)
 * on bad input or no memory. */
static bool run_fit(const vmem_template *tpl, const fit_opts *o, uint64_t limit, uint64_t room, search *s) {
  vmem_fit_options fo = {.buffers = o->buffers,
                         .color = o->color,
                         .grid_order = o->grid_order,
                         .allow_padding = o->padding,
                         .limit_bytes = limit,
                         .room_bytes = room};
  int64_t *lists[MAX_P] = {NULL};
  size_t n = vmem_template_param_count(tpl);
  bool ok = n <= MAX_P;
  for (size_t p = 0; ok && p < n; p++) {
    const char *name = vmem_template_param_name(tpl, p), *list = NULL;
    for (size_t g = 0; g < o->ngiven; g++)
      if (values_for(o->given[g], name))
        list = values_for(o->given[g], name);
    if (!list)
      continue;
    if (!(lists[p] = malloc(MAX_VALUES * sizeof **lists))) {
      cli_error("fit", "out of memory");
      ok = false;
    } else if (!(fo.counts[p] = parse_values(list, lists[p], MAX_VALUES))) {
      cli_error("fit", "%s: cannot read the values (128,256 or 128..2048:pow2 or 128..1024:128; each from 1 to 2^40)",
                name);
      ok = false;
    }
    fo.values[p] = lists[p];
  }
  for (size_t g = 0; ok && g < o->ngiven; g++) {
    bool known = false;
    for (size_t p = 0; p < n; p++)
      known = known || values_for(o->given[g], vmem_template_param_name(tpl, p));
    if (!known) {
      cli_error("fit", "--param %s: not a parameter of the spec", o->given[g]);
      ok = false;
    }
  }
  vmem_error err;
  if (ok && vmem_fit(tpl, &fo, s, NULL, &err) != VMEM_OK) {
    cli_error("fit", "%s%s", err.message,
              err.code == VMEM_ERR_RANGE && strstr(err.message, "4e9") ? " with --param" : "");
    ok = false;
  }
  for (size_t p = 0; p < MAX_P; p++)
    free(lists[p]);
  return ok;
}

static void json_follows(json_t *root, const vmem_kernel *k, const vmem_template *tpl) {
  json_t *inf = json_array(), *sc = json_array(), *vals = json_array();
  for (size_t i = 0; i < vmem_kernel_operand_count(k); i++) {
    const vmem_operand *o = vmem_kernel_operand(k, i);
    if (vmem_kernel_array_inferred(k, i)) {
      char *a = cli_shape_text(o->array);
      json_array_append_new(inf, json_pack("{s:s, s:s}", "operand", o->name, "array", a ? a : ""));
      free(a);
    }
    if (o->role == VMEM_ROLE_SCRATCH && o->block && o->space == VMEM_SPACE_VMEM) {
      int w = vmem_kernel_scratch_follows(k, i);
      json_t *ps = json_array();
      for (size_t d = 0; d < o->rank; d++)
        if (o->block_param[d] >= 0 && (size_t)o->block_param[d] < vmem_template_param_count(tpl))
          json_array_append_new(ps, json_string(vmem_template_param_name(tpl, (size_t)o->block_param[d])));
      json_array_append_new(sc, json_pack("{s:s, s:o, s:o}", "operand", o->name, "follows",
                                          w >= 0 ? json_string(vmem_kernel_operand(k, (size_t)w)->name) : json_null(),
                                          "params", ps));
    }
  }
  for (size_t v = 0; v < vmem_template_value_count(tpl); v++) {
    const char *names[VMEM_KERNEL_MAX_RANK];
    size_t n = vmem_template_value_follows(tpl, v, names, VMEM_KERNEL_MAX_RANK);
    json_t *f = json_array();
    for (size_t i = 0; i < n; i++)
      json_array_append_new(f, json_string(names[i]));
    json_array_append_new(vals, json_pack("{s:s, s:o}", "note", vmem_template_value_note(tpl, v), "follows", f));
  }
  json_object_set_new(root, "arrays_inferred", inf);
  json_object_set_new(root, "scratch", sc);
  json_object_set_new(root, "body_values", vals);
  json_object_set_new(root, "body_modelled", json_boolean(vmem_kernel_body_modelled(k)));
}

/* When no combination is legal, the values that break a rule, named with
 * the rule; true when it printed an error. */
static bool no_legal_values(const vmem_kernel *k, const vmem_template *tpl, const space *sp) {
  for (size_t p = 0; p < sp->n; p++)
    for (size_t i = 0; i < sp->count[p]; i++) {
      char why[256];
      size_t op = 0;
      if (vmem_template_value_rule(tpl, p, sp->values[p][i], &op, why, sizeof why)) {
        cli_error("fit", "no legal block size: %s=%" PRId64 " breaks the Pallas block rules for %s, %s",
                  vmem_template_param_name(tpl, p), sp->values[p][i], vmem_kernel_operand(k, op)->name, why);
        return true;
      }
    }
  return false;
}

/* What the search derives rather than reads: inferred arrays, scratch that
 * follows a window, the body's values (modelled) that NEEDED counts. */
static void print_follows(const vmem_kernel *k, const vmem_template *tpl) {
  bool any = false;
  for (size_t i = 0; i < vmem_kernel_operand_count(k); i++)
    if (vmem_kernel_array_inferred(k, i)) {
      char *a = cli_shape_text(vmem_kernel_operand(k, i)->array);
      fprintf(CLI_OUT, "%s %s %s", any ? "," : "  arrays inferred from the grid and the windows (--array overrides):",
              vmem_kernel_operand(k, i)->name, a ? a : "?");
      free(a);
      any = true;
    }
  if (any)
    fprintf(CLI_OUT, "\n");
  for (size_t i = 0; i < vmem_kernel_operand_count(k); i++) {
    const vmem_operand *o = vmem_kernel_operand(k, i);
    if (o->role != VMEM_ROLE_SCRATCH || !o->block || o->space != VMEM_SPACE_VMEM)
      continue;
    int w = vmem_kernel_scratch_follows(k, i);
    bool param = false;
    for (size_t d = 0; d < o->rank; d++)
      param = param || o->block_param[d] >= 0;
    if (w >= 0)
      fprintf(CLI_OUT, "  scratch %s follows %s (its block's shape; --fixed-scratch %s keeps it)\n", o->name,
              vmem_kernel_operand(k, (size_t)w)->name, o->name);
    else if (param)
      fprintf(CLI_OUT, "  scratch %s follows the parameters its shape names\n", o->name);
    else
      fprintf(CLI_OUT, "  scratch %s keeps its shape (no window of that shape, or --fixed-scratch)\n", o->name);
  }
  for (size_t i = 0; i < vmem_kernel_operand_count(k); i++) {
    const vmem_operand *o = vmem_kernel_operand(k, i);
    unsigned tied = vmem_kernel_tied_dims(k, i);
    for (size_t d = 0; d < o->rank; d++)
      if (tied >> d & 1u)
        fprintf(CLI_OUT, "  %s block dim %zu follows %s by its size (its index map does not say; modelled)\n", o->name,
                d, vmem_template_param_name(tpl, (size_t)o->block_param[d]));
  }
  for (size_t v = 0; v < vmem_template_value_count(tpl); v++) {
    const char *names[VMEM_KERNEL_MAX_RANK];
    size_t n = vmem_template_value_follows(tpl, v, names, VMEM_KERNEL_MAX_RANK);
    fprintf(CLI_OUT, "  body value (modelled, in NEEDED): %s%s", vmem_template_value_note(tpl, v),
            n ? "; follows" : "; fixed");
    for (size_t i = 0; i < n; i++)
      fprintf(CLI_OUT, "%s %s", i ? "," : "", names[i]);
    fprintf(CLI_OUT, "\n");
  }
  if (!vmem_kernel_body_modelled(k))
    fprintf(CLI_OUT, "  (the body is not modelled: the ranking ignores the values it computes; a spec's \"values\" "
                     "declares them)\n");
}

/* Why a runner-up lost to the best: the term of the roofline that differs
 * most (grid steps, HBM bytes, compute), or the VMEM it would need. */
/* The names of the grid axes that may move (or, !movable, that keep their
 * place), comma-separated into buf; how many. */
static size_t axes_text(const vmem_kernel *k, const vmem_template *tpl, size_t rank, bool movable, char *buf,
                        size_t cap) {
  size_t n = 0, len = 0;
  buf[0] = '\0';
  for (size_t a = 0; a < rank; a++) {
    const char *name = vmem_kernel_grid_axis_name(k, a);
    if (vmem_template_axis_reorderable(tpl, a) == movable && len < cap)
      len += (size_t)snprintf(buf + len, cap - len, "%s%s", n++ ? ", " : "", name ? name : "?");
  }
  return n;
}

/* With --grid-order: how many orders, which axes move and which keep their place. */
static void print_orders(const vmem_kernel *k, const vmem_template *tpl, const space *sp) {
  if (sp->norders <= 1 && !sp->want_orders)
    return;
  char moving[256], fixed[256];
  size_t nm = axes_text(k, tpl, sp->rank, true, moving, sizeof moving);
  size_t nf = axes_text(k, tpl, sp->rank, false, fixed, sizeof fixed);
  fprintf(CLI_OUT, "  grid orders: %zu tried; %s %s", sp->norders, nm ? moving : "no axis", nm > 1 ? "move" : "moves");
  if (nf)
    fprintf(CLI_OUT, "; %s %s its place (an output does not follow it: a reduction)", fixed,
            nf == 1 ? "keeps" : "keep");
  fprintf(CLI_OUT, "\n");
}

static void explain_one(const vmem_kernel *k, const vmem_template *tpl, const space *sp, const cand *c,
                        const vmem_eval *best, uint64_t limit) {
  char ps[256], a[48], b[48], t1[32], t2[32];
  vmem_eval e;
  vmem_fit_eval(tpl, sp, c->index, &e);
  params_text(k, tpl, sp, c->index, ps, sizeof ps);
  if (e.needed_bytes > limit) {
    fprintf(CLI_OUT, "  %-28s faster (%s) but needs %s of %s: scoped %s", ps, cli_seconds(t1, sizeof t1, e.time_s),
            cli_human(a, sizeof a, e.needed_bytes), cli_human(b, sizeof b, limit),
            cli_human(t2, sizeof t2, e.scoped_bytes));
    if (e.modelled_bytes)
      fprintf(CLI_OUT, " + body values %s (modelled)", cli_human(a, sizeof a, e.modelled_bytes));
    fprintf(CLI_OUT, "\n");
    return;
  }
  fprintf(CLI_OUT, "  %-28s %s, %.1f%% slower: ", ps, cli_seconds(t1, sizeof t1, e.time_s),
          best->time_s > 0 ? 100.0 * (e.time_s - best->time_s) / best->time_s : 0.0);
  if (e.hbm_bytes > best->hbm_bytes * 1.001)
    fprintf(CLI_OUT, "moves %s from HBM against %s (blocks re-fetched more often)",
            cli_human(a, sizeof a, (uint64_t)e.hbm_bytes), cli_human(b, sizeof b, (uint64_t)best->hbm_bytes));
  else if (e.grid_steps > best->grid_steps)
    fprintf(CLI_OUT, "%" PRIu64 " grid steps against %" PRIu64 " (step overhead)", e.grid_steps, best->grid_steps);
  else if (e.flops > best->flops * 1.001)
    fprintf(CLI_OUT, "computes more (padded blocks)");
  else
    fprintf(CLI_OUT, "%s-bound where the best is %s-bound", e.compute_bound ? "compute" : "hbm",
            best->compute_bound ? "compute" : "hbm");
  fprintf(CLI_OUT, "\n");
}

/* fit --explain: the best against the next five, the fastest candidate that
 * does not fit, and what the block rules left out. */
static void print_explain(const vmem_kernel *k, const vmem_template *tpl, const space *sp, const search *s,
                          uint64_t limit) {
  char ps[256], t[32];
  vmem_eval best;
  vmem_fit_eval(tpl, sp, s->fit[0].index, &best);
  params_text(k, tpl, sp, s->fit[0].index, ps, sizeof ps);
  fprintf(CLI_OUT, "\nwhy %s (%s, %s-bound):\n", ps, cli_seconds(t, sizeof t, best.time_s),
          best.compute_bound ? "compute" : "hbm");
  for (size_t i = 1; i < s->fitting && i <= 5; i++)
    explain_one(k, tpl, sp, &s->fit[i], &best, limit);
  if (s->over && s->fastest_over.time_s < best.time_s)
    explain_one(k, tpl, sp, &s->fastest_over, &best, limit);
  else if (s->over)
    fprintf(CLI_OUT, "  %" PRIu64 " candidate%s over the limit; none would be faster\n", s->over,
            s->over == 1 ? "" : "s");
  if (s->considered > s->legal)
    fprintf(CLI_OUT,
            "  %" PRIu64 " combinations break the Pallas block rules (a last dim not a multiple of 128 nor "
            "whole, a second-to-last not a multiple of 8 nor whole) or overhang their arrays\n",
            s->considered - s->legal);
}

static void print_results(const vmem_kernel *k, const vmem_template *tpl, const space *sp, search *s, uint64_t limit,
                          const char *limit_from, size_t top, bool physical, uint64_t physical_bytes, bool all) {
  char b[48], c[48], tt[32];
  fprintf(CLI_OUT, "fit %s: limit %s (%s)\n", vmem_kernel_name(k), cli_bytes(b, sizeof b, limit), limit_from);
  for (size_t p = 0; p < sp->n; p++)
    fprintf(CLI_OUT, "  %s: %zu values, %" PRId64 "..%" PRId64 "\n", vmem_template_param_name(tpl, p), sp->count[p],
            sp->values[p][0], sp->values[p][sp->count[p] - 1]);
  print_follows(k, tpl);
  print_orders(k, tpl, sp);
  fprintf(CLI_OUT, "considered %" PRIu64 ", legal %" PRIu64 ", fitting %" PRIu64, s->considered, s->legal, s->fitting);
  if (s->at_risk)
    fprintf(CLI_OUT,
            " (%zu at risk: they fit with the body's estimated values, not at their ceiling, and rank after "
            "the rest)",
            s->at_risk);
  fprintf(CLI_OUT, "\n");
  vmem_eval e0;
  if (s->fitting && (vmem_fit_eval(tpl, sp, s->fit[0].index, &e0), e0.body_unread))
    fprintf(CLI_OUT, "(the body has values the model cannot size, as check says: no candidate fits for sure)\n");
  if (s->overhang)
    fprintf(CLI_OUT, "(%" PRIu64 " more would overhang their arrays; --allow-padding-blocks tries them)\n",
            s->overhang);
  if (!s->fitting) {
    if (s->any_legal) {
      char ps[256];
      params_text(k, tpl, sp, s->smallest.index, ps, sizeof ps);
      fprintf(CLI_OUT, "nothing fits: the smallest footprint is %s (%s), which needs vmem_limit_bytes=%" PRIu64 "\n",
              cli_bytes(b, sizeof b, s->smallest.needed_bytes), ps,
              vmem_request_limit(s->smallest.needed_bytes, s->smallest.ceiling_bytes, physical_bytes));
    } else {
      fprintf(CLI_OUT, "nothing fits: no legal combination of the values\n");
    }
    return;
  }
  /* The ceiling column when the body's values have one above their estimate
   * (docs/kernels.md, "The ceiling"): a spec's table stays as it was. */
  bool ceil_col = false;
  for (size_t i = 0; i < s->fitting && i < top; i++)
    ceil_col |= s->fit[i].ceiling_bytes != s->fit[i].needed_bytes;
  static const int right[] = {1, 0, 1, 1, 0, 0, 1, 1, 1}, right_ceil[] = {1, 0, 1, 1, 1, 0, 0, 1, 1, 1};
  cli_table tb;
  table_init(&tb, (size_t)(sp->padding ? 9 : 8) + (ceil_col ? 1 : 0), ceil_col ? right_ceil : right);
  if (ceil_col)
    table_add(&tb, "#", "PARAMS", "SCOPED", "NEEDED", "CEILING", "TIME", "BOUND", "INTENSITY", "STEPS", "WASTE");
  else
    table_add(&tb, "#", "PARAMS", "SCOPED", "NEEDED", "TIME", "BOUND", "INTENSITY", "STEPS", "WASTE");
  for (size_t i = 0; i < s->fitting && i < top; i++) {
    char n[24], ps[256], in[32], st[32], w[32], hi[48];
    vmem_eval e;
    vmem_fit_eval(tpl, sp, s->fit[i].index, &e);
    snprintf(n, sizeof n, "%zu", i + 1);
    params_text(k, tpl, sp, s->fit[i].index, ps, sizeof ps);
    snprintf(in, sizeof in, "%.1f", e.intensity);
    snprintf(st, sizeof st, "%" PRIu64, e.grid_steps);
    snprintf(w, sizeof w, "%.1f%%", 100 * e.edge_waste);
    char ceil[32];
    snprintf(hi, sizeof hi, "%s%s", cli_human(ceil, sizeof ceil, e.ceiling_bytes), s->fit[i].at_risk ? " risk" : "");
    const char *bound = e.compute_bound ? "compute" : "hbm";
    cli_human(b, sizeof b, e.scoped_bytes);
    cli_human(c, sizeof c, e.needed_bytes);
    cli_seconds(tt, sizeof tt, e.time_s);
    if (ceil_col)
      table_add(&tb, n, ps, b, c, hi, tt, bound, in, st, w);
    else
      table_add(&tb, n, ps, b, c, tt, bound, in, st, w);
  }
  fprintf(CLI_OUT, "\n");
  table_print(&tb, CLI_OUT);
  table_free(&tb);
  /* The Pareto front (the library's): no other fitting candidate is both smaller and faster. */
  fprintf(CLI_OUT, "\nPareto front (scoped VMEM needed against predicted time):\n");
  size_t dropped = 0;
  double shown = INFINITY;
  for (size_t i = 0; i < s->nfront; i++) {
    const cand *pt = &s->front[i];
    /* a point less than 3% faster than the last one shown says nothing new, unless it is the fastest */
    if (!all && i && i + 1 < s->nfront && pt->time_s > shown * 0.97) {
      dropped++;
      continue;
    }
    char ps[256];
    shown = pt->time_s;
    params_text(k, tpl, sp, pt->index, ps, sizeof ps);
    fprintf(CLI_OUT, "  %9s  %10s  %s\n", cli_human(b, sizeof b, pt->needed_bytes),
            cli_seconds(tt, sizeof tt, pt->time_s), ps);
  }
  if (dropped)
    fprintf(CLI_OUT, "  (%zu more point%s, each less than 3%% faster than the one above it; --all lists them)\n",
            dropped, dropped == 1 ? "" : "s");
  int64_t v[MAX_P];
  int bufs[MAX_OPS_B];
  const int *order = vmem_fit_decode(sp, s->fit[0].index, v, bufs);
  if (s->fit[0].at_risk)
    fprintf(CLI_OUT,
            "\nno candidate fits at the body's ceiling: the best is at risk (%s with the body's values at their "
            "ceiling, against a limit of %s); check it, or ask for the limit of its ceiling\n",
            cli_human(b, sizeof b, s->fit[0].ceiling_bytes), cli_human(c, sizeof c, limit));
  print_change(k, tpl, sp, v, bufs, order, &s->fit[0], limit, physical_bytes, physical);
}

/* Reads the kernel from any reader (cli_load_kernel): a spec, or a Mosaic
 * kernel (text, bytecode, an HLO or StableHLO custom call) made searchable,
 * one parameter per grid axis, once its arrays are known (from the custom
 * call's operands, or --array). */
static vmem_kernel *read_kernel(const char *path, const fit_opts *o) {
  vmem_error err;
  const char *format = NULL, *instr = o->instr;
  const char *const *arrays = o->arrays;
  size_t narrays = o->narrays;
  vmem_kernel *k = cli_load_kernel("fit", path, NULL, instr, &format);
  if (!k)
    return NULL;
  for (size_t f = 0; f < o->nfixed; f++)
    if (vmem_kernel_fix_scratch(k, o->fixed[f], &err) != VMEM_OK) {
      cli_error("fit", "--fixed-scratch %s: %s", o->fixed[f], err.message);
      vmem_kernel_free(k);
      return NULL;
    }
  for (size_t a = 0; a < narrays; a++) {
    char name[64];
    const char *eq = strchr(arrays[a], '=');
    size_t n = eq ? (size_t)(eq - arrays[a]) : 0;
    if (!eq || n >= sizeof name) {
      cli_error("fit", "--array %s: expected NAME=SHAPE", arrays[a]);
      vmem_kernel_free(k);
      return NULL;
    }
    memcpy(name, arrays[a], n);
    name[n] = '\0';
    if (vmem_kernel_set_array(k, name, eq + 1, &err) != VMEM_OK) {
      cli_error("fit", "--array %s: %s", arrays[a], err.message);
      vmem_kernel_free(k);
      return NULL;
    }
  }
  size_t made;
  if (strcmp(format, "spec") != 0 && vmem_kernel_parametrize(k, &made, &err) != VMEM_OK) {
    cli_error("fit", "%s: %s", path, err.message);
    vmem_kernel_free(k);
    return NULL;
  }
  return k;
}

/* ---- --confirm: the compiler's word on the best candidates ---------------- */

/* The parameter whose "{NAME}" starts at p (its length in *len), or the
 * parameter count when none does. */
static size_t placeholder(const char *p, const vmem_template *tpl, size_t *len) {
  size_t np = vmem_template_param_count(tpl);
  for (size_t i = 0; *p == '{' && i < np; i++) {
    const char *name = vmem_template_param_name(tpl, i);
    size_t l = strlen(name);
    if (!strncmp(p + 1, name, l) && p[1 + l] == '}') {
      *len = l + 2;
      return i;
    }
  }
  return np;
}

/* CMD with each {NAME} replaced by the candidate's value of parameter NAME. */
static char *lower_command(const char *cmd, const vmem_template *tpl, const int64_t *v) {
  size_t cap = strlen(cmd) * 7 + 1, n = 0; /* a "{x}" (3 bytes) becomes at most 20 digits */
  char *out = malloc(cap);
  for (const char *p = cmd; out && *p;) {
    size_t len = 0, i = placeholder(p, tpl, &len);
    if (i < vmem_template_param_count(tpl)) {
      n += (size_t)snprintf(out + n, cap - n, "%" PRId64, v[i]);
      p += len;
    } else {
      out[n++] = *p++;
    }
  }
  if (out)
    out[n] = 0;
  return out;
}

/* The module --lower prints for the candidate: its stdout, whole. */
static char *lower_module(const char *cmd, size_t *len, int *status) {
  FILE *f = popen(cmd, "r");
  char *buf = NULL;
  size_t cap = 0;
  *len = 0;
  *status = -1;
  if (!f)
    return NULL;
  for (;;) {
    if (*len + 65536 > cap) {
      char *b = realloc(buf, cap = cap ? cap * 2 : 1 << 20);
      if (!b)
        break;
      buf = b;
    }
    size_t got = fread(buf + *len, 1, cap - *len, f);
    *len += got;
    if (got == 0)
      break;
  }
  *status = pclose(f);
  return buf;
}

/* One candidate lowered by --lower and compiled: its result (NULL when the
 * lowering or the compile could not be had, said then) and its figure, the
 * largest kernel's. */
static vmem_compile_result *confirm_one(vmem_compiler *c, double timeout, const vmem_template *tpl, const space *sp,
                                        const cand *cd, const char *ps, const vmem_target *t,
                                        const vmem_limit_inputs *in, const fit_opts *o, uint64_t *fig) {
  int64_t v[MAX_P];
  int bufs[MAX_OPS_B];
  vmem_fit_decode(sp, cd->index, v, bufs);
  char *cmd = lower_command(o->lower, tpl, v);
  size_t len = 0;
  int status = -1;
  char *text = cmd ? lower_module(cmd, &len, &status) : NULL;
  vmem_compile_result *res = NULL;
  if (status != 0 || !len)
    cli_error("fit", "--lower for %s: '%s' %s", ps, cmd ? cmd : "", status ? "failed" : "printed nothing");
  else
    res = cli_compile_text("fit", c, &o->req, timeout, text, len, t, in);
  *fig = 0;
  for (size_t j = 0; res && j < res->nkernels; j++)
    *fig = res->kernels[j].scoped_bytes > *fig ? res->kernels[j].scoped_bytes : *fig;
  free(text);
  free(cmd);
  return res;
}

/* Compiles the --confirm best candidates, each lowered by --lower once, and
 * prints (or adds to root) what the compiler said, the ones it compiled
 * first in the model's order. Returns the exit status: 0 when one
 * compiles, 1 when none does, 2 when a lowering failed or a compile gave no
 * answer (refused for another reason than memory, crashed, timed out). */
static int confirm_candidates(const vmem_kernel *k, const vmem_template *tpl, const space *sp, const search *s,
                              const vmem_target *t, const vmem_limit_inputs *in, const fit_opts *o, double model_s,
                              json_t *root) {
  double timeout;
  vmem_compiler *c = cli_compiler_open("fit", &o->req, &timeout);
  if (!c)
    return EXIT_BAD;
  size_t n = o->confirm < s->fitting ? o->confirm : s->fitting, good = 0;
  vmem_compile_result *res[100] = {0}; /* --confirm is at most 100 */
  uint64_t fig[100] = {0};
  char ps[100][256];
  int rc = EXIT_OK;
  double start = cli_clock();
  for (size_t i = 0; i < n; i++) {
    params_text(k, tpl, sp, s->fit[i].index, ps[i], sizeof ps[i]);
    res[i] = confirm_one(c, timeout, tpl, sp, &s->fit[i], ps[i], t, in, o, &fig[i]);
    if (!res[i] || (res[i]->status != VMEM_COMPILE_OK && !res[i]->scoped_oom)) {
      if (res[i])
        cli_compile_failed("fit", res[i], NULL);
      rc = EXIT_BAD;
    }
  }
  double spent = cli_clock() - start;
  json_t *list = json_array();
  if (!root)
    fprintf(CLI_OUT, "\nconfirmed by the compiler (%s, for %s):\n", vmem_compiler_version(c),
            o->req.topology ? o->req.topology : vmem_target_topology(t));
  for (int pass = 0; pass < 2; pass++) /* those it compiles first, then the rest */
    for (size_t i = 0; i < n; i++) {
      bool ok = res[i] && res[i]->status == VMEM_COMPILE_OK;
      if (!res[i] || ok != (pass == 0))
        continue;
      char hb[48], fb[48];
      good += ok;
      if (root)
        json_array_append_new(list, json_pack("{s:s,s:I,s:I,s:s,s:o,s:o,s:f}", "params", ps[i], "needed_bytes",
                                              (json_int_t)s->fit[i].needed_bytes, "ceiling_bytes",
                                              (json_int_t)s->fit[i].ceiling_bytes, "status",
                                              vmem_compile_status_name(res[i]->status), "figure_bytes",
                                              ok ? json_integer((json_int_t)fig[i]) : json_null(), "error",
                                              *res[i]->error_text ? json_string(res[i]->error_text) : json_null(),
                                              "seconds", res[i]->compile_seconds));
      else
        fprintf(CLI_OUT, "  %zu  %-28s needed %s  compiler %s (%.2f s)\n", i + 1, ps[i],
                cli_human(hb, sizeof hb, s->fit[i].needed_bytes),
                ok ? cli_bytes(fb, sizeof fb, fig[i]) : vmem_compile_status_name(res[i]->status),
                res[i]->compile_seconds);
    }
  for (size_t i = 0; i < n; i++)
    vmem_compile_result_free(res[i]);
  if (root) {
    json_object_set_new(root, "confirmed", list);
    json_object_set_new(root, "confirm_seconds", json_real(spent));
    json_object_set_new(root, "model_seconds", json_real(model_s));
    json_object_set_new(root, "libtpu_version", json_string(vmem_compiler_version(c)));
  } else {
    json_decref(list);
    fprintf(CLI_OUT,
            "%zu of %zu compiled; the compiler took %.1f s, the model %.1f ms for all %" PRIu64 " candidates\n", good,
            n, spent, model_s * 1e3, s->considered);
  }
  vmem_compiler_close(c);
  return rc != EXIT_OK ? rc : good ? EXIT_OK : EXIT_OOM;
}

static int fit_run(const char *path, const vmem_target *t, const vmem_limit_inputs *in0, const vmem_cost_options *copt,
                   const fit_opts *o) {
  double started = cli_clock();
  size_t top = o->top;
  bool physical = o->physical;
  vmem_error err;
  vmem_kernel *k = read_kernel(path, o);
  if (!k)
    return EXIT_BAD;
  int rc = EXIT_BAD;
  search s = {0};
  const space *sp = &s.space;
  vmem_limits l;
  vmem_limit_inputs in = *in0;
  if (in.vmem_limit_bytes < 0)
    in.vmem_limit_bytes = vmem_kernel_vmem_limit_bytes(k);
  bool have_limits = vmem_limits_resolve(t, &in, &l, &err) == VMEM_OK;
  vmem_plan_options plan = {0, -1, false, 0}; /* the limit sizes 7x's prefetch budget */
  plan.limit_bytes = !have_limits ? 0 : physical ? l.physical_bytes : l.effective_bytes;
  vmem_template *tpl = have_limits ? vmem_template_new(k, t, &plan, copt, NULL, &err) : NULL;
  if (!have_limits) {
    cli_error("fit", "%s", err.message);
  } else if (!tpl) {
    cli_error("fit", "%s: %s", path, err.message);
  } else if (vmem_template_param_count(tpl) == 0) {
    cli_error("fit",
              "%s: nothing to search: a spec needs \"params\"; a kernel, a grid axis that drives block "
              "dimensions",
              path);
  } else {
    uint64_t limit = physical ? l.physical_bytes : l.effective_bytes;
    uint64_t room = l.physical_bytes > limit ? l.physical_bytes - limit : 0;
    const char *from = physical ? "physical VMEM" : vmem_limit_origin_name(l.origin);
    if (!run_fit(tpl, o, limit, room, &s)) {
      /* printed */
    } else if (!s.legal && !s.overhang && no_legal_values(k, tpl, sp)) {
      /* the values asked for cannot be used at all: bad input, not "nothing fits" */
    } else if (o->json) {
      json_t *root = cli_json_root("fit"), *cs = json_array();
      json_object_set_new(root, "kernel", json_string(vmem_kernel_name(k)));
      json_object_set_new(root, "target", json_string(vmem_target_name(t)));
      json_object_set_new(root, "limit_bytes", json_integer((json_int_t)limit));
      json_object_set_new(root, "considered", json_integer((json_int_t)s.considered));
      json_object_set_new(root, "legal", json_integer((json_int_t)s.legal));
      json_object_set_new(root, "fitting", json_integer((json_int_t)s.fitting));
      json_follows(root, k, tpl);
      for (size_t i = 0; i < s.fitting && i < top; i++)
        json_array_append_new(cs, json_cand(k, tpl, sp, &s.fit[i], limit));
      json_object_set_new(root, "candidates", cs);
      json_object_set_new(root, "best", s.fitting ? json_cand(k, tpl, sp, &s.fit[0], limit) : json_null());
      json_t *front = json_array();
      for (size_t i = 0; i < s.nfront; i++)
        json_array_append_new(front, json_cand(k, tpl, sp, &s.front[i], limit));
      json_object_set_new(root, "pareto_front", front);
      if (!s.fitting && s.any_legal)
        json_object_set_new(root, "smallest", json_cand(k, tpl, sp, &s.smallest, limit));
      rc = s.fitting ? EXIT_OK : EXIT_OOM;
      if (o->confirm && s.fitting)
        rc = confirm_candidates(k, tpl, sp, &s, t, &in, o, cli_clock() - started, root);
      cli_print_json(root);
    } else {
      print_results(k, tpl, sp, &s, limit, from, top, physical, l.physical_bytes, o->all);
      if (o->explain && s.fitting)
        print_explain(k, tpl, sp, &s, limit);
      rc = s.fitting ? EXIT_OK : EXIT_OOM;
      if (o->confirm && s.fitting)
        rc = confirm_candidates(k, tpl, sp, &s, t, &in, o, cli_clock() - started, NULL);
    }
  }
  vmem_fit_free(&s);
  vmem_template_free(tpl);
  vmem_kernel_free(k);
  return rc;
}

/* The values of fit's options that need reading: --top, the limit, the
 * cost model's two numbers. */
static int fit_values(const char *top_s, const char *limit, const char *overhead, const char *flops, long *top,
                      vmem_limit_inputs *in, vmem_cost_options *copt) {
  char *end = NULL;
  *top = top_s ? strtol(top_s, &end, 10) : *top;
  if (top_s && (*end || end == top_s || *top < 1 || *top > 10000))
    return cli_usage_error("fit", "--top needs a count from 1 to 10000, got '%s'", top_s);
  if (limit && !cli_parse_bytes(limit, &in->vmem_limit_bytes))
    return cli_usage_error("fit", "--vmem-limit-bytes needs a whole number of bytes, got '%s'", limit);
  double v = overhead ? strtod(overhead, &end) : 0;
  if (overhead && (*end || end == overhead || v < 0))
    return cli_usage_error("fit", "--step-overhead-us needs a non-negative number");
  copt->step_overhead_s = overhead ? v * 1e-6 : copt->step_overhead_s;
  copt->flops = flops ? strtod(flops, &end) : copt->flops;
  if (flops && (*end || end == flops || copt->flops < 0))
    return cli_usage_error("fit", "--flops needs the kernel's total FLOPs, a non-negative number");
  return EXIT_OK;
}

int cmd_fit(int argc, char **argv) {
  const char *path = NULL, *target = NULL, *top_s = NULL, *limit = NULL, *overhead = NULL, *flops = NULL;
  bool no_env = false;
  long top = 10;
  fit_opts o = {0};
  vmem_limit_inputs in = {.vmem_limit_bytes = -1};
  vmem_cost_options copt = {.step_overhead_s = -1, .flops = -1};
  cli_list params = {o.given, 0, MAX_P}, arrays = {o.arrays, 0, sizeof o.arrays / sizeof *o.arrays},
           fixed = {o.fixed, 0, sizeof o.fixed / sizeof *o.fixed};
  const cli_opt opts[] = {{"--target", &target, NULL, NULL},
                          {"--top", &top_s, NULL, NULL},
                          {"--param", NULL, NULL, &params},
                          {"--array", NULL, NULL, &arrays},
                          {"--fixed-scratch", NULL, NULL, &fixed},
                          {"--instruction", &o.instr, NULL, NULL},
                          {"--vmem-limit-bytes", &limit, NULL, NULL},
                          {"--flags", &in.flags, NULL, NULL},
                          {"--step-overhead-us", &overhead, NULL, NULL},
                          {"--flops", &flops, NULL, NULL},
                          {"--physical", NULL, &o.physical, NULL},
                          {"--buffers", NULL, &o.buffers, NULL},
                          {"--grid-order", NULL, &o.grid_order, NULL},
                          {"--allow-padding-blocks", NULL, &o.padding, NULL},
                          {"--color", NULL, &o.color, NULL},
                          {"--no-env", NULL, &no_env, NULL},
                          {"--json", NULL, &o.json, NULL},
                          {"--explain", NULL, &o.explain, NULL},
                          {"--all", NULL, &o.all, NULL},
                          {"--confirm", &o.confirm_s, NULL, NULL},
                          {"--lower", &o.lower, NULL, NULL},
                          {"--libtpu", &o.req.libtpu, NULL, NULL},
                          {"--compile-timeout", &o.req.timeout_s, NULL, NULL},
                          {"--topology", &o.req.topology, NULL, NULL},
                          {NULL, NULL, NULL, NULL}};
  int scan = cli_scan("fit", argc, argv, opts, &path, 1, help, "give one kernel spec");
  if (scan != CLI_GO)
    return scan;
  o.ngiven = params.n, o.narrays = arrays.n, o.nfixed = fixed.n;
  if (fit_values(top_s, limit, overhead, flops, &top, &in, &copt) != EXIT_OK)
    return EXIT_BAD;
  if (!path)
    return cli_usage_error("fit", "give a kernel spec (JSON with \"params\")");
  if (!no_env)
    cli_env_flags(&in);
  const vmem_target *t = cli_target("fit", target);
  if (!t)
    return EXIT_BAD;
  o.top = (size_t)top;
  if (o.confirm_s) {
    char *end = NULL;
    long c = strtol(o.confirm_s, &end, 10);
    if (!*o.confirm_s || *end || c < 1 || c > 100)
      return cli_usage_error("fit", "--confirm needs a count from 1 to 100, got '%s'", o.confirm_s);
    if (!o.lower)
      return cli_usage_error("fit", "--confirm needs --lower CMD: the command that prints each candidate's StableHLO "
                                    "({NAME} takes a parameter's value); vmemscope cannot rewrite a kernel's body for "
                                    "other blocks. From Python, vmemscope.jax.fit(..., confirm=N) lowers them for you");
    if (o.buffers || o.color || o.grid_order)
      return cli_usage_error("fit", "--confirm re-lowers by the block parameters alone; leave out --buffers, --color "
                                    "and --grid-order");
    o.confirm = (size_t)c;
  } else if (o.lower || o.req.libtpu || o.req.timeout_s || o.req.topology) {
    return cli_usage_error("fit", "--lower, --libtpu, --compile-timeout and --topology go with --confirm");
  }
  return fit_run(path, t, &in, &copt, &o);
}
