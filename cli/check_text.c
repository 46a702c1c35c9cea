/*
 * check_text.c — check's report of an HLO module as text: each computation
 * and its instructions, the totals and largest buffers, program-scoped
 * VMEM, the standard ops by their modelled scoped VMEM (check.h).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static const char *space_name(int64_t s) {
  switch (s) {
  case 0:
    return "HBM";
  case 1:
    return "VMEM";
  case 2:
    return "sync flags";
  case 3:
    return "CMEM";
  case 4:
    return "SMEM";
  case 5:
    return "host";
  default:
    return "other";
  }
}

/* Cuts a long name in the middle: "very_long_na...me.123". */
static const char *cut(char *buf, size_t width, vmem_str s) {
  if (s.len <= width) {
    memcpy(buf, s.ptr, s.len);
    buf[s.len] = '\0';
    return buf;
  }
  size_t head = (width - 3) / 2, tail = width - 3 - head;
  memcpy(buf, s.ptr, head);
  memcpy(buf + head, "...", 3);
  memcpy(buf + head + 3, s.ptr + s.len - tail, tail);
  buf[width] = '\0';
  return buf;
}

/* ---- text ----------------------------------------------------------------- */

static void print_custom_call(report *r, const row *w) {
  vmem_str target = vmem_hlo_instruction_custom_call_target(w->in);
  vmem_str kernel = vmem_hlo_instruction_kernel_name(w->in);
  char b[48];
  fprintf(CLI_OUT, "      custom_call_target=\"%.*s\"", (int)target.len, target.ptr);
  if (kernel.len)
    fprintf(CLI_OUT, " kernel=%.*s", (int)kernel.len, kernel.ptr);
  int64_t limit = w->k ? vmem_kernel_vmem_limit_bytes(w->k) : w->scoped->limit_bytes;
  if (limit >= 0)
    fprintf(CLI_OUT, " vmem_limit_bytes=%s", cli_bytes(b, sizeof b, (uint64_t)limit));
  else if (kernel.len || w->scoped->has_kernel_body)
    fprintf(CLI_OUT, " vmem_limit_bytes not set (the global scoped limit applies)");
  if (w->scoped->used_bytes >= 0)
    fprintf(CLI_OUT, " used=%s (the compiler's own figure)", cli_bytes(b, sizeof b, (uint64_t)w->scoped->used_bytes));
  fprintf(CLI_OUT, "\n");
  if (w->k) {
    int v = kernel_brief(w->k, r->t, r->in, r->opt, "      ", NULL, NULL);
    r->worst = v > r->worst ? v : r->worst;
    vmem_str nm = vmem_hlo_instruction_name(w->in);
    fprintf(CLI_OUT, "      (vmemscope check %s --instruction %.*s: the allocations, and remedies when over)\n",
            r->path, (int)nm.len, nm.ptr);
  } else if (w->scoped->has_kernel_body) {
    fprintf(CLI_OUT, "      Mosaic body not read: %s\n", w->kerr ? w->kerr : "");
  }
}

