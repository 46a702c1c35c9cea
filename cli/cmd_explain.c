/*
 * cmd_explain.c — `vmemscope explain [FILE...] [--target T] [--json]`
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char help[] =
    "usage: vmemscope explain [FILE|DIR...] [--target T] [--json]\n\n"
    "Finds TPU compiler memory errors in logs (standard input without FILE; a\n"
    "folder stands for the *.log, *.err, *.out and *.txt files in it):\n"
    "scoped VMEM (E1001), program-wide VMEM, a limit above physical VMEM, SMEM,\n"
    "HBM, and other tools' look-alikes. For each: the kind, the instruction and\n"
    "whether it is a custom kernel (with the evidence), every printed size as the\n"
    "byte interval it stands for, the TPU generations consistent with the figures,\n"
    "each listing entry's shape recomputed, and the remedies with numbers.\n"
    "Identical errors are folded with a count; a mention without figures (a\n"
    "pasted issue's quoted title, a sentence naming the error) folds into the\n"
    "printed report it stands for. Logs read as pasted: wrapped lines, markdown\n"
    "quotes and fences, HTML entities, repr and JSON escapes, colour codes and\n"
    "logger prefixes are undone, and each report says which it was read from.\n"
    "A .gz or .zst log (by its magic bytes, a file or standard input) is read\n"
    "directly.\n\n"
    "options:\n"
    "  --target T   size listing shapes and check the figures for this generation\n"
    "  --kernel K   the kernel (any input check reads with one kernel): its exact footprint is set\n"
    "               against the printed size, and block changes that fit the printed limit\n"
    "  --hlo H      the HLO module: the instruction the error names is found in it, and\n"
    "               when it is a Pallas custom call, its kernel set against the figures\n"
    "  --recompile M  compile M, the StableHLO module the log came from, with the real compiler\n"
    "               (libtpu, docs/compiler.md) and say whether it gives the log's E1001 again;\n"
    "               --libtpu, --compile-timeout and --topology as for check --compile\n"
    "  --json       print JSON (docs/json.md)\n\n"
    "Exit status: 1 when an error was explained, 0 when none was found, 2 when\n"
    "the input cannot be read.\n\n"
    "examples:\n"
    "  vmemscope explain train.log\n"
    "  kubectl logs pod | vmemscope explain --target v5e\n"
    "  vmemscope explain err.txt --hlo module.hlo --json\n";

static const char *kind_title(vmem_oom_kind k) {
  switch (k) {
  case VMEM_OOM_SCOPED_VMEM:
    return "scoped VMEM (E1001): an instruction's scoped allocations exceed its limit";
  case VMEM_OOM_PROGRAM_VMEM:
    return "program-wide VMEM: the program's VMEM does not fit the capacity";
  case VMEM_OOM_VMEM_REQUEST:
    return "a scoped VMEM request above the memory there is";
  case VMEM_OOM_SMEM:
    return "SMEM: scalar memory is full";
  case VMEM_OOM_HBM:
    return "HBM (not VMEM)";
  case VMEM_OOM_NOT_COMPILER:
    return "not from the compiler: another tool's estimate in the compiler's words";
  case VMEM_OOM_EMITTER_ABORT:
    return "the compiler aborted: the global scoped VMEM limit leaves the reduce-window emitter none";
  default:
    return "an allocation listing whose header is not in the log";
  }
}

/* A figure as printed and as its byte interval; a derived one says from
 * what (`rule`, NULL when the log printed it). */
static void print_printed(const char *what, const vmem_printed *p, const char *rule) {
  if (!p->present)
    return;
  if (p->lo == p->hi)
    fprintf(CLI_OUT, "  %-9s %s = %" PRIu64 " bytes", what, p->text, p->lo);
  else
    fprintf(CLI_OUT, "  %-9s %s = %" PRIu64 "..%" PRIu64 " bytes", what, p->text, p->lo, p->hi);
  if (rule)
    fprintf(CLI_OUT, " (derived: the log lacks it; %s)", rule);
  fprintf(CLI_OUT, "\n");
}

/* "quoted, wrapped": the forms the report was read out of. */
static void forms_text(unsigned forms, char *buf, size_t cap) {
  size_t n = 0;
  buf[0] = '\0';
  for (unsigned i = 0; i < VMEM_FORM_COUNT && n < cap; i++)
    if (forms & (1u << i))
      n += (size_t)snprintf(buf + n, cap - n, "%s%s", n ? ", " : "", vmem_log_form_name(i));
}

/* The figure that names an error's generation and the fact it is held to:
 * a scoped limit against the default limits, a capacity against VMEM or
 * SMEM. False for the kinds whose figures name none. */
static bool target_figure(const vmem_log_error *e, const vmem_printed **by, vmem_fact_id *id) {
  *by = e->kind == VMEM_OOM_SCOPED_VMEM ? &e->limit : &e->capacity;
  *id = e->kind == VMEM_OOM_SCOPED_VMEM ? VMEM_FACT_SCOPED_DEFAULT_BYTES
        : e->kind == VMEM_OOM_SMEM      ? VMEM_FACT_SMEM_BYTES
                                        : VMEM_FACT_VMEM_BYTES;
  return (*by)->present &&
         (e->kind == VMEM_OOM_SCOPED_VMEM || e->kind == VMEM_OOM_PROGRAM_VMEM || e->kind == VMEM_OOM_SMEM);
}

/* The generations whose fact is nearest the printed interval p, into out
 * (at most cap; how many returned): inside it when *gap is 0, else the
 * nearest outside (a capacity less some reserve, 64 MiB less 64 KiB), at
 * *fact bytes. */
static size_t nearest_targets(const vmem_printed *p, vmem_fact_id id, const vmem_target **out, size_t cap,
                              uint64_t *gap, uint64_t *fact) {
  *gap = UINT64_MAX, *fact = 0;
  for (size_t i = 0; i < vmem_target_count(); i++) {
    uint64_t v = vmem_target_u64(vmem_target_at(i), id);
    uint64_t d = v > p->hi ? v - p->hi : v < p->lo ? p->lo - v : 0;
    if (v && d < *gap)
      *gap = d, *fact = v;
  }
  size_t n = 0;
  for (size_t i = 0; *fact && i < vmem_target_count() && n < cap; i++) {
    uint64_t v = vmem_target_u64(vmem_target_at(i), id);
    uint64_t d = v > p->hi ? v - p->hi : v < p->lo ? p->lo - v : 0;
    if (v && d == *gap)
      out[n++] = vmem_target_at(i);
  }
  return n;
}

