/*
 * cmd_report.c — `vmemscope report INPUT [-o FILE] [--fit]`: runs check
 * (or explain, on a compiler log) and optionally fit in JSON mode, takes
 * their documents back, and renders one self-contained HTML page.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cli.h"

static const char help[] = "usage: vmemscope report INPUT [-o FILE] [--fit] [--log] [--target T] [OPTIONS...]\n\n"
                           "One self-contained HTML file (inline SVG and CSS, a few lines of inline JS,\n"
                           "nothing fetched) for an HLO module, StableHLO, a Pallas kernel or a compiler\n"
                           "log: scoped VMEM per instruction or kernel against its limit, each kernel's\n"
                           "allocations as a stacked bar against the limit and physical VMEM, program-\n"
                           "scoped VMEM over schedule time with the buffers live at the peak, and the\n"
                           "diagnostics and remedies. The figures are those of check/explain --json.\n\n"
                           "options:\n"
                           "  -o, --output FILE   write the page here (default: standard output)\n"
                           "  --fit               a kernel: add the Pareto front of block sizes (fit --json)\n"
                           "  --log               INPUT is a compiler log (detected when it holds a TPU\n"
                           "                      memory error and is not HLO)\n"
                           "  other options       passed to check (or explain with --log): --target,\n"
                           "                      --instruction, --vmem-limit-bytes, --flags, --no-env, --tight,\n"
                           "                      --hlo, --kernel, ...; StableHLO: --compile (the real compiler's\n"
                           "                      figure beside each kernel's stack, docs/compiler.md) with\n"
                           "                      --libtpu, --topology, --compile-timeout\n\n"
                           "Exit status: as check or explain (1 when something does not fit), 2 on bad input.\n\n"
                           "examples:\n"
                           "  vmemscope report module.hlo -o vmem.html\n"
                           "  vmemscope report kernel.json --fit --target v6e -o kernel.html\n"
                           "  vmemscope report train.log --hlo module.hlo -o oom.html\n"
                           "  vmemscope report jit_f.stablehlo.mlir --compile -o kernel.html\n";

/* A row the report draws a bar for by the compiler's used figure: one
 * with that figure and a limit, not a custom call (those are all kept). */
static bool used_bar(const row *w) {
  return w->has_scoped && w->scoped->used_bytes >= 0 && w->scoped->limit_bytes > 0 && !chk_is_custom_call(w->in);
}

static int by_used_desc(const void *a, const void *b) {
  const row *x = *(const row *const *)a, *y = *(const row *const *)b;
  if (x->scoped->used_bytes != y->scoped->used_bytes)
    return x->scoped->used_bytes < y->scoped->used_bytes ? 1 : -1;
  vmem_str nx = vmem_hlo_instruction_name(x->in), ny = vmem_hlo_instruction_name(y->in);
  int c = memcmp(nx.ptr, ny.ptr, nx.len < ny.len ? nx.len : ny.len); /* report_html.c's bar order */
  return c ? c : (nx.len > ny.len) - (nx.len < ny.len);
}

/* Which rows the page shows, decided here and asked for by check when
 * its document is captured for report (check then writes those alone).
 * Marks the rows report's page can show: the CLI_REPORT_ROWS modelled rows
 * with the most (its table), and the CLI_REPORT_ROWS with the largest used
 * figure (its bars; the rest are counted in omitted_bars). The page sorts
 * them the same way. */