static void print_computation(report *r, const vmem_hlo_computation *c, size_t *k) {
  vmem_str name = vmem_hlo_computation_name(c);
  fprintf(CLI_OUT, "\n%scomputation %%%.*s", vmem_hlo_computation_is_entry(c) ? "ENTRY " : "", (int)name.len, name.ptr);
  if (vmem_hlo_computation_is_fusion(c))
    fprintf(CLI_OUT, "  (fusion body: its values are not separate buffers)");
  vmem_str th = vmem_hlo_computation_thread(c);
  if (th.len)
    fprintf(CLI_OUT, "  (execution thread \"%.*s\")", (int)th.len, th.ptr);
  fprintf(CLI_OUT, "\n");
  static const int right[] = {0, 0, 0, 0, 1, 1, 1};
  cli_table tb;
  table_init(&tb, 7, right);
  table_add(&tb, "  NAME", "OPCODE", "SHAPE", "LAYOUT", "BYTES", "UNPADDED", "SPACE");
  size_t first = *k, n = vmem_hlo_computation_instruction_count(c);
  for (size_t i = 0; i < n; i++) {
    const row *w = &r->rows[(*k)++];
    char nm[48], op[32], sh[72], by[32], un[32], sp[8];
    const char *full = chk_row_shape(r, w);
    vmem_str fs = {full ? full : "", full ? strlen(full) : 0};
    nm[0] = ' ', nm[1] = ' ';
    cut(nm + 2, 40, vmem_hlo_instruction_name(w->in));
    cut(op, 24, vmem_hlo_instruction_opcode(w->in));
    cut(sh, 64, fs);
    snprintf(sp, sizeof sp, "S(%" PRId64 ")", w->laid ? vmem_shape_memory_space(w->laid) : 0);
    table_add(&tb, nm, op, sh, w->given ? "given" : "default", w->sized ? cli_human(by, sizeof by, w->size.bytes) : "-",
              w->sized ? cli_human(un, sizeof un, w->size.unpadded_bytes) : "-", sp);
  }
  table_print(&tb, CLI_OUT);
  table_free(&tb);
  for (size_t i = first; i < *k; i++)
    if (chk_is_custom_call(r->rows[i].in)) {
      vmem_str nm = vmem_hlo_instruction_name(r->rows[i].in);
      fprintf(CLI_OUT, "    %%%.*s:\n", (int)nm.len, nm.ptr);
      print_custom_call(r, &r->rows[i]);
    }
}

static void print_summary(const report *r, size_t top) {
  vmem_module_buffers mb;
  if (!chk_module_buffers(r, top, &mb))
    return;
  fprintf(CLI_OUT, "\ntotals by memory space (array leaves of buffer-defining instructions, outside fusion bodies;\n"
                   "values that alias another buffer are not counted again):\n");
  static const int right[] = {0, 0, 1, 1, 1};
  cli_table tb;
  table_init(&tb, 5, right);
  table_add(&tb, "  SPACE", "", "BUFFERS", "BYTES", "UNPADDED");
  for (size_t i = 0; i < mb.nspaces; i++) {
    const vmem_space_total *t = &mb.spaces[i];
    char sp[32], nb[24], b[48], u[48];
    snprintf(sp, sizeof sp, "  S(%" PRId64 ")", t->memory_space);
    snprintf(nb, sizeof nb, "%zu", t->buffers);
    table_add(&tb, sp, space_name(t->memory_space), nb, cli_bytes(b, sizeof b, t->bytes),
              cli_bytes(u, sizeof u, t->unpadded_bytes));
  }
  table_print(&tb, CLI_OUT);
  table_free(&tb);
  if (mb.nlargest)
    fprintf(CLI_OUT, "\nlargest buffers:\n");
  static const int right_big[] = {1, 1, 0, 0, 0};
  table_init(&tb, 5, right_big);
  for (size_t i = 0; i < mb.nlargest; i++) {
    const vmem_hlo_instruction *in = mb.largest[i].instruction;
    const row *w = chk_row_of(r, in);
    char num[32], b[48], nm[64], sh[104], cn_text[72];
    char *st = chk_shape_text(w && w->laid ? w->laid : vmem_hlo_instruction_shape(in));
    vmem_str full = {st ? st : "", st ? strlen(st) : 0};
    vmem_str cn = vmem_hlo_computation_name(vmem_hlo_instruction_parent(in));
    snprintf(num, sizeof num, "  %zu.", i + 1);
    nm[0] = '%';
    cut(nm + 1, 48, vmem_hlo_instruction_name(in));
    snprintf(cn_text, sizeof cn_text, "(in %%%.*s)", (int)(cn.len > 60 ? 60 : cn.len), cn.ptr);
    table_add(&tb, num, cli_human(b, sizeof b, mb.largest[i].bytes), nm, cut(sh, 100, full), cn_text);
    free(st);
  }
  if (mb.nlargest)
    table_print(&tb, CLI_OUT);
  table_free(&tb);
  vmem_module_buffers_free(&mb);
}

