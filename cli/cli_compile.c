/*
 * cli_compile.c — the compiler's word beside the model's: `check --compile`
 * (and fit --confirm, which compiles each candidate through the same
 * pieces). The library compiles (vmem_compile, src/compiler/); this file
 * pairs each compiled kernel with the model's, decides where the two
 * disagree, and prints both.
 *
 * Pairing is by the kernel's body (custom_call_config.body, the Mosaic
 * bytecode both modules carry): the compiled module's order and names are
 * the compiler's (calls inlined, instructions renamed), not the input's.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <math.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Whether --compile-timeout's text is a number of seconds. */
static bool parse_seconds(const char *s, double *out) {
  char *end = NULL;
  double v = s ? strtod(s, &end) : 0;
  if (!s || end == s || *end || !(v > 0) || v > 86400)
    return false;
  *out = v;
  return true;
}

vmem_compiler *cli_compiler_open(const char *cmd, const cli_compile_req *req, double *timeout) {
  if (req->timeout_s && !parse_seconds(req->timeout_s, timeout)) {
    cli_usage_error(cmd, "--compile-timeout needs seconds, more than 0 and at most 86400, got '%s'", req->timeout_s);
    return NULL;
  }
  if (!req->timeout_s)
    *timeout = 300;
  vmem_error err;
  vmem_compiler *c = vmem_compiler_open(req->libtpu, NULL, &err);
  if (!c)
    cli_error(cmd, "--compile: %s", err.message);
  return c;
}

/* The global scoped limit the compiler is given: the flag's, when one is
 * in force; else none, and the compiler keeps its default, as the model's
 * "default" limit does. */
static int64_t flag_limit_kib(const vmem_target *t, const vmem_limit_inputs *in) {
  vmem_limit_inputs global = *in;
  global.vmem_limit_bytes = -1;
  vmem_limits l;
  vmem_error err;
  if (vmem_limits_resolve(t, &global, &l, &err) != VMEM_OK || l.origin != VMEM_LIMIT_FLAG)
    return 0;
  return (int64_t)(l.effective_bytes / 1024);
}

vmem_compile_result *cli_compile_text(const char *cmd, vmem_compiler *c, const cli_compile_req *req, double timeout,
                                      const char *text, size_t len, const vmem_target *t, const vmem_limit_inputs *in) {
  vmem_compile_options o = {.topology = req->topology,
                            .target = t,
                            .timeout_seconds = timeout,
                            .scoped_vmem_limit_kib = flag_limit_kib(t, in)};
  vmem_compile_result *res = NULL;
  vmem_error err;
  if (vmem_compile(c, text, len, &o, &res, &err) != VMEM_OK)
    cli_error(cmd, "--compile: %s", err.message);
  return res;
}

/* Each model kernel's compiled counterpart, by body (NULL where none):
 * decided once, for the verdict, the text and the JSON alike. */
static const vmem_compiled_kernel **pair_all(const vmem_compile_result *res, const cli_model_kernel *mk, size_t n) {
  const vmem_compiled_kernel **paired = calloc(n + 1, sizeof *paired);
  bool *taken = calloc(res->nkernels + 1, sizeof *taken);
  for (size_t i = 0; paired && taken && i < n; i++)
    for (size_t j = 0; j < res->nkernels && !paired[i]; j++) {
      const vmem_compiled_kernel *k = &res->kernels[j];
      if (!taken[j] && mk[i].body && strlen(k->body) == mk[i].body_len && !memcmp(k->body, mk[i].body, mk[i].body_len))
        taken[j] = true, paired[i] = k;
    }
  free(taken);
  return paired;
}

/* Where the model and the compiler part: NULL when they agree (a verdict
 * "at risk" is the model saying it cannot tell, so the compiler settles it
 * and no answer disagrees with it). */
static const char *disagreement(const cli_model_kernel *m, const vmem_compile_result *res,
                                const vmem_compiled_kernel *k) {
  if (!m->sized)
    return NULL;
  vmem_verdict_code v = m->v.scoped;
  if (res->status == VMEM_COMPILE_OK) {
    if (v == VMEM_VERDICT_E1001 || v == VMEM_VERDICT_LIKELY_E1001)
      return "the model says E1001; the compiler compiled it";
    if (k && k->has_figure && k->scoped_bytes > m->v.ceiling_bytes)
      return "the compiler's figure is above the model's ceiling";
  } else if (res->status == VMEM_COMPILE_REFUSED && res->scoped_oom && v == VMEM_VERDICT_FITS) {
    return "the model says it fits; the compiler ran out of scoped VMEM (E1001)";
  }
  return NULL;
}