static void names_text(const vmem_target *const *t, size_t n, char *buf, size_t cap) {
  size_t len = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < n && len + 8 < cap; i++)
    len += (size_t)snprintf(buf + len, cap - len, "%s%s", i ? ", " : "", vmem_target_name(t[i]));
}

static void print_targets(const vmem_log_error *e) {
  const vmem_printed *by;
  vmem_fact_id id;
  if (!target_figure(e, &by, &id))
    return;
  const vmem_target *near[32];
  uint64_t gap, fact;
  char b[256], h[32];
  names_text(near, nearest_targets(by, id, near, 32, &gap, &fact), b, sizeof b);
  if (e->kind == VMEM_OOM_SCOPED_VMEM && !gap)
    fprintf(CLI_OUT, "  targets   a limit of %s is the default on %s, or an explicit limit\n", by->text, b);
  else if (e->kind == VMEM_OOM_SCOPED_VMEM)
    fprintf(CLI_OUT, "  targets   a limit of %s is no generation's default: set by vmem_limit_bytes or the flag\n",
            by->text);
  else if (!gap)
    fprintf(CLI_OUT, "  targets   a capacity of %s means %s\n", by->text, b);
  else
    fprintf(CLI_OUT, "  targets   no generation has %s of %s (a capacity less a reserve?); nearest: %s on %s\n",
            by->text, e->kind == VMEM_OOM_SMEM ? "SMEM" : "VMEM", cli_human(h, sizeof h, fact), b);
}

static void print_listing(const vmem_log_error *e) {
  if (!e->nallocs)
    return;
  static const int right[] = {1, 1, 0, 1, 0, 0, 0};
  cli_table tb;
  table_init(&tb, 7, right);
  table_add(&tb, "    #", "SIZE", "SHAPE", "UNPADDED", "RECOMPUTED", "TYPE", "LABEL");
  uint64_t total = 0, spill = 0, pad = 0;
  for (size_t i = 0; i < e->nallocs; i++) {
    const vmem_log_alloc *a = &e->allocs[i];
    char n[32], rc[64], lab[64];
    snprintf(n, sizeof n, "    %zu", i + 1);
    if (a->recomputed)
      snprintf(rc, sizeof rc, "%" PRIu64 " %s", a->recomputed_bytes,
               a->size_agrees && a->unpadded_agrees ? "agrees" : "DISAGREES");
    else
      snprintf(rc, sizeof rc, "%s", a->shape ? "cannot size" : "-");
    vmem_str l = {a->label ? a->label : "", a->label ? strlen(a->label) : 0};
    snprintf(lab, sizeof lab, "%.*s%s", (int)(l.len > 48 ? 48 : l.len), l.ptr, l.len > 48 ? "..." : "");
    table_add(&tb, n, a->size.present ? a->size.text : "-", a->shape ? a->shape : "-",
              a->unpadded.present ? a->unpadded.text : "-", rc, a->allocation_type ? a->allocation_type : "-", lab);
    total += a->size.lo;
    if (a->spill)
      spill += a->size.lo;
    if (a->extra.present)
      pad += a->extra.lo;
    else if (a->size.present && a->unpadded.present && a->size.lo > a->unpadded.hi)
      pad += a->size.lo - a->unpadded.hi;
  }
  fprintf(CLI_OUT, "  listing (%zu entries%s%s):\n", e->nallocs, e->nallocs >= 64 ? ", the first 64" : "",
          e->listing_cut ? "; the log is cut inside the last, which is shown as far as it goes" : "");
  table_print(&tb, CLI_OUT);
  table_free(&tb);
  if (total)
    fprintf(CLI_OUT, "  of the listed bytes: spill slots %.0f%%, padding %.0f%%\n",
            100.0 * (double)spill / (double)total, 100.0 * (double)pad / (double)total);
}

static void print_physical_fit(uint64_t request) {
  char b[256];
  size_t len = 0, n = 0;
  b[0] = '\0';
  for (size_t i = 0; i < vmem_target_count(); i++) {
    const vmem_target *t = vmem_target_at(i);
    if (vmem_target_u64(t, VMEM_FACT_VMEM_BYTES) >= request && len + 8 < sizeof b)
      len += (size_t)snprintf(b + len, sizeof b - len, "%s%s", n++ ? ", " : "", vmem_target_name(t));
  }
  fprintf(CLI_OUT, "     within physical VMEM on: %s\n", n ? b : "no generation");
}

/* The library's remedies for e (vmem_log_error_remedies): text, JSON and the
 * report render this one decision. */
static vmem_log_remedies remedies_of(const vmem_log_error *e) {
  vmem_log_remedies r;
  vmem_error err;
  if (vmem_log_error_remedies(e, &r, &err) != VMEM_OK)
    memset(&r, 0, sizeof r);
  return r;
}