/* The k-th array leaf (depth-first) of a shape. */
static const vmem_shape *leaf_at(const vmem_shape *s, size_t *k) {
  size_t n = vmem_shape_tuple_count(s);
  if (!n && !vmem_shape_is_tuple(s))
    return (*k)-- == 0 ? s : NULL;
  for (size_t i = 0; i < n; i++) {
    const vmem_shape *l = leaf_at(vmem_shape_tuple_at(s, i), k);
    if (l)
      return l;
  }
  return NULL;
}

/* The shape index of the k-th leaf, "{1}" or "{0,2}", into buf. */
static bool leaf_index(const vmem_shape *s, size_t *k, char *buf, size_t cap, size_t at) {
  size_t n = vmem_shape_tuple_count(s);
  if (!n && !vmem_shape_is_tuple(s))
    return (*k)-- == 0;
  for (size_t i = 0; i < n; i++) {
    int w = snprintf(buf + at, cap - at, "%s%zu", at > 1 ? "," : "", i);
    size_t next = w > 0 && (size_t)w < cap - at ? at + (size_t)w : at;
    if (leaf_index(vmem_shape_tuple_at(s, i), k, buf, cap, next))
      return true;
    buf[at] = '\0';
  }
  return false;
}

/* "%name", or "%name{1}" for a tuple's leaf, cut to fit. */
static const char *value_name(const vmem_program_buffer *v, char *buf, size_t cap) {
  char idx[48] = "{";
  size_t k = v->leaf;
  const vmem_shape *s = vmem_hlo_instruction_shape(v->instruction);
  bool tuple = vmem_shape_is_tuple(s) && leaf_index(s, &k, idx, sizeof idx - 1, 1);
  if (tuple)
    strcat(idx, "}");
  vmem_str n = vmem_hlo_instruction_name(v->instruction);
  snprintf(buf, cap, "%%%.*s%s", (int)(n.len > 48 ? 48 : n.len), n.ptr, tuple ? idx : "");
  return buf;
}

/* One entry of the compiler's "Largest program allocations in vmem". */
static void print_allocation(const report *r, size_t i, const vmem_program_buffer *v) {
  char sz[32], un[32], ex[32];
  vmem_format_bytes((int64_t)v->bytes, sz, sizeof sz);
  fprintf(CLI_OUT, "  %zu. Size: %s\n", i + 1, sz);
  vmem_str on = vmem_hlo_instruction_op_name(v->instruction);
  if (on.len)
    fprintf(CLI_OUT, "     Operator: op_name=\"%.*s\"\n", (int)on.len, on.ptr);
  vmem_error err;
  vmem_shape *laid = vmem_shape_with_tpu_layout(vmem_hlo_instruction_shape(v->instruction), r->t, NULL, &err);
  size_t k = v->leaf;
  const vmem_shape *leaf = laid ? leaf_at(laid, &k) : NULL;
  char *st = leaf ? chk_shape_text(leaf) : NULL;
  if (st)
    fprintf(CLI_OUT, "     Shape: %s\n", st);
  free(st);
  vmem_shape_free(laid);
  vmem_format_bytes((int64_t)v->unpadded_bytes, un, sizeof un);
  fprintf(CLI_OUT, "     Unpadded size: %s\n", un);
  if (v->bytes > v->unpadded_bytes && v->unpadded_bytes) {
    vmem_format_bytes((int64_t)(v->bytes - v->unpadded_bytes), ex, sizeof ex);
    fprintf(CLI_OUT, "     Extra memory due to padding: %s (%.1fx expansion)\n", ex,
            (double)v->bytes / (double)v->unpadded_bytes);
  }
  vmem_str n = vmem_hlo_instruction_name(v->instruction), op = vmem_hlo_instruction_opcode(v->instruction);
  fprintf(CLI_OUT, "     XLA label: %.*s = %.*s(", (int)n.len, n.ptr, (int)op.len, op.ptr);
  for (size_t o = 0; o < vmem_hlo_instruction_operand_count(v->instruction); o++) {
    vmem_str on2 = vmem_hlo_instruction_name(vmem_hlo_instruction_operand_at(v->instruction, o));
    fprintf(CLI_OUT, "%s%.*s", o ? ", " : "", (int)on2.len, on2.ptr);
  }
  fprintf(CLI_OUT, ")\n     Allocation type: HLO temp\n     ==========================\n\n");
}

