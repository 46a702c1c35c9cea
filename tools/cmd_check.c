/*
 * cmd_check.c — `vmemscope check module.hlo [--target T] [--json]` and
 * `vmemscope print module.hlo`.
 *
 * At this stage check lists every instruction with its shape, layout, exact
 * sizes and memory space, custom calls with their kernel and scoped limit,
 * then totals per memory space and the largest buffers. Later stages add
 * the scoped and program-scoped verdicts to the same command.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char help[] =
    "usage: vmemscope check FILE|DIR [--target T] [--format F] [--instruction NAME]\n"
    "                        [--json] [--vmem-limit-bytes N] [--flags \"...\"] [--param NAME=N]...\n"
    "                        [--module NAME] [--no-env] [--summary] [--timeline] [--tight] [--top N]\n\n"
    "FILE is an HLO module, an XLA dump folder (--xla_dump_to; --module picks one\n"
    "program), StableHLO text (jax.jit(f).lower(x).as_text()), a\n"
    "Pallas kernel as Mosaic MLIR text or bytecode (raw, base64, or a backend_config\n"
    "holding custom_call_config.body), or a JSON kernel spec (docs/kernel-spec.md);\n"
    "the format is detected from the content.\n\n"
    "A kernel: every scoped VMEM allocation (windows x buffers, scratch, internal\n"
    "scratch, modelled values) with its offset, the limit in force and where it\n"
    "comes from, and the verdict. When it does not fit: the compiler's E1001\n"
    "message, then remedies with numbers. Exit 1 when a kernel does not fit.\n\n"
    "An HLO module: per computation, each instruction's shape, layout (given, or the\n"
    "target's default), padded and unpadded bytes and memory space; for custom calls\n"
    "the target, kernel name and the vmem_limit_bytes of scoped_memory_configs, and\n"
    "for each Pallas kernel (its Mosaic body decoded) the scoped bytes against its\n"
    "limit; --instruction NAME gives that kernel's full report. Then totals per\n"
    "memory space and the largest buffers; standard ops by the model's least\n"
    "scoped VMEM and its choice above it (docs/program.md), a least over the\n"
    "limit flagged as a likely compiler-side OOM; program-scoped VMEM against\n"
    "physical VMEM. StableHLO: every op listed, each tpu_custom_call's kernel\n"
    "checked (nothing else is sized before layout assignment). Exit 1 when a\n"
    "kernel, or the program's VMEM, does not fit.\n\n"
    "options:\n"
    "  --target T              TPU generation (default $VMEMSCOPE_TARGET or v5e)\n"
    "  --format F              hlo, stablehlo, mlir, bytecode or spec, instead of detecting it\n"
    "  --instruction NAME      HLO/StableHLO: the custom call whose kernel to report in full\n"
    "  --vmem-limit-bytes N    the kernel's vmem_limit_bytes (overrides the spec's)\n"
    "  --flags \"...\"           libtpu flags, as in LIBTPU_INIT_ARGS\n"
    "  --no-env                ignore LIBTPU_INIT_ARGS and XLA_FLAGS\n"
    "  --align N               kernel: stack alignment in bytes, a power of two (default 512)\n"
    "  --internal-scratch N    kernel: Mosaic internal scratch in bytes (default: the kernel's,\n"
    "                          else the target's)\n"
    "  --summary               HLO: only the module line, custom calls, totals, largest buffers\n"
    "                          (with --json: only custom calls under computations[].instructions)\n"
    "  --timeline              HLO: also the program-scoped values live at the peak step\n"
    "  --param NAME=N          spec: set a block parameter (one block size, without editing the spec)\n"
    "  --module NAME           an XLA dump folder: only this program (its name, or module_NNNN)\n"
    "  --tight                 HLO: a Pallas kernel reserves its computed footprint, a standard op its\n"
    "                          modelled choice (docs/program.md), not their limit\n"
    "  --top N                 HLO: how many of the largest buffers to list (default 10)\n"
    "  --json                  print JSON (docs/json.md; every size in bytes)\n\n"
    "examples:\n"
    "  vmemscope check kernel.json --target v6e\n"
    "  vmemscope check module.hlo --summary --timeline\n"
    "  vmemscope check jit_f.stablehlo.mlir --instruction matmul_kernel\n"
    "  LIBTPU_INIT_ARGS=--xla_tpu_scoped_vmem_limit_kib=65536 vmemscope check kernel.mlir --json\n";

/* Which reader a file wants, from its first 8 KiB (cli_detect_format). */
static const char *detect_format(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return "hlo"; /* the HLO reader reports the error */
  char buf[8192];
  size_t n = fread(buf, 1, sizeof buf, f);
  fclose(f);
  if (cli_blank(buf, n) && n < sizeof buf)
    return "empty";
  return cli_detect_format(buf, n);
}

static const char print_help[] =
    "usage: vmemscope print FILE.hlo [--json]\n\n"
    "Parses an HLO module and prints it back canonically: '%' names, one\n"
    "instruction per line, operands by name, attributes as written. The output\n"
    "parses to the same module. --json: {\"module\": TEXT}.\n\n"
    "examples:\n"
    "  vmemscope print module.hlo > canonical.hlo\n";