static void remedies_scoped(const vmem_log_error *e) {
  char b[32];
  vmem_log_remedies r = remedies_of(e);
  if (!r.scoped)
    return;
  uint64_t req = r.request_bytes;
  if (r.likely_compiler_bug) {
    fprintf(CLI_OUT, "  remedies (a standard HLO op, not a custom kernel: likely a compiler bug):\n");
    fprintf(CLI_OUT,
            "  1. file a bug against XLA with: the HLO dump (--xla_dump_to=DIR --xla_dump_hlo_as_text), the flags in "
            "force (LIBTPU_INIT_ARGS, XLA_FLAGS), and this message\n");
    fprintf(CLI_OUT,
            "  2. stop-gap: LIBTPU_INIT_ARGS=--xla_tpu_scoped_vmem_limit_kib=%" PRIu64
            "  # %s, the printed size rounded "
            "up to a MiB\n",
            req / 1024, cli_human(b, sizeof b, req));
    fprintf(CLI_OUT,
            "  3. a small reproducer to attach: vmemscope repro DUMP/MODULE.after_optimizations.txt --instruction %s\n",
            e->instruction ? e->instruction : "NAME");
    return;
  }
  fprintf(
      CLI_OUT,
      "  remedies, in this order: smaller blocks, a per-kernel limit, Buffered(1) or coloring, the global flag%s:\n",
      r.custom_kernel_unknown ? " (if this is a custom kernel)" : "");
  if (r.shrink_factor > 0)
    fprintf(CLI_OUT,
            "  1. smaller blocks: the windows must shrink by a factor of at least %.2f (size / limit), e.g. halve "
            "the largest block dimension\n",
            r.shrink_factor);
  if (r.limit_can_help) {
    fprintf(CLI_OUT,
            "  2. pltpu.CompilerParams(vmem_limit_bytes=%" PRIu64 ")  # %s, the printed size rounded up to a MiB\n",
            req, cli_human(b, sizeof b, req));
    print_physical_fit(req);
  } else {
    fprintf(CLI_OUT,
            "  2. no limit can help: %s is more than the physical VMEM of any generation (%s at most); only "
            "smaller blocks (1) or fewer buffers (3) make it fit\n",
            e->size.text, cli_human(b, sizeof b, r.max_physical_bytes));
  }
  fprintf(CLI_OUT,
          "  3. pl.Buffered(1) for inputs whose block does not change along the innermost grid axis; "
          "pltpu.with_memory_space_constraint to color an input to VMEM (its whole array becomes program-scoped)\n");
  if (r.limit_can_help)
    fprintf(CLI_OUT, "  4. many kernels over: LIBTPU_INIT_ARGS=--xla_tpu_scoped_vmem_limit_kib=%" PRIu64 "\n",
            req / 1024);
  fprintf(CLI_OUT,
          "  check the kernel offline with 'vmemscope check kernel.json' for the exact footprint and block sizes\n");
}

static void remedies_program(const vmem_log_error *e) {
  vmem_log_remedies r = remedies_of(e);
  fprintf(CLI_OUT, "  remedies:\n");
  for (size_t i = 0; i < r.nprogram; i++)
    fprintf(CLI_OUT, "  - %s\n", r.program[i].text);
}

/* What --kernel and --hlo give: the kernel's exact footprint, or the HLO
 * instruction the error names. */
typedef struct linked {
  const vmem_kernel *k;
  const vmem_target *t;
  const vmem_hlo_module *m;
} linked;

static const char *bare(const char *name) { return name && name[0] == '%' ? name + 1 : name; }

/* A kernel (given with --kernel, or the one the --hlo instruction
 * carries) set against a scoped error's figures; `tag` says which. */
static void link_kernel(const linked *ln, const vmem_kernel *k, const char *tag, const vmem_log_error *e) {
  vmem_footprint f;
  vmem_error err;
  char b[48], c[48];
  if (vmem_kernel_footprint(k, ln->t, NULL, &f, &err) != VMEM_OK) {
    fprintf(CLI_OUT, "  %-9s  %s: %s\n", tag, vmem_kernel_name(k), err.message);
    return;
  }
  fprintf(CLI_OUT, "  %-9s  %s on %s: windows + scratch %s exactly", tag, vmem_kernel_name(k), vmem_target_name(ln->t),
          cli_bytes(b, sizeof b, f.scoped_bytes));
  if (e->size.present && f.scoped_bytes >= e->size.lo && f.scoped_bytes <= e->size.hi)
    fprintf(CLI_OUT, ": the printed size, to the byte interval\n");
  else if (e->size.present && f.scoped_bytes < e->size.lo)
    fprintf(CLI_OUT, "; the compiler allocated %s more (spills, intermediates, internal scratch)\n",
            cli_human(c, sizeof c, e->size.lo - f.scoped_bytes));
  else if (e->size.present)
    fprintf(CLI_OUT, "; more than the printed size: is this the same kernel and generation?\n");
  else
    fprintf(CLI_OUT, "\n");
  vmem_remedies r;
  bool over = e->limit.present && f.scoped_bytes > e->limit.lo; /* block changes only help a kernel that is over */
  if (over && vmem_kernel_remedies(k, ln->t, NULL, e->limit.lo, &r, &err) == VMEM_OK) {
    for (size_t i = 0; i < r.nshrink; i++) {
      const vmem_shrink *s = &r.shrink[i];
      if (s->param_name)
        fprintf(CLI_OUT, "  %-9s  fits the printed limit with %s %" PRId64 " -> %" PRId64 " (scoped %s)\n", tag,
                s->param_name, s->from, s->to, cli_human(b, sizeof b, s->scoped_bytes));
      else
        fprintf(CLI_OUT,
                "  %-9s  fits the printed limit with %s block dim %zu: %" PRId64 " -> %" PRId64 " (scoped %s)\n", tag,
                vmem_kernel_operand(k, s->operand)->name, s->dim, s->from, s->to,
                cli_human(b, sizeof b, s->scoped_bytes));
    }
    for (size_t i = 0; i < r.nbuffered1; i++)
      fprintf(CLI_OUT, "  %-9s  pl.Buffered(1) on %s saves %s\n", tag,
              vmem_kernel_operand(k, r.buffered1[i].operand)->name, cli_human(b, sizeof b, r.buffered1[i].saved_bytes));
  }
  vmem_footprint_free(&f);
}

/* The instruction named `name` (no '%') in the module, or NULL. */
static const vmem_hlo_instruction *find_instruction(const vmem_hlo_module *m, const char *name) {
  for (size_t c = 0; c < vmem_hlo_computation_count(m); c++) {
    const vmem_hlo_computation *comp = vmem_hlo_computation_at(m, c);
    for (size_t i = 0; i < vmem_hlo_computation_instruction_count(comp); i++) {
      const vmem_hlo_instruction *in = vmem_hlo_computation_instruction_at(comp, i);
      vmem_str n = vmem_hlo_instruction_name(in);
      if (n.len == strlen(name) && !memcmp(n.ptr, name, n.len))
        return in;
    }
  }
  return NULL;
}

static size_t instruction_line(const vmem_hlo_module *m, const vmem_hlo_instruction *in) {
  size_t line;
  vmem_str text = vmem_hlo_text(m);
  vmem_locate(text.ptr, text.len, vmem_hlo_instruction_offset(in), &line, NULL);
  return line;
}

static int64_t instruction_limit(const vmem_hlo_instruction *in) {
  vmem_hlo_scoped sc;
  vmem_error err;
  return vmem_hlo_instruction_scoped(in, &sc, &err) == VMEM_OK ? sc.limit_bytes : -1;
}