static const char *model_word(const cli_model_kernel *m) {
  if (!m->sized)
    return "not sized";
  return m->v.scoped == VMEM_VERDICT_E1001          ? "E1001"
         : m->v.scoped == VMEM_VERDICT_LIKELY_E1001 ? "likely E1001"
         : m->v.scoped == VMEM_VERDICT_AT_RISK      ? "at risk"
                                                    : "fits";
}

/* The compiler names its input "-" in a position ("-:3:12: error: ..."):
 * the file's name goes there instead (named), and the text after the "-"
 * follows (named_text). */
static const char *named(const char *text, const char *path) {
  return path && text[0] == '-' && text[1] == ':' ? path : "";
}
static const char *named_text(const char *text, const char *path) { return *named(text, path) ? text + 1 : text; }

/* The error's first line, for the text (JSON keeps it whole). */
static int first_line(const char *s) {
  const char *nl = strchr(s, '\n');
  size_t n = nl ? (size_t)(nl - s) : strlen(s);
  return (int)(n > 400 ? 400 : n);
}

static const char *result_word(const vmem_compile_result *res) {
  if (res->status != VMEM_COMPILE_REFUSED)
    return vmem_compile_status_name(res->status);
  return res->scoped_oom ? "E1001" : "refused";
}

/* Every tpu_custom_call of the compiled module: name, computation, figure. */
static json_t *json_compiled_kernels(const vmem_compile_result *res) {
  json_t *out = json_array();
  for (size_t i = 0; i < res->nkernels; i++) {
    const vmem_compiled_kernel *k = &res->kernels[i];
    json_array_append_new(out,
                          json_pack("{s:s,s:s,s:o}", "name", k->name, "computation", k->computation, "figure_bytes",
                                    k->has_figure ? json_integer((json_int_t)k->scoped_bytes) : json_null()));
  }
  return out;
}

static json_t *json_result(const vmem_compiler *c, const vmem_compile_result *res, const cli_model_kernel *mk, size_t n,
                           const vmem_compiled_kernel **paired, size_t disagree, double model_seconds) {
  json_t *kernels = json_array();
  json_t *figure = json_null();
  for (size_t i = 0; i < n; i++) {
    const vmem_compiled_kernel *k = paired[i];
    const char *why = disagreement(&mk[i], res, k);
    json_t *o = json_pack("{s:s,s:s,s:o,s:o,s:b,s:o}", "kernel", mk[i].name, "model_verdict",
                          mk[i].sized ? vmem_verdict_name(mk[i].v.scoped) : "not_sized", "model_ceiling_bytes",
                          mk[i].sized ? json_integer((json_int_t)mk[i].v.ceiling_bytes) : json_null(), "figure_bytes",
                          k && k->has_figure ? json_integer((json_int_t)k->scoped_bytes) : json_null(), "agrees",
                          why == NULL, "disagreement", why ? json_string(why) : json_null());
    if (k)
      json_object_set_new(o, "compiled_name", json_string(k->name));
    if (n == 1 && k && k->has_figure)
      figure = json_integer((json_int_t)k->scoped_bytes);
    json_array_append_new(kernels, o);
  }
  json_t *stats =
      res->has_stats
          ? json_pack("{s:I,s:I,s:I,s:I,s:I}", "generated_code_size_in_bytes", (json_int_t)res->generated_code_bytes,
                      "argument_size_in_bytes", (json_int_t)res->argument_bytes, "output_size_in_bytes",
                      (json_int_t)res->output_bytes, "alias_size_in_bytes", (json_int_t)res->alias_bytes,
                      "temp_size_in_bytes", (json_int_t)res->temp_bytes)
          : json_null();
  return json_pack("{s:s,s:o,s:o,s:s,s:i,s:f,s:f,s:f,s:s,s:s,s:o,s:b,s:I,s:o,s:o}", "verdict", result_word(res),
                   "figure", figure, "error", *res->error_text ? json_string(res->error_text) : json_null(), "status",
                   vmem_compile_status_name(res->status), "error_code", res->error_code, "seconds",
                   res->compile_seconds, "wall_seconds", res->wall_seconds, "model_seconds", model_seconds,
                   "libtpu_version", vmem_compiler_version(c), "topology", res->topology, "memory_analysis", stats,
                   "agrees", disagree == 0, "disagreements", (json_int_t)disagree, "kernels", kernels,
                   "compiled_kernels", json_compiled_kernels(res));
}