/* When the program values alone exceed physical VMEM: the report the
 * compiler prints, from this model — the values live at the peak step. */
static void print_capacity_report(const report *r, const vmem_program_buffer *const *big, size_t top) {
  const vmem_program *p = &r->prog;
  char used[32], cap[32], over[32], temp[32], scoped[32];
  vmem_format_bytes((int64_t)p->used_bytes, used, sizeof used);
  vmem_format_bytes((int64_t)p->capacity_bytes, cap, sizeof cap);
  vmem_format_bytes((int64_t)(p->used_bytes - p->capacity_bytes), over, sizeof over);
  vmem_format_bytes((int64_t)p->peak_bytes, temp, sizeof temp);
  vmem_format_bytes((int64_t)p->scoped_reservation_bytes, scoped, sizeof scoped);
  fprintf(CLI_OUT, "\n  as the compiler would report it (modelled: values, ranges and reservations as docs/program.md "
                   "describes):\n\n");
  fprintf(CLI_OUT, "Ran out of memory in memory space vmem. Used %s of %s vmem. Exceeded vmem capacity by %s.\n\n",
          used, cap, over);
  fprintf(CLI_OUT,
          "Program vmem requirement %s:\n    HLO temp         %s\n    scoped           %s\n\n"
          "  Largest program allocations in vmem:\n\n",
          used, temp, scoped);
  for (size_t i = 0, shown = 0; i < p->count && shown < top; i++)
    if (big[i]->start <= p->peak_time && big[i]->end >= p->peak_time)
      print_allocation(r, shown++, big[i]);
}

/* --timeline: the values live at the peak step, largest first (big is
 * sorted so), with what padding costs each. */
static void print_peak(const vmem_program *p, const vmem_program_buffer *const *big) {
  const char *where = p->scoped_in_heap ? "beside the values" : "at offset 0";
  char a[48], b[48], c[48];
  fprintf(CLI_OUT, "\nlive at the peak, step %" PRId64 " (%s):\n", p->peak_time,
          cli_bytes(a, sizeof a, p->lower_bound_bytes));
  for (size_t i = 0; i < p->nreservations; i++) {
    const vmem_program_reservation *v = &p->reservations[i];
    if (v->start > p->peak_time || v->end < p->peak_time)
      continue;
    vmem_str n = v->instruction ? vmem_hlo_instruction_name(v->instruction) : (vmem_str){"", 0};
    if (v->start == v->end)
      fprintf(CLI_OUT, "  %9s  scoped reservation of %%%.*s %s, step %" PRId64 "\n", cli_human(b, sizeof b, v->bytes),
              (int)(n.len > 48 ? 48 : n.len), n.ptr, where, v->start);
    else
      fprintf(CLI_OUT, "  %9s  scoped reservations %s, steps [%" PRId64 ", %" PRId64 "] (%%%.*s first)\n",
              cli_human(b, sizeof b, v->bytes), where, v->start, v->end, (int)(n.len > 48 ? 48 : n.len), n.ptr);
  }
  for (size_t i = 0; i < p->count; i++) {
    const vmem_program_buffer *v = big[i];
    if (v->start > p->peak_time || v->end < p->peak_time)
      continue;
    char vn[72];
    fprintf(CLI_OUT, "  %9s  %s  live [%" PRId64 ", %" PRId64 "]  at %" PRIu64 "  padding %s\n",
            cli_human(b, sizeof b, v->bytes), value_name(v, vn, sizeof vn), v->start, v->end, v->offset,
            cli_human(c, sizeof c, v->bytes - v->unpadded_bytes));
  }
}

/* Program-scoped VMEM: the S(1) values, their packed heap against
 * physical VMEM, and the largest of them with their live ranges. */