/* The kernel of the instruction the error names, when --hlo has it and
 * it carries a Mosaic body; NULL otherwise (a body that cannot be read is
 * said in a line, not fatal: the log is still explained). */
static vmem_kernel *instruction_kernel(const linked *ln, const vmem_log_error *e, bool quiet) {
  const char *name = bare(e->instruction);
  const vmem_hlo_instruction *in = name ? find_instruction(ln->m, name) : NULL;
  vmem_hlo_scoped sc;
  vmem_error err;
  if (!in || vmem_hlo_instruction_scoped(in, &sc, &err) != VMEM_OK || !sc.has_kernel_body)
    return NULL;
  vmem_kernel *k = vmem_hlo_instruction_kernel(in, NULL, &err);
  if (!k && !quiet)
    fprintf(CLI_OUT, "  --hlo      its Mosaic body cannot be read: %s\n", err.message);
  return k;
}

/* The instruction the error names, found in the module given with --hlo. */
static void link_hlo(const linked *ln, const vmem_log_error *e) {
  const char *name = bare(e->instruction);
  if (!name)
    return;
  const vmem_hlo_instruction *in = find_instruction(ln->m, name);
  if (!in) {
    fprintf(CLI_OUT, "  --hlo      %%%s is not in the module given\n", name);
    return;
  }
  vmem_str cn = vmem_hlo_computation_name(vmem_hlo_instruction_parent(in));
  vmem_str tg = vmem_hlo_instruction_custom_call_target(in);
  fprintf(CLI_OUT, "  --hlo      %%%s is on line %zu, in %%%.*s", name, instruction_line(ln->m, in), (int)cn.len,
          cn.ptr);
  if (tg.len)
    fprintf(CLI_OUT, ", custom_call_target=\"%.*s\"", (int)tg.len, tg.ptr);
  int64_t limit = instruction_limit(in);
  char b[48];
  if (limit >= 0)
    fprintf(CLI_OUT, ", its scoped_memory_configs limit %s", cli_bytes(b, sizeof b, (uint64_t)limit));
  fprintf(CLI_OUT, "\n");
}

/* The same links as JSON: {"kernel": {...}, "hlo": {...}}, each null when
 * not given or not applicable. */
static json_t *json_links(const linked *ln, const vmem_log_error *e) {
  json_t *o = json_object(), *jk = json_null(), *jh = json_null();
  vmem_footprint f;
  vmem_error err;
  bool scoped = e->kind == VMEM_OOM_SCOPED_VMEM || e->kind == VMEM_OOM_VMEM_REQUEST;
  vmem_kernel *own = scoped && !ln->k && ln->m ? instruction_kernel(ln, e, true) : NULL;
  const vmem_kernel *k = ln->k ? ln->k : own;
  if (k && scoped && vmem_kernel_footprint(k, ln->t, NULL, &f, &err) == VMEM_OK) {
    jk = json_object();
    json_object_set_new(jk, "name", json_string(vmem_kernel_name(k)));
    json_object_set_new(jk, "from", json_string(ln->k ? "--kernel" : "--hlo"));
    json_object_set_new(jk, "target", json_string(vmem_target_name(ln->t)));
    json_object_set_new(jk, "scoped_bytes", json_integer((json_int_t)f.scoped_bytes));
    json_object_set_new(jk, "matches_printed_size",
                        e->size.present ? json_boolean(f.scoped_bytes >= e->size.lo && f.scoped_bytes <= e->size.hi)
                                        : json_null());
    json_object_set_new(jk, "unaccounted_bytes",
                        e->size.present && f.scoped_bytes < e->size.lo
                            ? json_integer((json_int_t)(e->size.lo - f.scoped_bytes))
                            : json_null());
    vmem_footprint_free(&f);
  }
  vmem_kernel_free(own);
  const char *name = bare(e->instruction);
  if (ln->m && name) {
    const vmem_hlo_instruction *in = find_instruction(ln->m, name);
    jh = json_object();
    json_object_set_new(jh, "found", json_boolean(in != NULL));
    if (in) {
      vmem_str cn = vmem_hlo_computation_name(vmem_hlo_instruction_parent(in));
      vmem_str tg = vmem_hlo_instruction_custom_call_target(in);
      int64_t limit = instruction_limit(in);
      json_object_set_new(jh, "line", json_integer((json_int_t)instruction_line(ln->m, in)));
      json_object_set_new(jh, "computation", json_stringn(cn.ptr, cn.len));
      json_object_set_new(jh, "custom_call_target", tg.len ? json_stringn(tg.ptr, tg.len) : json_null());
      json_object_set_new(jh, "limit_bytes", limit >= 0 ? json_integer((json_int_t)limit) : json_null());
    }
  }
  json_object_set_new(o, "kernel", jk);
  json_object_set_new(o, "hlo", jh);
  return o;
}