bool report_mark_rows(report *r) {
  const row **all = malloc((r->nrows ? r->nrows : 1) * sizeof *all);
  size_t n = 0, u = 0;
  if (!all)
    return false;
  for (size_t k = 0; k < r->nrows; k++)
    if (r->rows[k].model.applies && r->rows[k].model.whole_bytes)
      all[n++] = &r->rows[k];
  qsort(all, n, sizeof *all, chk_by_likely_desc);
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

/* Options fit also understands, passed on to it with their values. */
static const char *const fit_shared[] = {"--target", "--instruction", "--vmem-limit-bytes",
                                         "--flags",  "--format",      NULL};

typedef struct rargs {
  const char *input, *output, *target;
  bool fit, log, help;
  int n; /* passed-through arguments */
  char *pass[64];
} rargs;

/* Whether an option passed on takes a value: check's (its own table), or
 * explain's with --log. */
static bool takes_value(const char *a) { return check_takes_value(a) || !strcmp(a, "--hlo") || !strcmp(a, "--kernel"); }

static int parse_args(rargs *r, int argc, char **argv) {
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h"))
      r->help = true;
    else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
      if (++i == argc)
        return cli_usage_error("report", "option %s needs a value", a);
      r->output = argv[i];
    } else if (!strncmp(a, "--output=", 9))
      r->output = a + 9;
    else if (!strcmp(a, "--fit"))
      r->fit = true;
    else if (!strcmp(a, "--log"))
      r->log = true;
    else if (!strcmp(a, "--json"))
      return cli_usage_error("report", "report writes HTML; the document it draws is what check --json (or explain "
                                       "--json) prints");
    else if (a[0] != '-' || !a[1]) {
      if (r->input)
        return cli_usage_error("report", "give one input (got a second: '%s')", a);
      r->input = a;
    } else {
      if (r->n + 2 >= (int)(sizeof r->pass / sizeof *r->pass))
        return cli_usage_error("report", "too many options");
      r->pass[r->n++] = argv[i];
      if (!strcmp(a, "--target") && i + 1 < argc)
        r->target = argv[i + 1];
      else if (!strncmp(a, "--target=", 9))
        r->target = a + 9;
      if (takes_value(a) && i + 1 < argc)
        r->pass[r->n++] = argv[++i];
    }
  }
  return EXIT_OK;
}

/* A compiler log: its first 64 KiB carry a TPU memory error and no module
 * or kernel (only the head is read: dumps run to hundreds of MB, and the
 * command that follows reads the file itself; a log whose error comes
 * later takes --log). */
static bool looks_like_log(const char *path) {
  enum { HEAD = 65536 };
  char *head = malloc(HEAD + 1);
  FILE *f = head ? fopen(path, "rb") : NULL;
  size_t n = f ? fread(head, 1, HEAD, f) : 0;
  if (f)
    fclose(f);
  bool log = false;
  if (head && cli_unpack_kind(head, n) != CLI_PLAIN)
    log = true; /* a gzip or zstd stream: explain reads compressed logs, check reads no compressed input */
  else if (head && !memchr(head, '\0', n)) {
    head[n] = '\0';
    static const char *const marks[] = {"Ran out of memory", "RESOURCE_EXHAUSTED", "Scoped allocation with size",
                                        "Largest program allocations in", "Total hbm usage >="};
    bool mark = false;
    for (size_t i = 0; i < sizeof marks / sizeof *marks; i++)
      mark = mark || strstr(head, marks[i]);
    log =
        !strstr(head, "HloModule ") && !strstr(head, "func.func") && !strcmp(cli_detect_format(head, n), "hlo") && mark;
  }
  free(head);
  return log;
}

/* Runs cmd on INPUT --json with the given extra arguments (and, for fit,
 * --top 200); the document it prints lands in *doc. The commands take
 * char ** as main's argv and never write through it. */
static int run_json(int (*cmd)(int, char **), const rargs *r, char **extra, int nextra, bool top, json_t **doc) {
  char json_opt[] = "--json", top_opt[] = "--top", top_n[] = "200";
  char *argv[84];
  int n = 0;
  argv[n++] = (char *)(uintptr_t)r->input;
  argv[n++] = json_opt;
  for (int i = 0; i < nextra && i < 78; i++)
    argv[n++] = extra[i];
  if (top)
    argv[n++] = top_opt, argv[n++] = top_n;
  argv[n] = NULL;
  const char *as = cli_now->as;
  cli_now->as = "report";
  cli_capture_json(doc);
  int rc = cmd(n, argv);
  cli_capture_json(NULL);
  cli_now->as = as;
  return rc;
}