static void print_program(const report *r, size_t top) {
  const vmem_program *p = &r->prog;
  char a[48], b[48], c[48];
  char d[48], e[48];
  vmem_str rn = p->largest_reservation ? vmem_hlo_instruction_name(p->largest_reservation) : (vmem_str){"", 0};
  if (!p->count) {
    fprintf(CLI_OUT,
            "\nprogram-scoped VMEM: no value is laid out in S(1); the largest scoped reservation, %s (%%%.*s), "
            "%s physical %s\n",
            cli_bytes(d, sizeof d, p->scoped_reservation_bytes), (int)rn.len, rn.ptr,
            p->used_bytes > p->capacity_bytes ? "DOES NOT FIT" : "fits", cli_human(e, sizeof e, p->capacity_bytes));
    return;
  }
  fprintf(CLI_OUT, "\nprogram-scoped VMEM (values laid out in S(1), live over the %s schedule of %" PRId64 " steps):\n",
          p->scheduled ? "given" : "text-order (not scheduled)", p->schedule_length);
  size_t values = 0;
  for (size_t i = 0; i < p->count; i++)
    values += p->buffers[i].values;
  fprintf(CLI_OUT,
          "  %zu buffers (%zu values); peak live %s (lower bound), packed %s (best fit, as XLA's heap simulator), "
          "physical %s\n",
          p->count, values, cli_bytes(a, sizeof a, p->lower_bound_bytes), cli_bytes(b, sizeof b, p->peak_bytes),
          cli_human(c, sizeof c, p->capacity_bytes));
  if (p->scoped_in_heap)
    fprintf(CLI_OUT,
            "  with each instruction's requested scoped VMEM packed beside the values, as %s lays VMEM out (its "
            "scoped_memory_configs where the text has them, else %s; the largest %s, %%%.*s): used %s\n",
            vmem_target_name(r->t),
            r->tight ? "a kernel's footprint or a standard op's modelled choice (--tight)" : "its limit",
            cli_human(d, sizeof d, p->scoped_reservation_bytes), (int)rn.len, rn.ptr,
            cli_bytes(e, sizeof e, p->used_bytes));
  else
    fprintf(CLI_OUT,
            "  with each instruction's scoped reservation at offset 0 (the compiler's used figure where the text has "
            "it, else %s; the largest %s, %%%.*s): used %s\n",
            r->tight ? "a kernel's footprint or a standard op's modelled choice (--tight)" : "its limit",
            cli_human(d, sizeof d, p->scoped_reservation_bytes), (int)rn.len, rn.ptr,
            cli_bytes(e, sizeof e, p->used_bytes));
  char bar[256];
  fprintf(CLI_OUT, "  used   %s %s of %s\n", cli_usage_bar(bar, sizeof bar, p->used_bytes, p->capacity_bytes, 40),
          cli_human(a, sizeof a, p->used_bytes), cli_human(b, sizeof b, p->capacity_bytes));
  if (p->used_bytes > p->capacity_bytes)
    fprintf(CLI_OUT,
            "  verdict: %sDOES NOT FIT%s — %s over physical VMEM (the compiler's 'Ran out of memory in memory space "
            "vmem. Used X of Y vmem'); move values out of S(1), or lower the scoped limits\n",
            cli_tone(CLI_BAD), cli_tone(CLI_RESET), cli_human(a, sizeof a, p->used_bytes - p->capacity_bytes));
  else
    fprintf(CLI_OUT, "  verdict: %sfits%s, %s of physical VMEM to spare\n", cli_tone(CLI_OK), cli_tone(CLI_RESET),
            cli_human(a, sizeof a, p->capacity_bytes - p->used_bytes));
  const vmem_program_buffer **big = malloc(p->count * sizeof *big);
  if (!big)
    return;
  for (size_t i = 0; i < p->count; i++)
    big[i] = &p->buffers[i];
  for (size_t i = 1; i < p->count; i++) /* largest first; a stable insertion sort keeps schedule order */
    for (size_t j = i; j > 0 && big[j - 1]->bytes < big[j]->bytes; j--) {
      const vmem_program_buffer *t = big[j];
      big[j] = big[j - 1];
      big[j - 1] = t;
    }
  static const int right[] = {0, 1, 1, 1, 1, 1};
  cli_table tb;
  table_init(&tb, 6, right);
  table_add(&tb, "  BUFFER", "BYTES", "UNPADDED", "LIVE", "OFFSET", "VALUES");
  for (size_t i = 0; i < p->count && i < top; i++) {
    char nm[80], vn[72], by[32], un[32], lv[48], of[32], nv[16];
    snprintf(nm, sizeof nm, "  %s", value_name(big[i], vn, sizeof vn));
    snprintf(lv, sizeof lv, "[%" PRId64 ", %" PRId64 "]", big[i]->start, big[i]->end);
    snprintf(of, sizeof of, "%" PRIu64, big[i]->offset);
    snprintf(nv, sizeof nv, "%" PRIu32, big[i]->values);
    table_add(&tb, nm, cli_human(by, sizeof by, big[i]->bytes), cli_human(un, sizeof un, big[i]->unpadded_bytes), lv,
              of, nv);
  }
  table_print(&tb, CLI_OUT);
  table_free(&tb);
  if (r->timeline)
    print_peak(p, big);
  if (p->used_bytes > p->capacity_bytes)
    print_capacity_report(r, big, top);
  free(big);
}