static void print_error(const vmem_log_error *e, size_t i, size_t n, size_t line, const linked *ln) {
  fprintf(CLI_OUT, "%serror %zu of %zu (line %zu%s): %s\n", i ? "\n" : "", i + 1, n, line,
          e->count > 1 ? ", and identical ones folded" : "", kind_title(e->kind));
  if (e->count > 1)
    fprintf(CLI_OUT, "  occurrences %zu\n", e->count);
  if (e->nhosts)
    fprintf(CLI_OUT, "  hosts     %zu printed it: %s%s\n", e->nhosts, e->hosts ? e->hosts : "",
            e->nhosts > 16 ? ", ..." : "");
  if (e->mentions)
    fprintf(CLI_OUT, "  mentions  %zu more without figures (a quoted title, prose), folded into this one\n",
            e->mentions);
  fprintf(CLI_OUT, "  message   %s\n", e->message ? e->message : "");
  if (e->forms) {
    char f[128];
    forms_text(e->forms, f, sizeof f);
    fprintf(CLI_OUT, "  read from %s text\n", f);
  }
  if (e->instruction && e->shape)
    fprintf(CLI_OUT, "  instr     %s = %s %s\n", e->instruction, e->shape, e->opcode ? e->opcode : "");
  else if (e->instruction)
    fprintf(CLI_OUT, "  instr     %s\n", e->instruction);
  if (e->kind == VMEM_OOM_SCOPED_VMEM || e->kind == VMEM_OOM_VMEM_REQUEST)
    fprintf(CLI_OUT, "  custom kernel: %s (%s)%s%s\n",
            e->custom_kernel > 0    ? "yes"
            : e->custom_kernel == 0 ? "no"
                                    : "unknown",
            e->evidence, e->kernel ? "; kernel " : "", e->kernel ? e->kernel : "");
  const char *sum = "size = limit + excess";
  print_printed("size", &e->size, e->derived & VMEM_DERIVED_SIZE ? sum : NULL);
  print_printed("limit", &e->limit,
                !(e->derived & VMEM_DERIVED_LIMIT)  ? NULL
                : e->kind == VMEM_OOM_EMITTER_ABORT ? "the emitter's budget + 4096 KiB"
                                                    : sum);
  print_printed("used", &e->used, NULL);
  print_printed(e->kind == VMEM_OOM_HBM && !e->used.present ? "has" : "capacity", &e->capacity, NULL);
  print_printed("excess", &e->excess,
                !(e->derived & VMEM_DERIVED_EXCESS) ? NULL
                : e->kind == VMEM_OOM_SCOPED_VMEM   ? sum
                                                    : "excess = used - capacity");
  print_printed("required", &e->requirement, NULL);
  print_printed("  scoped", &e->requirement_scoped, NULL);
  print_targets(e);
  print_listing(e);
  char b[32], c[32];
  bool scoped = e->kind == VMEM_OOM_SCOPED_VMEM || e->kind == VMEM_OOM_VMEM_REQUEST;
  if (ln->k && scoped)
    link_kernel(ln, ln->k, "--kernel", e);
  if (ln->m && e->instruction) {
    link_hlo(ln, e);
    vmem_kernel *own = scoped && !ln->k ? instruction_kernel(ln, e, false) : NULL;
    if (own)
      link_kernel(ln, own, "--hlo", e);
    vmem_kernel_free(own);
  }
  switch (e->kind) {
  case VMEM_OOM_SCOPED_VMEM:
    remedies_scoped(e);
    break;
  case VMEM_OOM_PROGRAM_VMEM:
    remedies_program(e);
    break;
  case VMEM_OOM_VMEM_REQUEST:
    if (e->request_bytes >= 0 && e->memory_bytes >= 0)
      fprintf(CLI_OUT,
              "  a scoped region of %s was requested where %s exist (tag %s): lower vmem_limit_bytes or the flag to "
              "at most %" PRId64 " bytes\n",
              cli_human(b, sizeof b, (uint64_t)e->request_bytes), cli_human(c, sizeof c, (uint64_t)e->memory_bytes),
              e->tag ? e->tag : "?", e->memory_bytes);
    break;
  case VMEM_OOM_SMEM:
    fprintf(CLI_OUT,
            "  remedies: fewer or smaller scalar-prefetch and SMEM operands (split a batch into sub-batches, as vLLM "
            "did for paged attention's block tables)\n");
    break;
  case VMEM_OOM_HBM:
    fprintf(CLI_OUT,
            "  this is HBM, not VMEM: reduce the batch or sequence, shard over more chips, rematerialize, or donate "
            "buffers; VMEM advice does not apply\n");
    break;
  case VMEM_OOM_NOT_COMPILER:
    fprintf(CLI_OUT,
            "  the compiler prints sizes as 16.00M; 'MB' with decimals is another tool's estimate (e.g. an autotuner's "
            "pre-check), not a compile result\n");
    break;
  case VMEM_OOM_EMITTER_ABORT:
    fprintf(CLI_OUT,
            "  not an E1001: libtpu's reduce-window emitter (any reduce-window: cumsum, pooling) takes the global "
            "--xla_tpu_scoped_vmem_limit_kib less 4096 KiB and aborts when nothing is left; raise the flag above 4096 "
            "and give a kernel that needs less its own vmem_limit_bytes, which does not reach standard ops "
            "(docs/limits.md)\n");
    break;
  default:
    break;
  }
}

static json_t *jprinted(const vmem_printed *p) { return p->present ? json_integer((json_int_t)p->lo) : json_null(); }

static json_t *jstr(const char *s) { return s ? json_string(s) : json_null(); }

