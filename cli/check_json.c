/*
 * check_json.c — check's report of an HLO module as JSON (docs/json.md),
 * whole or streamed one instruction at a time (check.h).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* ---- JSON ----------------------------------------------------------------- */

static json_t *json_str(vmem_str s) { return json_stringn(s.ptr, s.len); }

static json_t *json_row(report *r, const row *w) {
  json_t *o = json_object(), *ops = json_array();
  const char *s = chk_row_shape(r, w);
  json_object_set_new(o, "name", json_str(vmem_hlo_instruction_name(w->in)));
  json_object_set_new(o, "opcode", json_str(vmem_hlo_instruction_opcode(w->in)));
  json_object_set_new(o, "shape", json_string(s ? s : ""));
  json_object_set_new(o, "layout_source", json_string(w->given ? "given" : "default"));
  json_object_set_new(o, "bytes", w->sized ? json_integer((json_int_t)w->size.bytes) : json_null());
  json_object_set_new(o, "unpadded_bytes", w->sized ? json_integer((json_int_t)w->size.unpadded_bytes) : json_null());
  json_object_set_new(o, "memory_space", json_integer(w->laid ? vmem_shape_memory_space(w->laid) : 0));
  json_object_set_new(o, "defines_buffer", json_boolean(vmem_hlo_instruction_defines_buffer(w->in)));
  for (size_t k = 0; k < vmem_hlo_instruction_operand_count(w->in); k++)
    json_array_append_new(ops, json_str(vmem_hlo_instruction_name(vmem_hlo_instruction_operand_at(w->in, k))));
  json_object_set_new(o, "operands", ops);
  vmem_str on = vmem_hlo_instruction_op_name(w->in);
  if (on.len)
    json_object_set_new(o, "op_name", json_str(on));
  if (chk_is_custom_call(w->in)) {
    json_object_set_new(o, "custom_call_target", json_str(vmem_hlo_instruction_custom_call_target(w->in)));
    vmem_str kn = vmem_hlo_instruction_kernel_name(w->in);
    if (kn.len)
      json_object_set_new(o, "kernel_name", json_str(kn));
  }
  if (w->has_scoped) {
    json_object_set_new(o, "vmem_limit_bytes",
                        w->scoped->limit_bytes >= 0 ? json_integer(w->scoped->limit_bytes) : json_null());
    json_object_set_new(o, "used_scoped_bytes",
                        w->scoped->used_bytes >= 0 ? json_integer(w->scoped->used_bytes) : json_null());
  }
  if (w->model.applies)
    json_object_set_new(o, "scoped_model",
                        json_pack("{s:I,s:s,s:I,s:b,s:I,s:I,s:I}", "min_bytes", (json_int_t)w->model.min_bytes, "rule",
                                  w->model.rule, "limit_bytes", (json_int_t)w->model_limit, "likely_compiler_oom",
                                  w->model.min_bytes > w->model_limit, "dominant_bytes",
                                  (json_int_t)w->model.dominant_bytes, "likely_bytes", (json_int_t)chk_model_likely(w),
                                  "whole_bytes", (json_int_t)w->model.whole_bytes));
  if (w->k) {
    json_t *kj = NULL;
    int v = kernel_brief(w->k, r->t, r->in, r->opt, "", &kj, NULL);
    r->worst = v > r->worst ? v : r->worst;
    json_object_set_new(o, "kernel", kj);
  } else if (w->scoped->has_kernel_body) {
    json_object_set_new(o, "kernel", json_pack("{s:s}", "error", w->kerr ? w->kerr : ""));
  }
  return o;
}

/* Whether row w is in the document: every row, or with --summary the
 * custom calls alone (as the text summary lists them); report's document
 * (lean) the rows its page reads: kernels, the largest used figures, the
 * model's flags and its table. A page of a million-instruction module then
 * needs a tree of a few hundred rows, not of a GB. */
static bool json_keeps(const report *r, const row *w) {
  if (r->lean)
    return chk_is_custom_call(w->in) || w->top_used || (w->model.applies && w->model.min_bytes > w->model_limit) ||
           w->top_model;
  return !r->summary || chk_is_custom_call(w->in);
}

/* A computation's object; its instructions from row *k on, or (streamed)
 * a null in their place. */
static json_t *json_computation(report *r, const vmem_hlo_computation *comp, size_t *k, bool with_rows) {
  json_t *o = json_object(), *ins = with_rows ? json_array() : json_null();
  json_object_set_new(o, "name", json_str(vmem_hlo_computation_name(comp)));
  json_object_set_new(o, "is_entry", json_boolean(vmem_hlo_computation_is_entry(comp)));
  json_object_set_new(o, "is_fusion", json_boolean(vmem_hlo_computation_is_fusion(comp)));
  vmem_str thread = vmem_hlo_computation_thread(comp); /* "" for the main thread, as json.md says (a NULL
                                                          view made no string, and the key went missing) */
  json_object_set_new(o, "execution_thread", json_stringn(thread.ptr ? thread.ptr : "", thread.len));
  for (size_t i = 0; with_rows && i < vmem_hlo_computation_instruction_count(comp); i++, (*k)++)
    if (json_keeps(r, &r->rows[*k]))
      json_array_append_new(ins, json_row(r, &r->rows[*k]));
  json_object_set_new(o, "instructions", ins);
  return o;
}