/* The compiler's error in one line: an E1001 by its figures (the
 * library's reading, vmem_compile_result.e1001_*), else the message's first
 * line with the file named where the compiler says "-" (its input). */
static void print_error(const vmem_compile_result *res, const char *path) {
  fputs(cli_tone(res->scoped_oom ? CLI_BAD : CLI_WARN), CLI_OUT);
  if (res->scoped_oom && res->e1001_size.present && res->e1001_limit.present)
    fprintf(CLI_OUT, "  the compiler's E1001: scoped allocation %s against a limit of %s (over by %s)%s%s\n",
            res->e1001_size.text, res->e1001_limit.text, res->e1001_excess.present ? res->e1001_excess.text : "?",
            res->e1001_instruction ? " for " : "", res->e1001_instruction ? res->e1001_instruction : "");
  else
    fprintf(CLI_OUT, "  %s%.*s\n", named(res->error_text, path), first_line(named_text(res->error_text, path)),
            named_text(res->error_text, path));
  fputs(cli_tone(CLI_RESET), CLI_OUT);
}

static void print_result(const vmem_compiler *c, const vmem_compile_result *res, const cli_model_kernel *mk, size_t n,
                         const vmem_compiled_kernel **paired, double model_seconds, const char *path) {
  char b[48], m[48];
  fprintf(CLI_OUT, "\ncompiler: %s, for %s: %s in %.2f s (%.2f s with loading; the model took %.1f ms)\n",
          vmem_compiler_version(c), res->topology, result_word(res), res->compile_seconds, res->wall_seconds,
          model_seconds * 1e3);
  if (*res->error_text)
    print_error(res, path);
  for (size_t i = 0; i < n; i++) {
    const vmem_compiled_kernel *k = paired[i];
    const char *why = disagreement(&mk[i], res, k);
    fprintf(CLI_OUT, "  %-28s model %s, %-12s compiler %s%s\n", mk[i].name,
            mk[i].sized ? cli_human(m, sizeof m, mk[i].v.predicted_bytes) : "-", model_word(&mk[i]),
            k && k->has_figure               ? cli_bytes(b, sizeof b, k->scoped_bytes)
            : res->status == VMEM_COMPILE_OK ? "compiled (no figure)"
                                             : result_word(res),
            k && k->has_figure && mk[i].sized
                ? (k->scoped_bytes <= mk[i].v.ceiling_bytes ? ", within the ceiling" : ", ABOVE the ceiling")
                : "");
    if (why)
      fprintf(CLI_OUT, "  %s!! DISAGREEMENT: %s%s\n", cli_tone(CLI_BAD), why, cli_tone(CLI_RESET));
  }
}

void cli_compile_failed(const char *cmd, const vmem_compile_result *res, const char *path) {
  const char *text = named_text(res->error_text, path);
  cli_error(cmd, "the compiler %s: %s%.*s",
            res->status == VMEM_COMPILE_TIMEOUT   ? "timed out"
            : res->status == VMEM_COMPILE_CRASHED ? "crashed"
                                                  : "refused the module",
            named(res->error_text, path), first_line(text), text);
}

int cli_compile_report(const char *cmd, const cli_compile_req *req, const char *path, const char *text, size_t len,
                       const vmem_target *t, const vmem_limit_inputs *in, const cli_model_kernel *mk, size_t n,
                       double model_seconds, json_t *root) {
  double timeout;
  vmem_compiler *c = cli_compiler_open(cmd, req, &timeout);
  if (!c)
    return EXIT_BAD;
  vmem_compile_result *res = cli_compile_text(cmd, c, req, timeout, text, len, t, in);
  if (!res) {
    vmem_compiler_close(c);
    return EXIT_BAD;
  }
  const vmem_compiled_kernel **paired = pair_all(res, mk, n);
  size_t d = 0;
  for (size_t i = 0; paired && i < n; i++)
    d += disagreement(&mk[i], res, paired[i]) != NULL;
  if (!paired)
    cli_error(cmd, "out of memory");
  else if (root)
    json_object_set_new(root, "compiler", json_result(c, res, mk, n, paired, d, model_seconds));
  else
    print_result(c, res, mk, n, paired, model_seconds, path);
  int rc = !paired                                                  ? EXIT_BAD
           : d                                                      ? EXIT_OOM
           : res->status == VMEM_COMPILE_REFUSED && res->scoped_oom ? EXIT_OOM
           : res->status == VMEM_COMPILE_OK                         ? EXIT_OK
                                                                    : EXIT_BAD;
  if (!root && d)
    fprintf(CLI_OUT, "\n%s%zu disagreement%s between the model and the compiler: the compiler's word stands%s\n",
            cli_tone(CLI_BAD), d, d == 1 ? "" : "s", cli_tone(CLI_RESET));
  if (rc == EXIT_BAD && paired && !root)
    cli_compile_failed(cmd, res, path);
  free(paired);
  vmem_compile_result_free(res);
  vmem_compiler_close(c);
  return rc;
}