static json_t *json_error(const vmem_log_error *e, const linked *ln) {
  json_t *o = json_object(), *al = json_array();
  json_object_set_new(o, "kind", json_string(vmem_oom_kind_name(e->kind)));
  json_object_set_new(o, "count", json_integer((json_int_t)e->count));
  json_object_set_new(o, "mentions", json_integer((json_int_t)e->mentions));
  json_object_set_new(o, "offset", json_integer((json_int_t)e->offset));
  json_object_set_new(o, "custom_kernel", e->custom_kernel < 0 ? json_null() : json_boolean(e->custom_kernel));
  json_object_set_new(o, "evidence", jstr(e->evidence));
  json_object_set_new(o, "instruction", jstr(e->instruction));
  json_object_set_new(o, "shape", jstr(e->shape));
  json_object_set_new(o, "opcode", jstr(e->opcode));
  json_object_set_new(o, "custom_call_target", jstr(e->custom_call_target));
  json_object_set_new(o, "kernel", jstr(e->kernel));
  const struct {
    const char *lo, *hi;
    const vmem_printed *p;
  } figs[] = {{"size_bytes", "size_max_bytes", &e->size},
              {"limit_bytes", "limit_max_bytes", &e->limit},
              {"used_bytes", "used_max_bytes", &e->used},
              {"capacity_bytes", "capacity_max_bytes", &e->capacity},
              {"excess_bytes", "excess_max_bytes", &e->excess}};
  for (size_t i = 0; i < sizeof figs / sizeof *figs; i++) { /* a rounded figure: both ends of its interval */
    json_object_set_new(o, figs[i].lo, jprinted(figs[i].p));
    json_object_set_new(o, figs[i].hi, figs[i].p->present ? json_integer((json_int_t)figs[i].p->hi) : json_null());
  }
  json_t *tg = json_array(); /* the generations the figures fit, as "targets" prints them */
  const vmem_printed *by;
  vmem_fact_id fid;
  const vmem_target *near[32];
  uint64_t gap = 1, fact;
  size_t nt = target_figure(e, &by, &fid) ? nearest_targets(by, fid, near, 32, &gap, &fact) : 0;
  for (size_t i = 0; !gap && i < nt; i++)
    json_array_append_new(tg, json_string(vmem_target_name(near[i])));
  json_object_set_new(o, "targets", tg);
  json_t *hosts = json_array();
  for (const char *h = e->hosts; h && *h;) {
    const char *c = strstr(h, ", ");
    size_t l = c ? (size_t)(c - h) : strlen(h);
    json_array_append_new(hosts, json_stringn(h, l));
    h = c ? c + 2 : h + l;
  }
  json_object_set_new(o, "hosts", hosts);
  json_object_set_new(o, "host_count", json_integer((json_int_t)e->nhosts));
  json_object_set_new(o, "requirement_bytes", jprinted(&e->requirement));
  json_object_set_new(o, "requirement_scoped_bytes", jprinted(&e->requirement_scoped));
  json_t *forms = json_array(), *derived = json_array();
  for (unsigned i = 0; i < VMEM_FORM_COUNT; i++)
    if (e->forms & (1u << i))
      json_array_append_new(forms, json_string(vmem_log_form_name(i)));
  json_object_set_new(o, "source_form", forms);
  static const char *const dnames[] = {"size", "limit", "excess"};
  for (unsigned i = 0; i < 3; i++)
    if (e->derived & (1u << i))
      json_array_append_new(derived, json_string(dnames[i]));
  json_object_set_new(o, "derived", derived);
  for (size_t i = 0; i < e->nallocs; i++) {
    const vmem_log_alloc *a = &e->allocs[i];
    json_t *x = json_object();
    json_object_set_new(x, "size_bytes", jprinted(&a->size));
    json_object_set_new(x, "shape", jstr(a->shape));
    json_object_set_new(x, "unpadded_bytes", jprinted(&a->unpadded));
    json_object_set_new(x, "recomputed_bytes",
                        a->recomputed ? json_integer((json_int_t)a->recomputed_bytes) : json_null());
    json_object_set_new(x, "agrees", a->recomputed ? json_boolean(a->size_agrees && a->unpadded_agrees) : json_null());
    json_object_set_new(x, "label", jstr(a->label));
    json_object_set_new(x, "allocation_type", jstr(a->allocation_type));
    json_array_append_new(al, x);
  }
  json_object_set_new(o, "allocations", al);
  json_object_set_new(o, "listing_cut", json_boolean(e->listing_cut));
  json_t *rem = json_array();
  vmem_log_remedies lr = remedies_of(e);
  if (lr.scoped) {
    json_t *r = json_object();
    json_object_set_new(r, "vmem_limit_bytes", json_integer((json_int_t)lr.request_bytes));
    json_object_set_new(r, "xla_tpu_scoped_vmem_limit_kib", json_integer((json_int_t)(lr.request_bytes / 1024)));
    if (lr.shrink_factor > 0)
      json_object_set_new(r, "shrink_factor", json_real(lr.shrink_factor));
    json_object_set_new(r, "likely_compiler_bug", json_boolean(lr.likely_compiler_bug));
    json_object_set_new(r, "limit_can_help", json_boolean(lr.limit_can_help));
    json_array_append_new(rem, r);
  }
  for (size_t i = 0; i < lr.nprogram; i++) {
    json_t *x = json_object();
    json_object_set_new(x, "kind", json_string(vmem_log_remedy_kind_name(lr.program[i].kind)));
    json_object_set_new(x, "text", json_string(lr.program[i].text));
    json_array_append_new(rem, x);
  }
  json_object_set_new(o, "remedies", rem);
  if (ln->k || ln->m)
    json_object_set_new(o, "linked", json_links(ln, e));
  return o;
}

/* A folder (an XLA dump folder, a job's log folder) stands for the logs in
 * it (cli_dump_logs); false, having said so, when one holds none. */
static bool expand_folders(const char ***files, size_t *nfiles, char ***owned, size_t *nowned) {
  size_t cap = *nfiles + 1, n = 0;
  const char **out = malloc(cap * sizeof *out);
  for (size_t f = 0; out && f < *nfiles; f++) {
    if (!cli_is_dir((*files)[f])) {
      out[n++] = (*files)[f];
      continue;
    }
    char **logs;
    size_t k = cli_dump_logs((*files)[f], &logs);
    if (!k) {
      cli_error("explain", "%s: a folder with no log in it (*.log, *.err, *.out, or *.txt that is not a module dump)",
                (*files)[f]);
      free(logs);
      free(out);
      return false;
    }
    cap += k;
    const char **m = realloc(out, cap * sizeof *out);
    char **o = m ? realloc(*owned, (*nowned + k) * sizeof *o) : NULL;
    if (!m || !o) {
      free(m ? m : out);
      for (size_t i = 0; i < k; i++)
        free(logs[i]);
      free(logs);
      return false;
    }
    out = m;
    *owned = o;
    for (size_t i = 0; i < k; i++) {
      size_t len = strlen((*files)[f]) + strlen(logs[i]) + 2;
      char *full = malloc(len);
      if (full) {
        snprintf(full, len, "%s/%s", (*files)[f], logs[i]);
        (*owned)[(*nowned)++] = full;
        out[n++] = full;
      }
      free(logs[i]);
    }
    free(logs);
  }
  if (!out)
    return false;
  out[n] = NULL;
  free((void *)*files);
  *files = out;
  *nfiles = n;
  return true;
}

/* ---- a log read in windows -------------------------------------------------
 * A log larger than a window is explained a window at a time, so that a
 * 1 GB log takes a window's memory, not its size. A report belongs to the
 * window its first line starts in, before the window's last TAIL bytes
 * (its region, at most 64 KiB, lies inside the window then); the next
 * window starts LOOKBACK bytes before that point, so the totals above a
 * listing and a report's first lines are in it, and any report it finds
 * again there starts before the point and is dropped. A report whose region
 * began before the next window's start ends before the point too, so no
 * tail of it is taken for a report of its own. Copies of one error in
 * several windows merge by vmem_log_error_same. A compressed log is
 * decoded as it is read (cli_compress.c), into the same windows. */
enum { WINDOW = 64 << 20, TAIL = 128 << 10, LOOKBACK = 72 << 10, MAX_FOUND = 4096 };

typedef struct found {
  vmem_log_error e; /* a copy: its strings stay in their window's report */
  size_t line;
} found;