/* One instruction, sized. */
typedef struct row {
  const vmem_hlo_instruction *in;
  vmem_shape *laid;     /* the shape with the layout used: shared, owned by the report's cache */
  bool given;           /* the text carried tiles */
  vmem_size size;
  bool sized;
  vmem_hlo_scoped *scoped; /* its config decoded: in report.scoped, by instruction id */
  bool has_scoped;
  vmem_kernel *k;       /* the Pallas kernel of a custom call with a body */
  char *kerr;           /* why its body could not be read (malloc'd; rare, so not a 240-byte
                           vmem_error in every row: that was a quarter of a GB at 10^6 rows) */
  vmem_std_scoped model; /* a standard op's modelled least scoped VMEM */
  uint64_t model_limit; /* the limit it is held to */
  uint64_t model_likely; /* the modelled choice under that limit */
  bool top_model;       /* among the CLI_REPORT_ROWS with the most modelled (the report's table) */
  bool top_used;        /* among the CLI_REPORT_ROWS with the largest used figure (the report's bars) */
} row;

typedef struct report {
  const char *path;
  vmem_hlo_module *m;
  const vmem_target *t;
  row *rows;            /* in module order */
  /* Laid-out shapes by the IR's interned shape: a module of a million
   * instructions has a few thousand distinct shapes, and a copy per row
   * was most of check's memory. Open addressing on the pointer. */
  struct laid_entry *laid;
  size_t laid_cap, laid_n;
  char *uncached;       /* the last shape printed outside the cache (out of memory) */
  size_t nrows;
  const vmem_limit_inputs *in;
  const vmem_plan_options *opt;
  int worst;            /* the worst kernel verdict: 0 fits, 1 at risk, 2 over */
  bool bad_body;        /* a kernel body that could not be read */
  vmem_program prog;    /* program-scoped VMEM: the S(1) values packed */
  bool has_prog, timeline, tight, summary;
  bool lean;            /* the document is report's: only the rows it reads */
  size_t omitted_bars;  /* lean: rows with a used figure and a limit left out (the page counts them) */
  vmem_hlo_scoped *scoped; /* each instruction's config, by id: the rows' and the planner's */
  uint64_t global_limit; /* the scoped limit the flags put in force */
  size_t modelled, flagged; /* standard ops modelled; those whose minimum exceeds their limit */
} report;



/* Opens and parses; prints the error and returns NULL on failure. Errors in
 * the file itself (not found, not mappable) carry no position. */
static vmem_hlo_module *open_module(const char *cmd, const char *path) {
  vmem_error err;
  vmem_hlo_module *m = vmem_hlo_open(path, NULL, &err);
  if (m)
    return m;
  if (err.code == VMEM_ERR_ARGUMENT || err.code == VMEM_ERR_NOMEM) {
    fprintf(CLI_ERR, "vmemscope %s: error: %s: %s\n", cli_who(cmd), path, err.message);
    return NULL;
  }
  /* Re-read the text to show the line: map again through a parse-free path. */
  FILE *f = fopen(path, "rb");
  char *text = NULL;
  size_t len = 0;
  if (f) {
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    if (n > 0 && (text = malloc((size_t)n)))
      len = fread(text, 1, (size_t)n, f);
    fclose(f);
  }
  cli_file_error(cmd, path, text ? text : "", len, &err);
  free(text);
  return NULL;
}