/* The check document; with streamed, "computations" is a null to be
 * replaced by stream_report. */
json_t *chk_json_report(report *r, size_t top, bool streamed) {
  json_t *root = cli_json_root("check"), *comps = streamed ? json_null() : json_array();
  json_object_set_new(root, "module", json_str(vmem_hlo_name(r->m)));
  json_object_set_new(root, "target", json_string(vmem_target_name(r->t)));
  json_object_set_new(root, "is_scheduled", json_boolean(vmem_hlo_is_scheduled(r->m)));
  size_t k = 0;
  for (size_t c = 0; !streamed && c < vmem_hlo_computation_count(r->m); c++)
    json_array_append_new(comps, json_computation(r, vmem_hlo_computation_at(r->m, c), &k, true));
  json_object_set_new(root, "computations", comps);
  if (r->lean)
    json_object_set_new(root, "omitted_bars", json_integer((json_int_t)r->omitted_bars));
  vmem_module_buffers mb;
  if (!chk_module_buffers(r, top, &mb))
    memset(&mb, 0, sizeof mb);
  json_t *tot = json_array();
  for (size_t i = 0; i < mb.nspaces; i++) {
    json_t *o = json_object();
    json_object_set_new(o, "memory_space", json_integer(mb.spaces[i].memory_space));
    json_object_set_new(o, "buffers", json_integer((json_int_t)mb.spaces[i].buffers));
    json_object_set_new(o, "bytes", json_integer((json_int_t)mb.spaces[i].bytes));
    json_object_set_new(o, "unpadded_bytes", json_integer((json_int_t)mb.spaces[i].unpadded_bytes));
    json_array_append_new(tot, o);
  }
  json_object_set_new(root, "totals", tot);
  json_t *lg = json_array();
  for (size_t i = 0; i < mb.nlargest; i++) {
    const vmem_hlo_instruction *in = mb.largest[i].instruction;
    const row *w = chk_row_of(r, in);
    json_t *o = json_object();
    char *st = chk_shape_text(w && w->laid ? w->laid : vmem_hlo_instruction_shape(in));
    json_object_set_new(o, "name", json_str(vmem_hlo_instruction_name(in)));
    json_object_set_new(o, "computation", json_str(vmem_hlo_computation_name(vmem_hlo_instruction_parent(in))));
    json_object_set_new(o, "shape", json_string(st ? st : ""));
    json_object_set_new(o, "bytes", json_integer((json_int_t)mb.largest[i].bytes));
    json_array_append_new(lg, o);
    free(st);
  }
  vmem_module_buffers_free(&mb);
  json_object_set_new(root, "largest", lg);
  if (r->has_prog) {
    const vmem_program *p = &r->prog;
    json_t *pj = json_object(), *bufs = json_array();
    json_object_set_new(pj, "peak_bytes", json_integer((json_int_t)p->peak_bytes));
    json_object_set_new(pj, "lower_bound_bytes", json_integer((json_int_t)p->lower_bound_bytes));
    json_object_set_new(pj, "peak_time", json_integer((json_int_t)p->peak_time));
    json_object_set_new(pj, "capacity_bytes", json_integer((json_int_t)p->capacity_bytes));
    json_object_set_new(pj, "scoped_reservation_bytes", json_integer((json_int_t)p->scoped_reservation_bytes));
    json_object_set_new(pj, "used_bytes", json_integer((json_int_t)p->used_bytes));
    json_object_set_new(pj, "fits", json_boolean(p->used_bytes <= p->capacity_bytes));
    json_object_set_new(pj, "scoped_in_heap", json_boolean(p->scoped_in_heap));
    json_object_set_new(pj, "schedule_length", json_integer((json_int_t)p->schedule_length));
    for (size_t i = 0; i < p->count; i++) {
      const vmem_program_buffer *b = &p->buffers[i];
      json_t *o = json_object();
      json_object_set_new(o, "name", json_str(vmem_hlo_instruction_name(b->instruction)));
      json_object_set_new(o, "leaf", json_integer((json_int_t)b->leaf));
      json_object_set_new(o, "values", json_integer((json_int_t)b->values));
      json_object_set_new(o, "bytes", json_integer((json_int_t)b->bytes));
      json_object_set_new(o, "unpadded_bytes", json_integer((json_int_t)b->unpadded_bytes));
      json_object_set_new(o, "start", json_integer((json_int_t)b->start));
      json_object_set_new(o, "end", json_integer((json_int_t)b->end));
      json_object_set_new(o, "offset", json_integer((json_int_t)b->offset));
      json_array_append_new(bufs, o);
    }
    json_object_set_new(pj, "buffers", bufs);
    json_t *resv = json_array();
    for (size_t i = 0; i < p->nreservations && (!r->lean || i < CLI_REPORT_RECTS); i++) { /* the page draws these */
      const vmem_program_reservation *v = &p->reservations[i];
      json_t *o = json_object();
      json_object_set_new(o, "start", json_integer((json_int_t)v->start));
      json_object_set_new(o, "end", json_integer((json_int_t)v->end));
      json_object_set_new(o, "bytes", json_integer((json_int_t)v->bytes));
      json_object_set_new(o, "instruction",
                          v->instruction ? json_str(vmem_hlo_instruction_name(v->instruction)) : json_null());
      json_array_append_new(resv, o);
    }
    json_object_set_new(pj, "reservations", resv);
    json_object_set_new(root, "program", pj);
  }
  return root;
}