/* The body of a StableHLO custom call's backend_config, for pairing. */
bool cli_config_body(const char *config, size_t len, const char **body, size_t *blen, json_t **keep) {
  json_error_t je;
  json_t *root = len ? json_loadb(config, len, 0, &je) : NULL;
  json_t *b = root ? json_object_get(json_object_get(root, "custom_call_config"), "body") : NULL;
  *body = json_is_string(b) ? json_string_value(b) : NULL;
  *blen = json_is_string(b) ? json_string_length(b) : 0;
  *keep = root;
  return *body != NULL;
}

double cli_clock(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* ## explain --recompile: the module the log came from, compiled again */

int cli_recompile_report(const cli_compile_req *req, const char *path, const vmem_target *t, const char *log_size,
                         const char *log_limit, json_t *root) {
  size_t len = 0;
  char *text = cli_read_file(path, &len);
  if (!text) {
    cli_open_error("explain", path);
    return EXIT_BAD;
  }
  /* Read as check reads StableHLO first: an empty, binary or broken file is
   * named with its position here, not sent to the compiler. */
  vmem_error err;
  vmem_stablehlo *m = len ? vmem_stablehlo_parse(text, len, NULL, &err) : NULL;
  if (!m) {
    if (!len)
      cli_error("explain", "--recompile %s: %s", path, CLI_EMPTY_FILE);
    else
      cli_file_error("explain", path, text, len, &err);
    free(text);
    return EXIT_BAD;
  }
  vmem_stablehlo_free(m);
  double timeout;
  vmem_compiler *c = cli_compiler_open("explain", req, &timeout);
  vmem_limit_inputs in = {.vmem_limit_bytes = -1};
  vmem_compile_result *res = c ? cli_compile_text("explain", c, req, timeout, text, len, t, &in) : NULL;
  free(text);
  if (!res) {
    vmem_compiler_close(c);
    return EXIT_BAD;
  }
  bool e1001 = res->scoped_oom && res->e1001_size.present && res->e1001_limit.present;
  const char *size = res->e1001_size.text, *limit = res->e1001_limit.text;
  /* Whether the compile gives the log's error again: the same printed size and limit. */
  int same = !log_size ? -1 : e1001 && !strcmp(size, log_size) && log_limit && !strcmp(limit, log_limit);
  if (root) {
    json_object_set_new(root, "recompiled",
                        json_pack("{s:s,s:s,s:s,s:s,s:o,s:f,s:o,s:o}", "module", path, "libtpu_version",
                                  vmem_compiler_version(c), "topology", res->topology, "status",
                                  vmem_compile_status_name(res->status), "error",
                                  *res->error_text ? json_string(res->error_text) : json_null(), "seconds",
                                  res->compile_seconds, "compiled_kernels", json_compiled_kernels(res),
                                  "reproduces_log", same < 0 ? json_null() : json_boolean(same)));
  } else {
    fprintf(CLI_OUT, "\nrecompiled %s with %s for %s: %s in %.2f s\n", path, vmem_compiler_version(c), res->topology,
            result_word(res), res->compile_seconds);
    if (*res->error_text)
      print_error(res, path);
    for (size_t i = 0; i < res->nkernels; i++)
      if (res->kernels[i].has_figure) {
        char b[48];
        fprintf(CLI_OUT, "  kernel %s: scoped %s\n", res->kernels[i].name,
                cli_bytes(b, sizeof b, res->kernels[i].scoped_bytes));
      }
    if (same > 0)
      fprintf(CLI_OUT, "  the same E1001 as the log's (%s against %s): the module reproduces it\n", log_size,
              log_limit);
    else if (same == 0)
      fprintf(CLI_OUT, "  not the log's E1001 (%s against %s): another limit, flags, target or libtpu version?\n",
              log_size, log_limit);
  }
  /* Compiled, or refused for memory, is an answer; anything else is not. */
  int rc = res->status == VMEM_COMPILE_OK || res->scoped_oom ? EXIT_OK : EXIT_BAD;
  if (rc == EXIT_BAD)
    cli_compile_failed("explain", res, path);
  vmem_compile_result_free(res);
  vmem_compiler_close(c);
  return rc;
}