static const char *dominant_name(const row *w, char *buf, size_t cap) {
  int64_t d = w->model.dominant;
  if (d >= 0 && (size_t)d < vmem_hlo_instruction_operand_count(w->in)) {
    vmem_str n = vmem_hlo_instruction_name(vmem_hlo_instruction_operand_at(w->in, (size_t)d));
    snprintf(buf, cap, "operand %%%.*s", (int)(n.len > 40 ? 40 : n.len), n.ptr);
  } else {
    snprintf(buf, cap, "%s", d == -1 ? "the result" : d == -2 ? "the f32 accumulator" : "an op of its body");
  }
  return buf;
}

enum { MODEL_ROWS = 5 };

/* The modelled standard ops with the most scoped VMEM: the least, the
 * modelled choice, the whole-array need, the limit, and the compiler's own
 * figure where the text has one (used_scoped_memory_configs). */
static void print_model_table(const report *r) {
  const row **all = malloc(r->nrows * sizeof *all);
  size_t n = 0;
  bool any_used = false;
  for (size_t k = 0; all && k < r->nrows; k++)
    if (r->rows[k].model.applies && r->rows[k].model.whole_bytes) { /* all in S(1): nothing streamed */
      all[n++] = &r->rows[k];
      any_used = any_used || (r->rows[k].has_scoped && r->rows[k].scoped->used_bytes >= 0);
    }
  if (!n) {
    free(all);
    return;
  }
  qsort(all, n, sizeof *all, chk_by_likely_desc);
  static const int right[] = {0, 0, 1, 1, 1, 1, 1};
  cli_table tb;
  table_init(&tb, any_used ? 7 : 6, right);
  table_add(&tb, "  INSTRUCTION", "RULE", "LEAST", "LIKELY", "WHOLE", "LIMIT", "COMPILER'S");
  for (size_t i = 0; i < n && i < MODEL_ROWS; i++) {
    const row *w = all[i];
    char nm[64] = "  %", a[48], b[48], c[48], d[48], u[48] = "-";
    cut(nm + 3, 48, vmem_hlo_instruction_name(w->in));
    if (w->has_scoped && w->scoped->used_bytes >= 0)
      cli_human(u, sizeof u, (uint64_t)w->scoped->used_bytes);
    table_add(&tb, nm, w->model.rule, cli_human(a, sizeof a, w->model.min_bytes),
              cli_human(b, sizeof b, chk_model_likely(w)), cli_human(c, sizeof c, w->model.whole_bytes),
              cli_human(d, sizeof d, w->model_limit), u);
  }
  char of[48] = "";
  if (n > MODEL_ROWS)
    snprintf(of, sizeof of, "the largest %d of ", MODEL_ROWS);
  fprintf(CLI_OUT,
          "standard ops by modelled scoped VMEM (%s%zu that stream through it; a model, not the compiler's "
          "figure):\n",
          of, n);
  table_print(&tb, CLI_OUT);
  table_free(&tb);
  free(all);
}

/* Standard ops whose least scoped VMEM, as modelled, exceeds their limit:
 * a likely compiler-side OOM, with the steps to report it. */