typedef struct gathered {
  found *v;
  size_t n, cap;
  vmem_log_report **reports;
  size_t nr, rcap;
  char **strings; /* merged host lists */
  size_t ns, scap;
} gathered;

static void gathered_free(gathered *g) {
  for (size_t i = 0; i < g->nr; i++)
    vmem_log_report_free(g->reports[i]);
  for (size_t i = 0; i < g->ns; i++)
    free(g->strings[i]);
  free(g->v), free(g->reports), free(g->strings);
  memset(g, 0, sizeof *g);
}

static bool grow(void **p, size_t *cap, size_t n, size_t size) {
  if (n < *cap)
    return true;
  size_t c = *cap ? 2 * *cap : 16;
  void *q = realloc(*p, c * size);
  if (!q)
    return false;
  *p = q, *cap = c;
  return true;
}

/* Folds e into `into` (the library's rule: vmem_log_error_fold), keeping
 * the united host list. */
static bool fold(gathered *g, vmem_log_error *into, const vmem_log_error *e) {
  size_t cap = (into->hosts ? strlen(into->hosts) : 0) + (e->hosts ? strlen(e->hosts) : 0) + 3;
  char *m = e->hosts ? malloc(cap) : NULL;
  if (e->hosts && (!m || !grow((void **)&g->strings, &g->scap, g->ns, sizeof *g->strings))) {
    free(m);
    return false;
  }
  vmem_log_error_fold(into, e, m, cap);
  if (m)
    g->strings[g->ns++] = m;
  return true;
}

static size_t newlines(const char *p, size_t n) {
  size_t k = 0;
  for (const char *q = p, *end = p + n; (q = memchr(q, '\n', (size_t)(end - q))); q++)
    k++;
  return k;
}

/* Explains buf[0..have), the log from byte `base` (line base_line) on, and
 * keeps the reports that start before `core` and at or after the log's
 * byte `done` (the windows before took those before it). */
static bool gather_window(gathered *g, const char *buf, size_t have, uint64_t base, size_t base_line, size_t core,
                          uint64_t done, const vmem_target *t, vmem_error *err) {
  vmem_log_report *r = vmem_explain(buf, have, t, NULL, err);
  if (!r || !grow((void **)&g->reports, &g->rcap, g->nr, sizeof *g->reports)) {
    vmem_log_report_free(r);
    return false;
  }
  g->reports[g->nr++] = r;
  size_t at = 0, line = 1; /* a cursor: the errors come in the order of their offsets, so each line is counted once */
  for (size_t i = 0; i < vmem_log_error_count(r); i++) {
    const vmem_log_error *e = vmem_log_error_at(r, i);
    if (e->offset >= core || base + e->offset < done)
      continue;
    found *into = NULL;
    for (size_t k = 0; k < g->n && !into; k++)
      into = vmem_log_error_same(&g->v[k].e, e) ? &g->v[k] : NULL;
    if (into) {
      if (!fold(g, &into->e, e))
        return false;
      continue;
    }
    if (g->n >= MAX_FOUND || !grow((void **)&g->v, &g->cap, g->n, sizeof *g->v))
      continue; /* past MAX_FOUND distinct errors, the first are what a reader needs */
    if (e->offset < at)
      at = 0, line = 1;
    line += newlines(buf + at, e->offset - at);
    at = e->offset;
    g->v[g->n] = (found){*e, base_line + line - 1};
    g->v[g->n++].e.offset = (size_t)(base + e->offset);
  }
  return true;
}

/* The window the CLI reads a plain log in: WINDOW, or VMEMSCOPE_EXPLAIN_WINDOW
 * bytes (the tests make it small, to cut their logs in many places). */
static size_t window_size(void) {
  const char *v = getenv("VMEMSCOPE_EXPLAIN_WINDOW");
  long long w = v ? atoll(v) : 0;
  return w >= 2 * (TAIL + LOOKBACK) ? (size_t)w : WINDOW;
}

/* More of the log into out[0..n): plain bytes, or a compressed stream's
 * text (u); *bad when the stream is damaged, *why said. */
static size_t fill(FILE *in, cli_unpack *u, char *out, size_t n, char *why, size_t cap, bool *bad) {
  *bad = false;
  return u ? cli_unpack_read(u, out, n, why, cap, bad) : fread(out, 1, n, in);
}

/* Reads and explains one log (a FILE, stdin included; plain, gzip or zstd)
 * into g, a window at a time. *packed says which it was. */
static int explain_log(FILE *in, const char *path, bool named, const vmem_target *t, gathered *g, int *packed) {
  size_t win = window_size(), have = 0;
  char *buf = malloc(win + 1), why[256] = "";
  if (!buf)
    return cli_error("explain", "out of memory"), EXIT_BAD;
  have = fread(buf, 1, 4, in);
  *packed = cli_unpack_kind(buf, have);
  cli_unpack *u = *packed != CLI_PLAIN ? cli_unpack_open(in, buf, have) : NULL;
  bool bad = false;
  if (*packed != CLI_PLAIN && !u) {
    free(buf);
    return cli_error("explain", "out of memory"), EXIT_BAD;
  }
  have = u ? fill(in, u, buf, win, why, sizeof why, &bad) : have + fread(buf + have, 1, win - have, in);
  int rc = EXIT_OK;
  uint64_t base = 0, done = 0;
  size_t base_line = 1;
  if (bad || (u && !have && why[0])) { /* damaged, or cut before any text */
    cli_error("explain", "%s: cannot read: %s%s", path, why[0] ? why : "a damaged stream",
              bad ? "" : ", before any text");
    rc = EXIT_BAD;
  } else if (named && have < win && cli_blank(buf, have)) { /* a named log with nothing in it: a wrong path */
    cli_error("explain", "%s: empty file: no log to read", path);
    rc = EXIT_BAD;
  }
  while (rc == EXIT_OK) {
    if (bad) { /* damaged further on */
      cli_error("explain", "%s: cannot read: %s", path, why);
      rc = EXIT_BAD;
      break;
    }
    bool last = have < win || (!u && (feof(in) || ferror(in)));
    size_t core = last ? have : have - TAIL;
    vmem_error err;
    cli_progress(path, base + have, "explaining");
    if (!gather_window(g, buf, have, base, base_line, core, done, t, &err)) {
      cli_error("explain", "%s: %s", path, err.message[0] ? err.message : "out of memory");
      rc = EXIT_BAD;
      break;
    }
    done = base + core;
    if (last)
      break;
    size_t keep = core - LOOKBACK;
    base_line += newlines(buf, keep);
    memmove(buf, buf + keep, have - keep);
    have -= keep, base += keep;
    have += fill(in, u, buf + have, win - have, why, sizeof why, &bad);
  }
  cli_progress_done();
  if (rc == EXIT_OK && why[0]) /* a cut stream: what it held was read */
    fprintf(stderr, "vmemscope explain: %s: %s: the text before the cut is read\n", path, why);
  cli_unpack_close(u);
  free(buf);
  return rc;
}