/* ---- streamed JSON -----------------------------------------------------------
 * A module of a million instructions makes a document tree of more than a
 * GB; the instructions are written one object at a time instead, each
 * dumped by jansson and indented to its depth, inside the rest of the
 * document dumped with nulls in their place: byte for byte what dumping the
 * whole tree prints (the JSON goldens hold it to that). */
enum { JSON_FLAGS = JSON_INDENT(2) | JSON_PRESERVE_ORDER };

static char *json_dumps_row(report *r, const row *w) {
  json_t *o = json_row(r, w);
  char *s = o ? json_dumps(o, JSON_FLAGS) : NULL;
  json_decref(o);
  return s;
}

/* s[0..len), a line break followed by `indent` more spaces. */
static void put_indented(const char *s, size_t len, int indent) {
  for (const char *e = s + len, *nl; s < e; s = nl + 1) {
    nl = memchr(s, '\n', (size_t)(e - s));
    if (!nl) {
      fwrite(s, 1, (size_t)(e - s), CLI_OUT);
      return;
    }
    fwrite(s, 1, (size_t)(nl + 1 - s), CLI_OUT);
    for (int k = indent; k > 0; k -= 16) /* not fprintf("%*s"): once a line, millions of lines */
      fwrite("                ", 1, (size_t)(k < 16 ? k : 16), CLI_OUT);
  }
}

/* Dumps v and splits it at the null of its top-level `key`: *head is the
 * text up to that value, *tail the text after. NULL when out of memory. */
static char *dump_split(json_t *v, const char *key, size_t *head, const char **tail) {
  char *s = json_dumps(v, JSON_FLAGS), pat[64];
  json_decref(v);
  snprintf(pat, sizeof pat, "\n  \"%s\": null", key); /* at depth 1: a string holds no raw line break */
  char *at = s ? strstr(s, pat) : NULL;
  if (!at) {
    free(s);
    return NULL;
  }
  *head = (size_t)(at - s) + strlen(pat) - 4;
  *tail = at + strlen(pat);
  return s;
}

/* One computation at depth 2 of the document, its instructions streamed. */
static bool stream_computation(report *r, const vmem_hlo_computation *comp, size_t *k) {
  size_t head, all = vmem_hlo_computation_instruction_count(comp), n = 0, written = 0;
  const char *tail;
  char *s = dump_split(json_computation(r, comp, k, false), "instructions", &head, &tail);
  if (!s)
    return false;
  for (size_t i = 0; i < all; i++)
    n += json_keeps(r, &r->rows[*k + i]);
  fputs("    ", CLI_OUT);
  put_indented(s, head, 4);
  fputs(n ? "[\n" : "[]", CLI_OUT);
  for (size_t i = 0; i < all; i++, (*k)++) {
    if (!json_keeps(r, &r->rows[*k]))
      continue;
    char *o = json_dumps_row(r, &r->rows[*k]);
    if (!o) {
      free(s);
      return false;
    }
    fputs("        ", CLI_OUT);
    put_indented(o, strlen(o), 8);
    fputs(++written < n ? ",\n" : "\n      ]", CLI_OUT);
    free(o);
  }
  put_indented(tail, strlen(tail), 4);
  free(s);
  return true;
}

/* Prints the check document with its instructions streamed. */
int chk_stream_report(report *r, size_t top) {
  size_t head, k = 0, nc = vmem_hlo_computation_count(r->m);
  const char *tail;
  char *s = dump_split(chk_json_report(r, top, true), "computations", &head, &tail);
  bool ok = s != NULL;
  if (ok) {
    fwrite(s, 1, head, CLI_OUT);
    fputs(nc ? "[\n" : "[]", CLI_OUT);
  }
  for (size_t c = 0; ok && c < nc; c++) {
    ok = stream_computation(r, vmem_hlo_computation_at(r->m, c), &k);
    fputs(c + 1 < nc ? ",\n" : "\n  ]", CLI_OUT);
  }
  if (ok)
    fprintf(CLI_OUT, "%s\n", tail);
  free(s);
  if (!ok)
    cli_error(NULL, "out of memory printing JSON");
  return ok ? EXIT_OK : EXIT_BAD;
}
