/*
 * cmd_check.c — `vmemscope check module.hlo [--target T] [--json]` and
 * `vmemscope print module.hlo`.
 *
 * The orchestration: the file read in the format it holds (a kernel goes
 * to cmd_kernel.c), every instruction sized, its config decoded and its
 * kernel or standard-op model evaluated, the program-scoped plan made,
 * then the report handed to check_text.c or check_json.c.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

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
    "comes from, and the verdict: \"fits\" when it fits with the body's modelled\n"
    "values at the model's ceiling, \"at risk\" (a warning, exit 0) when it fits\n"
    "with their estimate alone. When it does not fit: the compiler's E1001\n"
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
    "  --json                  print JSON (docs/json.md; every size in bytes)\n"
    "  --strict                exit 1 when a kernel is at risk too (it fits only with the body's\n"
    "                          estimated values), for CI\n"
    "  --compile               StableHLO: also compile the module with the real compiler (libtpu, ahead\n"
    "                          of time, no TPU; docs/compiler.md) and set its figure and verdict beside\n"
    "                          the model's; a disagreement is printed and exits 1, a compile that fails\n"
    "                          for a reason other than memory exits 2\n"
    "  --libtpu PATH           the libtpu.so to use (default $VMEMSCOPE_LIBTPU, else the one a Python\n"
    "                          environment on $PATH has)\n"
    "  --compile-timeout S     stop a compile after S seconds (default 300)\n"
    "  --topology NAME         compile for this libtpu topology (default: the target's, e.g. v5e:2x2)\n\n"
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

static const char print_help[] = "usage: vmemscope print FILE.hlo [--json]\n\n"
                                 "Parses an HLO module and prints it back canonically: '%' names, one\n"
                                 "instruction per line, operands by name, attributes as written. The output\n"
                                 "parses to the same module. --json: {\"module\": TEXT}.\n\n"
                                 "examples:\n"
                                 "  vmemscope print module.hlo > canonical.hlo\n";

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

char *chk_shape_text(const vmem_shape *s) {
  size_t n = vmem_shape_print(s, NULL, 0);
  char *b = malloc(n + 1);
  if (b)
    vmem_shape_print(s, b, n + 1);
  return b;
}

bool chk_is_custom_call(const vmem_hlo_instruction *in) {
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
const char *chk_row_shape(report *r, const row *w) {
  const vmem_shape *s = vmem_hlo_instruction_shape(w->in);
  laid_entry *e = r->laid_cap ? laid_slot(r, s) : NULL;
  if (e && e->key) {
    if (!e->text)
      e->text = chk_shape_text(e->laid ? e->laid : s);
    return e->text;
  }
  free(r->uncached); /* not in the cache (sizing ran out of memory): printed alone */
  return r->uncached = chk_shape_text(w->laid ? w->laid : s);
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
      if (chk_is_custom_call(w->in) || vmem_hlo_instruction_attr(w->in, "backend_config").len) {
        if (!decoded && vmem_hlo_instruction_scoped(w->in, w->scoped, &err) != VMEM_OK) {
          cli_file_error("check", r->path, text.ptr, text.len, &err);
          r->nrows = k + 1;
          return false;
        }
        w->has_scoped = w->scoped->limit_bytes >= 0 || w->scoped->used_bytes >= 0 || chk_is_custom_call(w->in);
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

/* A model's choice under its limit (the text's table and the JSON). */
uint64_t chk_model_likely(const row *w) { return w->model_likely; }

/* Rows by modelled choice, largest first, module order among equals: the
 * text's table and the report's rows choose alike. */
int chk_by_likely_desc(const void *a, const void *b) {
  const row *x = *(const row *const *)a, *y = *(const row *const *)b;
  uint64_t lx = chk_model_likely(x), ly = chk_model_likely(y);
  if (lx != ly)
    return lx < ly ? 1 : -1;
  return x < y ? -1 : x > y;
}

/* The row of a buffer the library names (rows are in instruction order). */
const row *chk_row_of(const report *r, const vmem_hlo_instruction *in) {
  size_t id = vmem_hlo_instruction_id(in);
  return id < r->nrows && r->rows[id].in == in ? &r->rows[id] : NULL;
}

/* The module's totals and `top` largest; false (printed) when out of memory. */
bool chk_module_buffers(const report *r, size_t top, vmem_module_buffers *b) {
  vmem_error err;
  if (vmem_hlo_module_buffers(r->m, r->t, top, b, NULL, &err) == VMEM_OK)
    return true;
  fprintf(CLI_ERR, "vmemscope check: error: %s\n", err.message);
  return false;
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
    cli_error("check",
              "%s: a folder, and no XLA dump folder: no module_*.after_optimizations.txt or "
              "...before_optimizations.txt%s in it",
              dir, module ? " of the program --module names" : "");
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

/* check's options and where each goes: one table, which report also asks
 * (check_takes_value) to pass an option on with its value. */
typedef struct check_args {
  const char *target, *format_s, *instr, *flags, *limit, *align_s, *scratch, *top_s, *module;
  bool json, summary, no_env, timeline, tight, strict, compile;
  cli_compile_req req; /* --libtpu, --compile-timeout, --topology */
  const char *params_v[16];
  cli_list params;
} check_args;

enum { CHECK_NOPTS = 21 };

static void check_options(check_args *a, cli_opt out[CHECK_NOPTS]) {
  a->params = (cli_list){a->params_v, 0, 16};
  const cli_opt opts[CHECK_NOPTS] = {{"--target", &a->target, NULL, NULL},
                                     {"--param", NULL, NULL, &a->params},
                                     {"--module", &a->module, NULL, NULL},
                                     {"--format", &a->format_s, NULL, NULL},
                                     {"--instruction", &a->instr, NULL, NULL},
                                     {"--flags", &a->flags, NULL, NULL},
                                     {"--vmem-limit-bytes", &a->limit, NULL, NULL},
                                     {"--align", &a->align_s, NULL, NULL},
                                     {"--internal-scratch", &a->scratch, NULL, NULL},
                                     {"--top", &a->top_s, NULL, NULL},
                                     {"--no-env", NULL, &a->no_env, NULL},
                                     {"--json", NULL, &a->json, NULL},
                                     {"--timeline", NULL, &a->timeline, NULL},
                                     {"--tight", NULL, &a->tight, NULL},
                                     {"--summary", NULL, &a->summary, NULL},
                                     {"--strict", NULL, &a->strict, NULL},
                                     {"--compile", NULL, &a->compile, NULL},
                                     {"--libtpu", &a->req.libtpu, NULL, NULL},
                                     {"--compile-timeout", &a->req.timeout_s, NULL, NULL},
                                     {"--topology", &a->req.topology, NULL, NULL},
                                     {NULL, NULL, NULL, NULL}};
  memcpy(out, opts, sizeof opts);
}

bool check_takes_value(const char *opt) {
  check_args a = {0};
  cli_opt o[CHECK_NOPTS];
  check_options(&a, o);
  for (size_t i = 0; o[i].name; i++)
    if (!strcmp(o[i].name, opt))
      return o[i].value || o[i].list;
  return false;
}

static int check_run(int argc, char **argv, bool *strict);

/* --strict: a kernel "at risk" (it fits with the body's estimated values,
 * not at their ceiling) fails the check too, for a CI that wants no kernel
 * whose fit the model's estimate decides. */
int cmd_check(int argc, char **argv) {
  bool strict = false;
  cli_now->at_risk_seen = false;
  int rc = check_run(argc, argv, &strict);
  return strict && rc == EXIT_OK && cli_now->at_risk_seen ? EXIT_OOM : rc;
}

static int check_run(int argc, char **argv, bool *strict) {
  const char *path = NULL, *format = NULL;
  long top = 10;
  check_args a = {0};
  cli_opt opts[CHECK_NOPTS];
  check_options(&a, opts);
  int scan = cli_scan("check", argc, argv, opts, &path, 1, help, "give one HLO file");
  *strict = a.strict;
  const char *target = a.target, *format_s = a.format_s, *instr = a.instr, *limit = a.limit, *align_s = a.align_s,
             *scratch = a.scratch, *top_s = a.top_s, *module = a.module, *const *params_v = a.params_v;
  bool json = a.json, summary = a.summary, no_env = a.no_env, timeline = a.timeline, tight = a.tight;
  cli_list params = a.params;
  vmem_limit_inputs in = {.vmem_limit_bytes = -1, .flags = a.flags};
  vmem_plan_options popt = {.alignment = 0, .internal_scratch = -1, .model_intermediates = true};
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
  if (a.compile && (strcmp(format, "stablehlo") != 0 || instr || params.n))
    return cli_usage_error("check",
                           "--compile compiles a whole StableHLO module (jax.jit(f).lower(...).as_text()), and %s is "
                           "%s; from Python, vmemscope.jax.check(..., compile=True) lowers the kernel for you",
                           path, strcmp(format, "stablehlo") ? format : "asked for one kernel of one");
  if ((a.req.libtpu || a.req.timeout_s || a.req.topology) && !a.compile)
    return cli_usage_error("check", "--libtpu, --compile-timeout and --topology go with --compile");
  if (params.n) /* one block size of a spec */
    return check_kernel_file(path, format, instr, t, &in, &popt, json, params_v, params.n);
  if (!strcmp(format, "stablehlo") && !instr)
    return check_stablehlo(path, t, &in, &popt, json, a.compile ? &a.req : NULL);
  if (strcmp(format, "hlo") != 0 || instr || params.n)
    return check_kernel_file(path, format, instr, t, &in, &popt, json, params_v, params.n);
  report r = {.path = path, .t = t, .in = &in, .opt = &popt, .timeline = timeline, .tight = tight, .summary = summary};
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
    r.lean = report_mark_rows(&r);
    rc = cli_print_json(chk_json_report(&r, (size_t)top, false));
  } else if (json)
    rc = chk_stream_report(&r, (size_t)top);
  else
    chk_print_text(&r, summary, (size_t)top);
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
    rc = cli_print_json(
        json_pack("{s:i,s:s,s:s%}", "schema_version", CLI_JSON_SCHEMA, "command", "print", "module", buf, n));
  else
    fwrite(buf, 1, n, CLI_OUT);
  free(buf);
  vmem_hlo_free(m);
  return rc;
}