int cmd_explain(int argc, char **argv) {
  const char *target = NULL, *kernel_path = NULL, *hlo_path = NULL, *recompile = NULL;
  cli_compile_req req = {0};
  bool json = false;
  char log_size[24] = "", log_limit[24] = ""; /* the first scoped error's, for --recompile */
  const char **files = calloc((size_t)argc + 1, sizeof *files);
  const cli_opt opts[] = {{"--target", &target, NULL, NULL},
                          {"--kernel", &kernel_path, NULL, NULL},
                          {"--hlo", &hlo_path, NULL, NULL},
                          {"--recompile", &recompile, NULL, NULL},
                          {"--libtpu", &req.libtpu, NULL, NULL},
                          {"--compile-timeout", &req.timeout_s, NULL, NULL},
                          {"--topology", &req.topology, NULL, NULL},
                          {"--json", NULL, &json, NULL},
                          {NULL, NULL, NULL, NULL}};
  int scan = files ? cli_scan("explain", argc, argv, opts, files, (size_t)argc, help, "") : EXIT_BAD;
  size_t nfiles = 0;
  while (files && files[nfiles])
    nfiles++;
  bool bad = scan != CLI_GO;
  if (scan == EXIT_OK) {
    free(files);
    return EXIT_OK; /* --help */
  }
  if (!bad && !recompile && (req.libtpu || req.timeout_s || req.topology)) {
    free(files);
    return cli_usage_error("explain", "--libtpu, --compile-timeout and --topology go with --recompile");
  }
  const vmem_target *t = bad ? NULL : target ? cli_target("explain", target) : NULL;
  if (bad || (target && !t)) {
    free(files);
    return EXIT_BAD;
  }
  linked ln = {NULL, t ? t : cli_target("explain", NULL), NULL};
  vmem_kernel *kernel = NULL;
  vmem_hlo_module *module = NULL;
  if (kernel_path) {
    if (!(kernel = cli_load_kernel("explain", kernel_path, NULL, NULL, NULL))) {
      free(files);
      return EXIT_BAD;
    }
    ln.k = kernel;
  }
  if (hlo_path) {
    vmem_error err;
    if (!(module = vmem_hlo_open(hlo_path, NULL, &err))) {
      cli_error("explain", "--hlo %s: byte %zu: %s", hlo_path, err.offset, err.message);
      vmem_kernel_free(kernel);
      free(files);
      return EXIT_BAD;
    }
    ln.m = module;
  }
  char **owned = NULL; /* the log files of folders named, which replace them */
  size_t nowned = 0;
  if (!expand_folders(&files, &nfiles, &owned, &nowned)) {
    for (size_t i = 0; i < nowned; i++)
      free(owned[i]);
    free(owned);
    free(files);
    vmem_kernel_free(kernel);
    vmem_hlo_free(module);
    return EXIT_BAD;
  }
  size_t total = 0;
  int rc = EXIT_OK;
  json_t *root = json ? cli_json_root("explain") : NULL, *errs = json ? json_array() : NULL;
  for (size_t f = 0; f < (nfiles ? nfiles : 1) && rc != EXIT_BAD; f++) {
    const char *path = nfiles ? files[f] : "-";
    FILE *in = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    if (!in) {
      cli_open_error("explain", path);
      rc = EXIT_BAD;
      break;
    }
    gathered g = {0};
    int packed = CLI_PLAIN;
    int lrc = explain_log(in, path, in != stdin, t, &g, &packed);
    if (in != stdin)
      fclose(in);
    if (lrc == EXIT_BAD) {
      gathered_free(&g);
      rc = EXIT_BAD;
      break;
    }
    size_t n = g.n;
    for (size_t i = 0; i < n && !log_size[0]; i++)
      if (g.v[i].e.kind == VMEM_OOM_SCOPED_VMEM && g.v[i].e.size.present && g.v[i].e.limit.present) {
        snprintf(log_size, sizeof log_size, "%s", g.v[i].e.size.text);
        snprintf(log_limit, sizeof log_limit, "%s", g.v[i].e.limit.text);
      }
    if (!json && nfiles > 1)
      fprintf(CLI_OUT, "%s== %s\n", f ? "\n" : "", path);
    for (size_t i = 0; i < n; i++) {
      if (json) {
        json_t *e = json_error(&g.v[i].e, &ln);
        json_object_set_new(e, "file", json_string(path));
        json_object_set_new(e, "compression",
                            packed == CLI_GZIP   ? json_string("gzip")
                            : packed == CLI_ZSTD ? json_string("zstd")
                                                 : json_null());
        json_array_append_new(errs, e);
      } else {
        print_error(&g.v[i].e, i, n, g.v[i].line, &ln);
      }
    }
    total += n;
    gathered_free(&g);
  }
  free(files);
  for (size_t i = 0; i < nowned; i++)
    free(owned[i]);
  free(owned);
  vmem_kernel_free(kernel);
  vmem_hlo_free(module);
  if (recompile && rc != EXIT_BAD &&
      cli_recompile_report(&req, recompile, ln.t, log_size[0] ? log_size : NULL, log_limit[0] ? log_limit : NULL,
                           root) == EXIT_BAD)
    rc = EXIT_BAD;
  if (json) {
    json_object_set_new(root, "errors", errs);
    if (rc != EXIT_BAD)
      cli_print_json(root);
    else
      json_decref(root);
  } else if (rc != EXIT_BAD && total == 0) {
    fprintf(CLI_OUT, "no TPU memory error found\n");
  }
  if (rc == EXIT_BAD)
    return rc;
  return total ? EXIT_OOM : EXIT_OK;
}