static char *shape_text(const vmem_shape *s) {
  size_t n = vmem_shape_print(s, NULL, 0);
  char *b = malloc(n + 1);
  if (b)
    vmem_shape_print(s, b, n + 1);
  return b;
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

static bool is_custom_call(const vmem_hlo_instruction *in) {
  vmem_str op = vmem_hlo_instruction_opcode(in);
  return op.len == 11 && !memcmp(op.ptr, "custom-call", 11);
}

/* Sizes every instruction; returns false (after printing) on bad input. */
/* A standard op's modelled least scoped VMEM against its limit (its
 * scoped_memory_configs, else the global one). */
static bool model_row(report *r, row *w) {
  vmem_error err;
  if (vmem_hlo_instruction_min_scoped(w->in, r->t, &w->model, &err) != VMEM_OK)
    return err.code != VMEM_ERR_NOMEM; /* an op the model cannot size is left unmodelled */
  if (!w->model.applies)
    return true;
  w->model_limit = w->has_scoped && w->scoped->limit_bytes >= 0 ? (uint64_t)w->scoped->limit_bytes : r->global_limit;
  w->model_likely = vmem_std_scoped_likely(&w->model, w->model_limit);
  r->modelled++;
  r->flagged += w->model.min_bytes > w->model_limit;
  return true;
}

/* A cache entry: the IR's interned shape, laid out on the target (NULL
 * when it cannot be) and printed once asked (the laid-out shape, else the
 * one written): a million rows print a few thousand distinct shapes, and
 * printing each row's was an eighth of check --json. */
typedef struct laid_entry {
  const vmem_shape *key;
  vmem_shape *laid;
  char *text;
} laid_entry;

/* Its entry, or the empty slot where it goes. */
static laid_entry *laid_slot(const report *r, const vmem_shape *s) {
  size_t j = ((uintptr_t)s >> 4) & (r->laid_cap - 1);
  while (r->laid[j].key && r->laid[j].key != s)
    j = (j + 1) & (r->laid_cap - 1);
  return &r->laid[j];
}

static bool laid_grow(report *r) {
  report bigger = {.laid_cap = r->laid_cap ? 2 * r->laid_cap : 256};
  if (!(bigger.laid = calloc(bigger.laid_cap, sizeof *bigger.laid)))
    return false;
  for (size_t i = 0; i < r->laid_cap; i++)
    if (r->laid[i].key)
      *laid_slot(&bigger, r->laid[i].key) = r->laid[i];
  free(r->laid);
  r->laid = bigger.laid, r->laid_cap = bigger.laid_cap;
  return true;
}

/* The shape s laid out on the target, from the cache; NULL with *err set
 * when it cannot be (an out-of-memory is not cached). */
static vmem_shape *laid_of(report *r, const vmem_shape *s, vmem_error *err) {
  if ((r->laid_n + 1) * 2 > r->laid_cap && !laid_grow(r)) {
    err->code = VMEM_ERR_NOMEM;
    return NULL;
  }
  laid_entry *e = laid_slot(r, s);
  if (e->key) {
    if (!e->laid)
      err->code = VMEM_ERR_RANGE; /* known not to lay out */
    return e->laid;
  }
  vmem_shape *laid = vmem_shape_with_tpu_layout(s, r->t, NULL, err);
  if (!laid && err->code == VMEM_ERR_NOMEM)
    return NULL;
  *e = (laid_entry){s, laid, NULL};
  r->laid_n++;
  return laid;
}

/* A row's shape as printed: laid out, else as written. Owned by the report;
 * NULL when out of memory. */
static const char *row_shape(report *r, const row *w) {
  const vmem_shape *s = vmem_hlo_instruction_shape(w->in);
  laid_entry *e = r->laid_cap ? laid_slot(r, s) : NULL;
  if (e && e->key) {
    if (!e->text)
      e->text = shape_text(e->laid ? e->laid : s);
    return e->text;
  }
  free(r->uncached); /* not in the cache (sizing ran out of memory): printed alone */
  return r->uncached = shape_text(w->laid ? w->laid : s);
}

static bool size_rows(report *r) {
  size_t total = vmem_hlo_instruction_total(r->m), k = 0;
  r->rows = calloc(total ? total : 1, sizeof *r->rows);
  r->scoped = malloc((total ? total : 1) * sizeof *r->scoped);
  if (!r->rows || !r->scoped)
    return false;
  vmem_str text = vmem_hlo_text(r->m);
  /* Every config at once, on two threads for a large module. When one is
   * malformed the rows decode their own, so that what is printed before
   * the error (a bad kernel body earlier on) stays as it was. */
  vmem_error all_err;
  bool decoded = vmem_hlo_module_scoped(r->m, r->scoped, &all_err) == VMEM_OK;
  if (!decoded && all_err.code == VMEM_ERR_NOMEM)
    return false;
  for (size_t c = 0; c < vmem_hlo_computation_count(r->m); c++) {
    const vmem_hlo_computation *comp = vmem_hlo_computation_at(r->m, c);
    for (size_t i = 0; i < vmem_hlo_computation_instruction_count(comp); i++, k++) {
      row *w = &r->rows[k];
      vmem_error err;
      w->in = vmem_hlo_computation_instruction_at(comp, i);
      const vmem_shape *s = vmem_hlo_instruction_shape(w->in);
      w->given = vmem_shape_has_tiles(s);
      w->laid = laid_of(r, s, &err);
      w->sized = w->laid && vmem_shape_size(w->laid, &w->size, &err) == VMEM_OK;
      w->scoped = &r->scoped[vmem_hlo_instruction_id(w->in)];
      if (!decoded)
        *w->scoped = (vmem_hlo_scoped){-1, -1, -1, false, false}; /* no config: what decoding none gives */
      if (!w->sized && err.code == VMEM_ERR_NOMEM)
        return false;
      if (is_custom_call(w->in) || vmem_hlo_instruction_attr(w->in, "backend_config").len) {
        if (!decoded && vmem_hlo_instruction_scoped(w->in, w->scoped, &err) != VMEM_OK) {
          cli_file_error("check", r->path, text.ptr, text.len, &err);
          r->nrows = k + 1;
          return false;
        }
        w->has_scoped = w->scoped->limit_bytes >= 0 || w->scoped->used_bytes >= 0 || is_custom_call(w->in);
        if (w->scoped->has_kernel_body && !(w->k = vmem_hlo_instruction_kernel(w->in, NULL, &err))) {
          cli_file_error("check", r->path, text.ptr, text.len, &err);
          if (!(w->kerr = cli_strdup(err.message)))
            return false;
          r->bad_body = true;
        }
      }
      if (!model_row(r, w))
        return false;
    }
  }
  r->nrows = k;
  return true;
}

static void free_rows(report *r) {
  for (size_t k = 0; k < r->nrows; k++) {
    vmem_kernel_free(r->rows[k].k);
    free(r->rows[k].kerr);
  }
  free(r->rows);
  free(r->scoped);
  for (size_t i = 0; i < r->laid_cap; i++) {
    vmem_shape_free(r->laid[i].laid);
    free(r->laid[i].text);
  }
  free(r->laid);
  free(r->uncached);
}

/* ---- totals (the library's vmem_hlo_module_buffers) ------------------------- */

static const char *space_name(int64_t s) {
  switch (s) {
  case 0: return "HBM";
  case 1: return "VMEM";
  case 2: return "sync flags";
  case 3: return "CMEM";
  case 4: return "SMEM";
  case 5: return "host";
  default: return "other";
  }
}

/* The row of a buffer the library names (rows are in instruction order). */
static const row *row_of(const report *r, const vmem_hlo_instruction *in) {
  size_t id = vmem_hlo_instruction_id(in);
  return id < r->nrows && r->rows[id].in == in ? &r->rows[id] : NULL;
}

/* The module's totals and `top` largest; false (printed) when out of memory. */
static bool module_buffers(const report *r, size_t top, vmem_module_buffers *b) {
  vmem_error err;
  if (vmem_hlo_module_buffers(r->m, r->t, top, b, NULL, &err) == VMEM_OK)
    return true;
  fprintf(CLI_ERR, "vmemscope check: error: %s\n", err.message);
  return false;
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
    int v = kernel_brief(w->k, r->t, r->in, r->opt, "      ", NULL);
    r->worst = v > r->worst ? v : r->worst;
    vmem_str nm = vmem_hlo_instruction_name(w->in);
    fprintf(CLI_OUT, "      (vmemscope check %s --instruction %.*s: the allocations, and remedies when over)\n", r->path,
           (int)nm.len, nm.ptr);
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
    const char *full = row_shape(r, w);
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
    if (is_custom_call(r->rows[i].in)) {
      vmem_str nm = vmem_hlo_instruction_name(r->rows[i].in);
      fprintf(CLI_OUT, "    %%%.*s:\n", (int)nm.len, nm.ptr);
      print_custom_call(r, &r->rows[i]);
    }
}

static void print_summary(const report *r, size_t top) {
  vmem_module_buffers mb;
  if (!module_buffers(r, top, &mb))
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
    const row *w = row_of(r, in);
    char num[32], b[48], nm[64], sh[104], cn_text[72];
    char *st = shape_text(w && w->laid ? w->laid : vmem_hlo_instruction_shape(in));
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
  char *st = leaf ? shape_text(leaf) : NULL;
  if (st)
    fprintf(CLI_OUT, "     Shape: %s\n", st);
  free(st);
  vmem_shape_free(laid);
  vmem_format_bytes((int64_t)v->unpadded_bytes, un, sizeof un);
  fprintf(CLI_OUT, "     Unpadded size: %s\n", un);
  if (v->bytes > v->unpadded_bytes && v->unpadded_bytes) {
    vmem_format_bytes((int64_t)(v->bytes - v->unpadded_bytes), ex, sizeof ex);
    fprintf(CLI_OUT, "     Extra memory due to padding: %s (%.1fx expansion)\n", ex, (double)v->bytes / (double)v->unpadded_bytes);
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
  fprintf(CLI_OUT, "Ran out of memory in memory space vmem. Used %s of %s vmem. Exceeded vmem capacity by %s.\n\n", used, cap,
         over);
  fprintf(CLI_OUT, "Program vmem requirement %s:\n    HLO temp         %s\n    scoped           %s\n\n"
         "  Largest program allocations in vmem:\n\n", used, temp, scoped);
  for (size_t i = 0, shown = 0; i < p->count && shown < top; i++)
    if (big[i]->start <= p->peak_time && big[i]->end >= p->peak_time)
      print_allocation(r, shown++, big[i]);
}

/* --timeline: the values live at the peak step, largest first (big is
 * sorted so), with what padding costs each. */
static void print_peak(const vmem_program *p, const vmem_program_buffer *const *big) {
  char a[48], b[48], c[48];
  fprintf(CLI_OUT, "\nlive at the peak, step %" PRId64 " (%s):\n", p->peak_time,
         cli_bytes(a, sizeof a, p->lower_bound_bytes));
  for (size_t i = 0; i < p->nreservations; i++) {
    const vmem_program_reservation *v = &p->reservations[i];
    if (v->start > p->peak_time || v->end < p->peak_time)
      continue;
    vmem_str n = v->instruction ? vmem_hlo_instruction_name(v->instruction) : (vmem_str){"", 0};
    if (v->start == v->end)
      fprintf(CLI_OUT, "  %9s  scoped reservation of %%%.*s at offset 0, step %" PRId64 "\n",
              cli_human(b, sizeof b, v->bytes), (int)(n.len > 48 ? 48 : n.len), n.ptr, v->start);
    else
      fprintf(CLI_OUT, "  %9s  scoped reservations at offset 0, steps [%" PRId64 ", %" PRId64 "] (%%%.*s first)\n",
              cli_human(b, sizeof b, v->bytes), v->start, v->end, (int)(n.len > 48 ? 48 : n.len), n.ptr);
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
    fprintf(CLI_OUT, "\nprogram-scoped VMEM: no value is laid out in S(1); the largest scoped reservation, %s (%%%.*s), "
           "%s physical %s\n", cli_bytes(d, sizeof d, p->scoped_reservation_bytes), (int)rn.len, rn.ptr,
           p->used_bytes > p->capacity_bytes ? "DOES NOT FIT" : "fits", cli_human(e, sizeof e, p->capacity_bytes));
    return;
  }
  fprintf(CLI_OUT, "\nprogram-scoped VMEM (values laid out in S(1), live over the %s schedule of %" PRId64 " steps):\n",
         p->scheduled ? "given" : "text-order (not scheduled)", p->schedule_length);
  size_t values = 0;
  for (size_t i = 0; i < p->count; i++)
    values += p->buffers[i].values;
  fprintf(CLI_OUT, "  %zu buffers (%zu values); peak live %s (lower bound), packed %s (best fit, as XLA's heap simulator), "
          "physical %s\n", p->count, values, cli_bytes(a, sizeof a, p->lower_bound_bytes), cli_bytes(b, sizeof b, p->peak_bytes),
         cli_human(c, sizeof c, p->capacity_bytes));
  fprintf(CLI_OUT, "  with each instruction's scoped reservation at offset 0 (the compiler's used figure where the text has "
         "it, else %s; the largest %s, %%%.*s): used %s\n",
         r->tight ? "a kernel's footprint or a standard op's modelled choice (--tight)" : "its limit",
         cli_human(d, sizeof d, p->scoped_reservation_bytes), (int)rn.len, rn.ptr, cli_bytes(e, sizeof e, p->used_bytes));
  char bar[256];
  fprintf(CLI_OUT, "  used   %s %s of %s\n", cli_usage_bar(bar, sizeof bar, p->used_bytes, p->capacity_bytes, 40),
         cli_human(a, sizeof a, p->used_bytes), cli_human(b, sizeof b, p->capacity_bytes));
  if (p->used_bytes > p->capacity_bytes)
    fprintf(CLI_OUT, "  verdict: %sDOES NOT FIT%s — %s over physical VMEM (the compiler's 'Ran out of memory in memory space "
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

static uint64_t model_likely(const row *w) { return w->model_likely; }

static int by_likely_desc(const void *a, const void *b) {
  const row *x = *(const row *const *)a, *y = *(const row *const *)b;
  uint64_t lx = model_likely(x), ly = model_likely(y);
  if (lx != ly)
    return lx < ly ? 1 : -1;
  return x < y ? -1 : x > y;
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
  qsort(all, n, sizeof *all, by_likely_desc);
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
              cli_human(b, sizeof b, model_likely(w)), cli_human(c, sizeof c, w->model.whole_bytes),
              cli_human(d, sizeof d, w->model_limit), u);
  }
  char of[48] = "";
  if (n > MODEL_ROWS)
    snprintf(of, sizeof of, "the largest %d of ", MODEL_ROWS);
  fprintf(CLI_OUT, "standard ops by modelled scoped VMEM (%s%zu that stream through it; a model, not the compiler's "
                   "figure):\n", of, n);
  table_print(&tb, CLI_OUT);
  table_free(&tb);
  free(all);
}

/* Standard ops whose least scoped VMEM, as modelled, exceeds their limit:
 * the seed's likely compiler-side OOM, with the steps to report it. */
static void print_models(const report *r) {
  if (!r->flagged) {
    fprintf(CLI_OUT, "\nstandard ops: %zu modelled; none needs more scoped VMEM than its limit at the least "
                     "(docs/program.md)\n", r->modelled);
    if (r->modelled)
      print_model_table(r);
    return;
  }
  fprintf(CLI_OUT, "\n%slikely compiler-side OOM%s (modelled): %zu standard op%s need%s more scoped VMEM than the "
                   "limit even at the least\n", cli_tone(CLI_WARN), cli_tone(CLI_RESET), r->flagged,
          r->flagged == 1 ? "" : "s", r->flagged == 1 ? "s" : "");
  const row *first = NULL;
  for (size_t k = 0; k < r->nrows; k++) {
    const row *w = &r->rows[k];
    if (!w->model.applies || w->model.min_bytes <= w->model_limit)
      continue;
    char a[48], b[48], c[48], d[96];
    vmem_str n = vmem_hlo_instruction_name(w->in), op = vmem_hlo_instruction_opcode(w->in);
    fprintf(CLI_OUT, "  %%%.*s (%.*s, rule %s): at least %s against its limit %s; largest window: %s, %s\n",
            (int)n.len, n.ptr, (int)op.len, op.ptr, w->model.rule, cli_bytes(a, sizeof a, w->model.min_bytes),
            cli_human(b, sizeof b, w->model_limit), dominant_name(w, d, sizeof d),
            cli_human(c, sizeof c, w->model.dominant_bytes));
    first = first ? first : w;
  }
  vmem_str n = vmem_hlo_instruction_name(first->in);
  uint64_t need = vmem_request_bytes(first->model.min_bytes);
  uint64_t physical = vmem_target_u64(r->t, VMEM_FACT_VMEM_BYTES);
  fprintf(CLI_OUT, "  For a standard op the E1001 page's advice is that it is the compiler's to fix. Report it with a standalone\n"
                   "  module: vmemscope repro %s --instruction %.*s -o repro.hlo, and the compiler's error, at\n"
                   "  https://github.com/openxla/xla/issues.",
          r->path, (int)n.len, n.ptr);
  if (need <= physical)
    fprintf(CLI_OUT, " Meanwhile a larger limit may let it compile:\n  LIBTPU_INIT_ARGS=--xla_tpu_scoped_vmem_limit_kib=%"
            PRIu64 " (within physical VMEM).\n", need / 1024);
  else
    fprintf(CLI_OUT, " No limit helps: even the least is beyond physical VMEM (%" PRIu64 " bytes);\n"
            "  split the op's input in the model's code (smaller arrays per op) instead.\n", physical);
  fputc('\n', CLI_OUT);
  print_model_table(r);
}

static void print_text(report *r, bool summary, size_t top) {
  vmem_str name = vmem_hlo_name(r->m);
  fprintf(CLI_OUT, "module %.*s: %zu computations, %zu instructions; target %s\n", (int)name.len, name.ptr,
         vmem_hlo_computation_count(r->m), vmem_hlo_instruction_total(r->m), vmem_target_name(r->t));
  fprintf(CLI_OUT, "schedule: %s\n", vmem_hlo_is_scheduled(r->m)
                               ? "is_scheduled=true, text order is the execution order"
                               : "not scheduled (no is_scheduled=true): text order is only the dataflow order");
  size_t k = 0;
  for (size_t c = 0; c < vmem_hlo_computation_count(r->m); c++) {
    const vmem_hlo_computation *comp = vmem_hlo_computation_at(r->m, c);
    if (!summary) {
      print_computation(r, comp, &k);
      continue;
    }
    for (size_t i = 0; i < vmem_hlo_computation_instruction_count(comp); i++, k++)
      if (is_custom_call(r->rows[k].in)) {
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

/* ---- JSON ----------------------------------------------------------------- */

static json_t *json_str(vmem_str s) { return json_stringn(s.ptr, s.len); }

static json_t *json_row(report *r, const row *w) {
  json_t *o = json_object(), *ops = json_array();
  const char *s = row_shape(r, w);
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
  if (is_custom_call(w->in)) {
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
                        json_pack("{s:I,s:s,s:I,s:b,s:I,s:I,s:I}", "min_bytes", (json_int_t)w->model.min_bytes,
                                  "rule", w->model.rule, "limit_bytes", (json_int_t)w->model_limit,
                                  "likely_compiler_oom", w->model.min_bytes > w->model_limit, "dominant_bytes",
                                  (json_int_t)w->model.dominant_bytes, "likely_bytes", (json_int_t)model_likely(w),
                                  "whole_bytes", (json_int_t)w->model.whole_bytes));
  if (w->k) {
    json_t *kj = NULL;
    int v = kernel_brief(w->k, r->t, r->in, r->opt, "", &kj);
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
    return is_custom_call(w->in) || w->top_used || (w->model.applies && w->model.min_bytes > w->model_limit) ||
           w->top_model;
  return !r->summary || is_custom_call(w->in);
}

/* A row the report draws a bar for by the compiler's used figure: one
 * with that figure and a limit, not a custom call (those are all kept). */
static bool used_bar(const row *w) {
  return w->has_scoped && w->scoped->used_bytes >= 0 && w->scoped->limit_bytes > 0 && !is_custom_call(w->in);
}

static int by_used_desc(const void *a, const void *b) {
  const row *x = *(const row *const *)a, *y = *(const row *const *)b;
  if (x->scoped->used_bytes != y->scoped->used_bytes)
    return x->scoped->used_bytes < y->scoped->used_bytes ? 1 : -1;
  vmem_str nx = vmem_hlo_instruction_name(x->in), ny = vmem_hlo_instruction_name(y->in);
  int c = memcmp(nx.ptr, ny.ptr, nx.len < ny.len ? nx.len : ny.len); /* report_html.c's bar order */
  return c ? c : (nx.len > ny.len) - (nx.len < ny.len);
}

/* Marks the rows report's page can show: the CLI_REPORT_ROWS modelled rows
 * with the most (its table), and the CLI_REPORT_ROWS with the largest used
 * figure (its bars; the rest are counted in omitted_bars). The page sorts
 * them the same way. */
static bool mark_for_report(report *r) {
  const row **all = malloc((r->nrows ? r->nrows : 1) * sizeof *all);
  size_t n = 0, u = 0;
  if (!all)
    return false;
  for (size_t k = 0; k < r->nrows; k++)
    if (r->rows[k].model.applies && r->rows[k].model.whole_bytes)
      all[n++] = &r->rows[k];
  qsort(all, n, sizeof *all, by_likely_desc);
  for (size_t i = 0; i < n && i < CLI_REPORT_ROWS; i++)
    r->rows[all[i] - r->rows].top_model = true;
  for (size_t k = 0; k < r->nrows; k++)
    if (used_bar(&r->rows[k]))
      all[u++] = &r->rows[k];
  qsort(all, u, sizeof *all, by_used_desc);
  for (size_t i = 0; i < u; i++) {
    row *w = &r->rows[all[i] - r->rows];
    w->top_used = i < CLI_REPORT_ROWS;
    r->omitted_bars += !w->top_used && !w->top_model && !(w->model.applies && w->model.min_bytes > w->model_limit);
  }
  free(all);
  return true;
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
static json_t *json_report(report *r, size_t top, bool streamed) {
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
  if (!module_buffers(r, top, &mb))
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
    const row *w = row_of(r, in);
    json_t *o = json_object();
    char *st = shape_text(w && w->laid ? w->laid : vmem_hlo_instruction_shape(in));
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
      json_object_set_new(o, "instruction", v->instruction ? json_str(vmem_hlo_instruction_name(v->instruction))
                                                           : json_null());
      json_array_append_new(resv, o);
    }
    json_object_set_new(pj, "reservations", resv);
    json_object_set_new(root, "program", pj);
  }
  return root;
}

/* Program-scoped VMEM with each instruction's scoped reservation, under
 * the global scoped limit the flags put in force. */
static bool program(report *r, const vmem_limit_inputs *in, const vmem_plan_options *popt, bool tight,
                    vmem_error *err) {
  vmem_limit_inputs global = *in;
  global.vmem_limit_bytes = -1;
  vmem_limits l;
  if (vmem_limits_resolve(r->t, &global, &l, err) != VMEM_OK)
    return false;
  /* The configs the rows decoded: the planner would decode each again. */
  vmem_program_options o = {popt->alignment, l.effective_bytes, tight, r->scoped};
  return vmem_hlo_program_vmem(r->m, r->t, &o, &r->prog, NULL, err) == VMEM_OK;
}

/* ---- commands ------------------------------------------------------------- */

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
static int stream_report(report *r, size_t top) {
  size_t head, k = 0, nc = vmem_hlo_computation_count(r->m);
  const char *tail;
  char *s = dump_split(json_report(r, top, true), "computations", &head, &tail);
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

/* The check options that carry a value to read: a format name, byte
 * counts, a count. Returns EXIT_OK, or prints the usage error. */
static int check_values(const char *format_s, const char **format, const char *limit, const char *align_s,
                        const char *scratch, const char *top_s, vmem_limit_inputs *in, vmem_plan_options *popt,
                        long *top) {
  static const char *const formats[] = {"hlo", "stablehlo", "mlir", "bytecode", "spec", NULL};
  size_t f = 0;
  while (format_s && formats[f] && strcmp(formats[f], format_s))
    f++;
  if (format_s && !formats[f])
    return cli_usage_error("check", "--format takes hlo, stablehlo, mlir, bytecode or spec, got '%s'", format_s);
  *format = format_s ? formats[f] : NULL;
  if (limit && !cli_parse_bytes(limit, &in->vmem_limit_bytes))
    return cli_usage_error("check", "--vmem-limit-bytes needs a whole number of bytes, got '%s'", limit);
  int64_t v = 0;
  if (align_s && (!cli_parse_bytes(align_s, &v) || v == 0 || (v & (v - 1)) != 0))
    return cli_usage_error("check", "--align needs a power of two in bytes, got '%s'", align_s);
  popt->alignment = align_s ? (uint64_t)v : popt->alignment;
  if (scratch && !cli_parse_bytes(scratch, &popt->internal_scratch))
    return cli_usage_error("check", "--internal-scratch needs a whole number of bytes, got '%s'", scratch);
  char *end = NULL;
  *top = top_s ? strtol(top_s, &end, 10) : *top;
  if (top_s && (*end || *top < 0 || *top > 100000))
    return cli_usage_error("check", "--top needs a count from 0 to 100000, got '%s'", top_s);
  return EXIT_OK;
}

/* check DIR: each module the dump folder's latest compilation of a program
 * left (cli_dump.c), checked as its own file with the same options. */
static int check_dump(int argc, char **argv, const char *dir, const char *module) {
  char **files;
  size_t n = cli_dump_modules(dir, module, &files);
  int rc = n ? EXIT_OK : EXIT_BAD;
  if (!n)
    cli_error("check", "%s: a folder, and no XLA dump folder: no module_*.after_optimizations.txt or "
              "...before_optimizations.txt%s in it", dir, module ? " of the program --module names" : "");
  char **args = malloc((size_t)(argc + 1) * sizeof *args);
  for (size_t f = 0; args && f < n; f++) {
    size_t len = strlen(dir) + strlen(files[f]) + 2;
    char *full = malloc(len);
    int m = 0;
    if (full) {
      snprintf(full, len, "%s/%s", dir, files[f]);
      for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--module") && i + 1 < argc) {
          i++;
          continue;
        }
        args[m++] = argv[i] == dir ? full : argv[i];
      }
      args[m] = NULL;
      fprintf(CLI_OUT, "\n== %s\n", files[f]);
      int r = cmd_check(m, args);
      rc = r > rc ? r : rc;
    }
    free(full);
    free(files[f]);
  }
  free(args);
  free(files);
  return rc;
}

int cmd_check(int argc, char **argv) {
  const char *path = NULL, *target = NULL, *format = NULL, *format_s = NULL, *instr = NULL, *limit = NULL,
             *align_s = NULL, *scratch = NULL, *top_s = NULL;
  bool json = false, summary = false, no_env = false, timeline = false, tight = false;
  long top = 10;
  vmem_limit_inputs in = {.vmem_limit_bytes = -1};
  vmem_plan_options popt = {.alignment = 0, .internal_scratch = -1, .model_intermediates = true};
  const char *params_v[16];
  cli_list params = {params_v, 0, 16};
  const char *module = NULL;
  const cli_opt opts[] = {{"--target", &target, NULL, NULL},
                          {"--param", NULL, NULL, &params},
                          {"--module", &module, NULL, NULL},
                          {"--format", &format_s, NULL, NULL},
                          {"--instruction", &instr, NULL, NULL},
                          {"--flags", &in.flags, NULL, NULL},
                          {"--vmem-limit-bytes", &limit, NULL, NULL},
                          {"--align", &align_s, NULL, NULL},
                          {"--internal-scratch", &scratch, NULL, NULL},
                          {"--top", &top_s, NULL, NULL},
                          {"--no-env", NULL, &no_env, NULL},
                          {"--json", NULL, &json, NULL},
                          {"--timeline", NULL, &timeline, NULL},
                          {"--tight", NULL, &tight, NULL},
                          {"--summary", NULL, &summary, NULL},
                          {NULL, NULL, NULL, NULL}};
  int scan = cli_scan("check", argc, argv, opts, &path, 1, help, "give one HLO file");
  if (scan != CLI_GO)
    return scan;
  if (check_values(format_s, &format, limit, align_s, scratch, top_s, &in, &popt, &top) != EXIT_OK)
    return EXIT_BAD;
  if (!path)
    return cli_usage_error("check", "give a file: an HLO module, Mosaic MLIR or a kernel spec");
  if (cli_is_dir(path))
    return check_dump(argc, argv, path, module);
  if (module)
    return cli_usage_error("check", "--module names a program of an XLA dump folder, and %s is a file", path);
  if (!format)
    format = detect_format(path);
  if (!strcmp(format, "empty")) {
    cli_error("check", "%s: %s", path, CLI_EMPTY_FILE);
    return EXIT_BAD;
  }
  if (!no_env)
    cli_env_flags(&in);
  const vmem_target *t = cli_target("check", target);
  if (!t)
    return EXIT_BAD;
  if (params.n) /* one block size of a spec */
    return check_kernel_file(path, format, instr, t, &in, &popt, json, params_v, params.n);
  if (!strcmp(format, "stablehlo") && !instr)
    return check_stablehlo(path, t, &in, &popt, json);
  if (strcmp(format, "hlo") != 0 || instr || params.n)
    return check_kernel_file(path, format, instr, t, &in, &popt, json, params_v, params.n);
  report r = {.path = path, .t = t, .in = &in, .opt = &popt, .timeline = timeline, .tight = tight,
              .summary = summary};
  vmem_limit_inputs global = in;
  global.vmem_limit_bytes = -1;
  vmem_limits gl;
  vmem_error lerr;
  r.global_limit = vmem_limits_resolve(t, &global, &gl, &lerr) == VMEM_OK ? gl.effective_bytes : 0;
  uint64_t bytes = cli_file_bytes(path);
  cli_progress(path, bytes, "parsing");
  if (!(r.m = open_module("check", path))) {
    cli_progress_done();
    return EXIT_BAD;
  }
  int rc = EXIT_OK;
  vmem_error perr;
  cli_progress(path, bytes, "sizing every instruction and decoding its kernel");
  if (!size_rows(&r))
    rc = EXIT_BAD;
  else if (cli_progress(path, bytes, "planning program-scoped VMEM"),
           !(r.has_prog = program(&r, &in, &popt, tight, &perr)))
    cli_error("check", "%s: program-scoped VMEM: %s", path, perr.message);
  cli_progress_done();
  if (rc != EXIT_OK)
    ;
  else if (json && cli_json_captured()) { /* report's document: a tree of the rows it reads (all if no room to rank) */
    r.lean = mark_for_report(&r);
    rc = cli_print_json(json_report(&r, (size_t)top, false));
  }
  else if (json)
    rc = stream_report(&r, (size_t)top);
  else
    print_text(&r, summary, (size_t)top);
  bool prog_over = r.has_prog && r.prog.used_bytes > r.prog.capacity_bytes;
  if (rc == EXIT_OK)
    rc = r.bad_body || !r.has_prog ? EXIT_BAD : r.worst == 2 || prog_over ? EXIT_OOM : EXIT_OK;
  vmem_program_free(&r.prog);
  free_rows(&r);
  vmem_hlo_free(r.m);
  return rc;
}

int cmd_print(int argc, char **argv) {
  const char *path = NULL;
  bool json = false;
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      fputs(print_help, CLI_OUT);
      return EXIT_OK;
    }
    if (!strcmp(argv[i], "--json"))
      json = true;
    else if (argv[i][0] == '-' && argv[i][1])
      return cli_usage_error("print", "unknown option %s", argv[i]);
    else if (path)
      return cli_usage_error("print", "give one HLO file (got a second: '%s')", argv[i]);
    else
      path = argv[i];
  }
  if (!path)
    return cli_usage_error("print", "give one HLO file");
  vmem_hlo_module *m = open_module("print", path);
  if (!m)
    return EXIT_BAD;
  size_t n = vmem_hlo_print(m, NULL, 0);
  char *buf = malloc(n + 1);
  if (!buf) {
    vmem_hlo_free(m);
    cli_error("print", "out of memory");
    return EXIT_BAD;
  }
  vmem_hlo_print(m, buf, n + 1);
  int rc = EXIT_OK;
  if (json)
    rc = cli_print_json(json_pack("{s:i,s:s,s:s%}", "schema_version", CLI_JSON_SCHEMA, "command", "print",
                                  "module", buf, n));
  else
    fwrite(buf, 1, n, CLI_OUT);
  free(buf);
  vmem_hlo_free(m);
  return rc;
}