/* The arguments of check that fit shares. */
static int fit_args(const rargs *r, char **out) {
  int n = 0;
  for (int i = 0; i < r->n; i++)
    for (size_t k = 0; fit_shared[k]; k++)
      if (!strncmp(r->pass[i], fit_shared[k], strlen(fit_shared[k]))) {
        out[n++] = r->pass[i];
        if (!strchr(r->pass[i], '=') && i + 1 < r->n)
          out[n++] = r->pass[++i];
        break;
      }
  return n;
}

static int write_page(const rargs *r, const report_docs *d, int status) {
  FILE *f = r->output && strcmp(r->output, "-") ? fopen(r->output, "w") : CLI_OUT;
  if (!f) {
    cli_error("report", "%s: cannot write", r->output);
    return EXIT_BAD;
  }
  report_html(f, d, status);
  bool ok = !ferror(f);
  if (f != CLI_OUT)
    ok = (fclose(f) == 0) && ok;
  if (!ok) {
    cli_error("report", "%s: write failed", r->output ? r->output : "standard output");
    return EXIT_BAD;
  }
  return status;
}

/* The generation a log's first error implies by its figures (explain's
 * "targets": a default limit or a capacity): `deflt` when it is among
 * them (16 MiB is the default limit of five), else the first; NULL when
 * no error names one. */
static const vmem_target *log_target(const json_t *doc, const vmem_target *deflt) {
  const json_t *es = json_object_get(doc, "errors");
  for (size_t i = 0; i < json_array_size(es); i++) {
    const json_t *ts = json_object_get(json_array_get(es, i), "targets");
    for (size_t k = 0; k < json_array_size(ts); k++)
      if (!strcmp(json_string_value(json_array_get(ts, k)), vmem_target_name(deflt)))
        return deflt;
    const char *t = json_string_value(json_array_get(ts, 0));
    if (t)
      return vmem_target_find(t, strlen(t));
  }
  return NULL;
}

int cmd_report(int argc, char **argv) {
  rargs r = {0};
  if (parse_args(&r, argc, argv) != EXIT_OK)
    return EXIT_BAD;
  if (r.help) {
    fputs(help, CLI_OUT);
    return EXIT_OK;
  }
  if (!r.input)
    return cli_usage_error("report", "give an HLO module, a kernel or a log");
  const vmem_target *t = cli_target("report", r.target);
  if (!t)
    return EXIT_BAD;
  report_docs d = {r.input, vmem_target_name(t), vmem_target_u64(t, VMEM_FACT_VMEM_BYTES), NULL, NULL, NULL};
  bool log = r.log || looks_like_log(r.input);
  if (log && r.fit)
    return cli_usage_error("report", "--fit searches a kernel's block sizes; %s is a compiler log", r.input);
  int rc = run_json(log ? cmd_explain : cmd_check, &r, r.pass, r.n, false, log ? &d.explain : &d.check);
  const vmem_target *implied = log && !r.target ? log_target(d.explain, t) : NULL;
  if (implied) /* a log names its generation by its figures; the default would be a guess */
    d.target = vmem_target_name(implied), d.physical = vmem_target_u64(implied, VMEM_FACT_VMEM_BYTES);
  if (rc == EXIT_OK || rc == EXIT_OOM) {
    if (r.fit && !log) {
      char *extra[80];
      int n = fit_args(&r, extra), frc = run_json(cmd_fit, &r, extra, n, true, &d.fit);
      rc = frc == EXIT_BAD ? EXIT_BAD : rc;
    }
    if (rc != EXIT_BAD)
      rc = write_page(&r, &d, rc);
  }
  json_decref(d.check);
  json_decref(d.explain);
  json_decref(d.fit);
  return rc;
}