static void print_models(const report *r) {
  if (!r->flagged) {
    fprintf(CLI_OUT,
            "\nstandard ops: %zu modelled; none needs more scoped VMEM than its limit at the least "
            "(docs/program.md)\n",
            r->modelled);
    if (r->modelled)
      print_model_table(r);
    return;
  }
  fprintf(CLI_OUT,
          "\n%slikely compiler-side OOM%s (modelled): %zu standard op%s need%s more scoped VMEM than the "
          "limit even at the least\n",
          cli_tone(CLI_WARN), cli_tone(CLI_RESET), r->flagged, r->flagged == 1 ? "" : "s", r->flagged == 1 ? "s" : "");
  const row *first = NULL;
  for (size_t k = 0; k < r->nrows; k++) {
    const row *w = &r->rows[k];
    if (!w->model.applies || w->model.min_bytes <= w->model_limit)
      continue;
    char a[48], b[48], c[48], d[96];
    vmem_str n = vmem_hlo_instruction_name(w->in), op = vmem_hlo_instruction_opcode(w->in);
    fprintf(CLI_OUT, "  %%%.*s (%.*s, rule %s): at least %s against its limit %s; largest window: %s, %s\n", (int)n.len,
            n.ptr, (int)op.len, op.ptr, w->model.rule, cli_bytes(a, sizeof a, w->model.min_bytes),
            cli_human(b, sizeof b, w->model_limit), dominant_name(w, d, sizeof d),
            cli_human(c, sizeof c, w->model.dominant_bytes));
    first = first ? first : w;
  }
  vmem_str n = vmem_hlo_instruction_name(first->in);
  uint64_t need = vmem_request_bytes(first->model.min_bytes);
  uint64_t physical = vmem_target_u64(r->t, VMEM_FACT_VMEM_BYTES);
  fprintf(
      CLI_OUT,
      "  For a standard op the E1001 page's advice is that it is the compiler's to fix. Report it with a standalone\n"
      "  module: vmemscope repro %s --instruction %.*s -o repro.hlo, and the compiler's error, at\n"
      "  https://github.com/openxla/xla/issues.",
      r->path, (int)n.len, n.ptr);
  if (need <= physical)
    fprintf(CLI_OUT,
            " Meanwhile a larger limit may let it compile:\n  LIBTPU_INIT_ARGS=--xla_tpu_scoped_vmem_limit_kib=%" PRIu64
            " (within physical VMEM).\n",
            need / 1024);
  else
    fprintf(CLI_OUT,
            " No limit helps: even the least is beyond physical VMEM (%" PRIu64 " bytes);\n"
            "  split the op's input in the model's code (smaller arrays per op) instead.\n",
            physical);
  fputc('\n', CLI_OUT);
  print_model_table(r);
}

void chk_print_text(report *r, bool summary, size_t top) {
  vmem_str name = vmem_hlo_name(r->m);
  fprintf(CLI_OUT, "module %.*s: %zu computations, %zu instructions; target %s\n", (int)name.len, name.ptr,
          vmem_hlo_computation_count(r->m), vmem_hlo_instruction_total(r->m), vmem_target_name(r->t));
  fprintf(CLI_OUT, "schedule: %s\n",
          vmem_hlo_is_scheduled(r->m) ? "is_scheduled=true, text order is the execution order"
                                      : "not scheduled (no is_scheduled=true): text order is only the dataflow order");
  size_t k = 0;
  for (size_t c = 0; c < vmem_hlo_computation_count(r->m); c++) {
    const vmem_hlo_computation *comp = vmem_hlo_computation_at(r->m, c);
    if (!summary) {
      print_computation(r, comp, &k);
      continue;
    }
    for (size_t i = 0; i < vmem_hlo_computation_instruction_count(comp); i++, k++)
      if (chk_is_custom_call(r->rows[k].in)) {
        vmem_str nm = vmem_hlo_instruction_name(r->rows[k].in);
        fprintf(CLI_OUT, "custom call %%%.*s\n", (int)nm.len, nm.ptr);
        print_custom_call(r, &r->rows[k]);
      }
  }
  print_summary(r, top);
  print_models(r);
  if (r->has_prog)
    print_program(r, top);
}
