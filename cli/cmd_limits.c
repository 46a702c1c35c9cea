/*
 * cmd_limits.c — `vmemscope limits [--target T] [--flags "..."]
 *                 [--vmem-limit-bytes N] [--json]`
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char help[] =
    "usage: vmemscope limits [--target T] [--flags \"...\"] [--vmem-limit-bytes N] [--json]\n\n"
    "The scoped VMEM limit in force: the generation's default, then\n"
    "--xla_tpu_scoped_vmem_limit_kib from LIBTPU_INIT_ARGS (or --flags, which wins;\n"
    "XLA_FLAGS is read and reported but libtpu does not take the flag from there),\n"
    "then a kernel's vmem_limit_bytes. Warns about values above physical VMEM,\n"
    "duplicates and misplaced flags.\n\n"
    "options:\n"
    "  --target T              TPU generation (default $VMEMSCOPE_TARGET or v5e)\n"
    "  --flags \"...\"           libtpu flags to apply, as in LIBTPU_INIT_ARGS\n"
    "  --vmem-limit-bytes N    a kernel's vmem_limit_bytes request\n"
    "  --no-env                ignore LIBTPU_INIT_ARGS and XLA_FLAGS\n"
    "  --json                  print JSON (all sizes in bytes)\n\n"
    "examples:\n"
    "  vmemscope limits --target v6e\n"
    "  vmemscope limits --flags \"--xla_tpu_scoped_vmem_limit_kib=98304\" --vmem-limit-bytes 134217728\n";

static json_t *json_limits(const vmem_target *t, const vmem_limits *l) {
  json_t *o = cli_json_root("limits"), *w = json_array();
  json_object_set_new(o, "target", json_string(vmem_target_name(t)));
  json_object_set_new(o, "physical_bytes", json_integer((json_int_t)l->physical_bytes));
  json_object_set_new(o, "default_bytes", json_integer((json_int_t)l->default_bytes));
  json_object_set_new(o, "flag_bytes", l->has_flag ? json_integer((json_int_t)l->flag_bytes) : json_null());
  json_object_set_new(o, "flag_origin", l->has_flag ? json_string(l->flag_origin) : json_null());
  json_object_set_new(o, "flag_applied", json_boolean(l->has_flag && l->flag_applied));
  json_object_set_new(o, "kernel_bytes", l->has_kernel ? json_integer((json_int_t)l->kernel_bytes) : json_null());
  json_object_set_new(o, "effective_bytes", json_integer((json_int_t)l->effective_bytes));
  json_object_set_new(o, "origin", json_string(vmem_limit_origin_name(l->origin)));
  for (size_t i = 0; i < l->warning_count; i++) {
    json_t *e = json_object();
    json_object_set_new(e, "code", json_string(vmem_limit_warning_name(l->warnings[i].code)));
    json_object_set_new(e, "message", json_string(l->warnings[i].message));
    json_array_append_new(w, e);
  }
  json_object_set_new(o, "warnings", w);
  return o;
}

static void print_limits(const vmem_target *t, const vmem_limits *l) {
  char b[64];
  const vmem_fact *def = vmem_target_fact(t, VMEM_FACT_SCOPED_DEFAULT_BYTES);
  fprintf(CLI_OUT, "target            %s (%s)\n", vmem_target_name(t), vmem_target_device_kind(t));
  fprintf(CLI_OUT, "physical VMEM     %s\n", cli_bytes(b, sizeof b, l->physical_bytes));
  fprintf(CLI_OUT, "default limit     %s  %s: %s\n", cli_bytes(b, sizeof b, l->default_bytes),
          def ? vmem_provenance_name(def->provenance) : "unknown", def ? def->source : "");
  if (l->has_flag)
    fprintf(CLI_OUT, "flag              %s from %s%s\n", cli_bytes(b, sizeof b, l->flag_bytes), l->flag_origin,
            l->flag_applied ? "" : " (not applied)");
  else
    fprintf(CLI_OUT, "flag              not set\n");
  if (l->has_kernel)
    fprintf(CLI_OUT, "kernel request    %s (vmem_limit_bytes)\n", cli_bytes(b, sizeof b, l->kernel_bytes));
  else
    fprintf(CLI_OUT, "kernel request    none\n");
  fprintf(CLI_OUT, "effective limit   %s  from the %s\n", cli_bytes(b, sizeof b, l->effective_bytes),
          vmem_limit_origin_name(l->origin));
  for (size_t i = 0; i < l->warning_count; i++)
    fprintf(CLI_OUT, "warning: %s\n", l->warnings[i].message);
}

static int report_error(const vmem_limit_inputs *in, const vmem_error *err) {
  /* The message names the source; show that string with a caret. */
  const char *src = strstr(err->message, "LIBTPU_INIT_ARGS") == err->message ? in->libtpu_init_args
                    : strstr(err->message, "XLA_FLAGS") == err->message      ? in->xla_flags
                                                                             : in->flags;
  const char *name = src == in->libtpu_init_args ? "LIBTPU_INIT_ARGS" : src == in->xla_flags ? "XLA_FLAGS" : "--flags";
  vmem_error shown = *err;
  size_t n = strlen(name);
  if (!strncmp(shown.message, name, n) && !strncmp(shown.message + n, ": ", 2))
    memmove(shown.message, shown.message + n + 2, strlen(shown.message + n + 2) + 1);
  char what[32];
  snprintf(what, sizeof what, "%s,", name);
  cli_error_at("limits", what, src ? src : "", &shown);
  return EXIT_BAD;
}

int cmd_limits(int argc, char **argv) {
  vmem_limit_inputs in = {.vmem_limit_bytes = -1};
  const char *target = NULL, *limit = NULL;
  bool json = false, no_env = false;
  const cli_opt opts[] = {
      {"--target", &target, NULL, NULL}, {"--flags", &in.flags, NULL, NULL}, {"--vmem-limit-bytes", &limit, NULL, NULL},
      {"--no-env", NULL, &no_env, NULL}, {"--json", NULL, &json, NULL},      {NULL, NULL, NULL, NULL}};
  int scan = cli_scan("limits", argc, argv, opts, NULL, 0, help, "it takes only options");
  if (scan != CLI_GO)
    return scan;
  if (limit && !cli_parse_bytes(limit, &in.vmem_limit_bytes))
    return cli_usage_error("limits", "--vmem-limit-bytes needs a whole number of bytes, got '%s'", limit);
  if (!no_env)
    cli_env_flags(&in);
  const vmem_target *t = cli_target("limits", target);
  if (!t)
    return EXIT_BAD;
  vmem_limits l;
  vmem_error err;
  if (vmem_limits_resolve(t, &in, &l, &err) != VMEM_OK)
    return report_error(&in, &err);
  if (json)
    return cli_print_json(json_limits(t, &l));
  print_limits(t, &l);
  return EXIT_OK;
}
