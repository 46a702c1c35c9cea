/*
 * cmd_stablehlo.c — `vmemscope check` on StableHLO text: the ops of each
 * func listed (StableHLO comes before layout assignment and fusion, so they
 * are not sized), and every tpu_custom_call's kernel checked.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static bool is_tpu_call(const vmem_stablehlo_op *op) {
  return op->target.len == 15 && !memcmp(op->target.ptr, "tpu_custom_call", 15);
}

static vmem_stablehlo *open_stablehlo(const char *cmd, const char *path, char **text, size_t *len_out) {
  size_t len = 0;
  vmem_error err;
  *len_out = 0;
  if (!(*text = cli_read_file(path, &len))) {
    cli_open_error(cmd, path);
    return NULL;
  }
  cli_progress(path, len, "parsing");
  vmem_stablehlo *m = vmem_stablehlo_parse(*text, len, NULL, &err);
  cli_progress_done();
  if (!m) {
    cli_file_error(cmd, path, *text, len, &err);
    free(*text);
  }
  *len_out = len;
  return m;
}

/* The op's name for --instruction: its result with or without '%' (as the
 * JSON's "result" gives it), or kernel_name. */
static bool op_named(const vmem_stablehlo_op *op, const char *name) {
  if (name[0] == '%')
    name++;
  size_t n = strlen(name);
  vmem_str r = op->result;
  bool by_result = r.len == n + 1 && !memcmp(r.ptr + 1, name, n);
  return by_result || (op->kernel_name.len == n && !memcmp(op->kernel_name.ptr, name, n));
}

vmem_kernel *cli_stablehlo_kernel(const char *cmd, const char *path, const char *text, size_t len, const char *instr) {
  vmem_error err;
  vmem_stablehlo *m = vmem_stablehlo_parse(text, len, NULL, &err);
  if (!m) {
    cli_file_error(cmd, path, text, len, &err);
    return NULL;
  }
  size_t found = SIZE_MAX, count = 0;
  for (size_t i = 0; i < vmem_stablehlo_op_count(m); i++) {
    const vmem_stablehlo_op *op = vmem_stablehlo_op_at(m, i);
    if (is_tpu_call(op) && (!instr || op_named(op, instr)) && count++ == 0)
      found = i;
  }
  vmem_kernel *k = NULL;
  if (count == 0)
    cli_error(cmd,
              instr ? "no tpu_custom_call named '%s' (its result, %%0 or 0, or its kernel_name)"
                    : "no tpu_custom_call in the StableHLO text%s",
              instr ? instr : "");
  else if (count > 1)
    cli_error(cmd, "%zu tpu_custom_calls match: name one with --instruction (check lists them)", count);
  else if (!(k = vmem_stablehlo_op_kernel(m, found, NULL, &err)))
    cli_file_error(cmd, path, text, len, &err);
  vmem_stablehlo_free(m);
  return k;
}

static json_t *json_op(const vmem_stablehlo_op *op) {
  return json_pack("{s:s%,s:s%,s:s%}", "func", op->func.ptr, op->func.len, "result", op->result.ptr, op->result.len,
                   "opcode", op->opcode.ptr, op->opcode.len);
}

int check_stablehlo(const char *path, const vmem_target *t, const vmem_limit_inputs *in, const vmem_plan_options *opt,
                    bool json, const cli_compile_req *compile) {
  char *text;
  size_t len;
  double start = cli_clock();
  vmem_stablehlo *m = open_stablehlo("check", path, &text, &len);
  if (!m)
    return EXIT_BAD;
  size_t n = vmem_stablehlo_op_count(m), kernels = 0;
  /* The model's side of each kernel, for --compile to set beside the
   * compiler's; the configs hold the bodies it pairs by. */
  cli_model_kernel *mk = compile ? calloc(n + 1, sizeof *mk) : NULL;
  json_t **configs = compile ? calloc(n + 1, sizeof *configs) : NULL;
  if (compile && (!mk || !configs)) {
    free(mk);
    free(configs);
    vmem_stablehlo_free(m);
    free(text);
    cli_error("check", "out of memory");
    return EXIT_BAD;
  }
  int worst = 0;
  bool bad = false;
  json_t *root = json ? cli_json_root("check") : NULL, *ops = json_array();
  vmem_str name = vmem_stablehlo_name(m);
  if (!json)
    fprintf(CLI_OUT,
            "StableHLO module %.*s: %zu ops; target %s\n(before layout assignment and fusion: ops are listed, "
            "not sized; each tpu_custom_call's kernel is checked)\n",
            (int)(name.len ? name.len : 1), name.len ? name.ptr : "-", n, vmem_target_name(t));
  vmem_str func = {"", 0};
  for (size_t i = 0; i < n; i++) {
    const vmem_stablehlo_op *op = vmem_stablehlo_op_at(m, i);
    json_t *o = json ? json_op(op) : NULL;
    if (!json && (op->func.len != func.len || memcmp(op->func.ptr, func.ptr, func.len))) {
      func = op->func;
      fprintf(CLI_OUT, "\nfunc @%.*s\n", (int)func.len, func.ptr);
    }
    if (!json)
      fprintf(CLI_OUT, "  %-8.*s %.*s%s%.*s\n", (int)op->result.len, op->result.ptr, (int)op->opcode.len,
              op->opcode.ptr, op->target.len ? " @" : "", (int)op->target.len, op->target.ptr);
    if (is_tpu_call(op)) {
      vmem_error err;
      vmem_kernel *k = vmem_stablehlo_op_kernel(m, i, NULL, &err);
      cli_model_kernel *me = mk ? &mk[kernels] : NULL;
      if (me) {
        me->name = k ? cli_strdup(vmem_kernel_name(k)) : cli_strdup("?");
        cli_config_body(op->backend_config.ptr, op->backend_config.len, &me->body, &me->body_len, &configs[kernels]);
      }
      kernels++;
      if (!k) {
        bad = true;
        if (o)
          json_object_set_new(o, "kernel", json_pack("{s:s}", "error", err.message));
        else
          cli_file_error("check", path, text, len, &err);
      } else {
        json_t *kj = NULL;
        int v = kernel_brief(k, t, in, opt, "           ", json ? &kj : NULL, me ? &me->v : NULL);
        if (me)
          me->sized = v >= 0;
        worst = v > worst ? v : worst;
        if (o)
          json_object_set_new(o, "kernel", kj);
        vmem_kernel_free(k);
      }
    }
    if (o)
      json_array_append_new(ops, o);
  }
  int rc = bad ? EXIT_BAD : worst == 2 ? EXIT_OOM : EXIT_OK;
  if (json) {
    json_object_set_new(root, "module", json_stringn(name.ptr, name.len));
    json_object_set_new(root, "format", json_string("stablehlo"));
    json_object_set_new(root, "target", json_string(vmem_target_name(t)));
    json_object_set_new(root, "ops", ops);
  } else {
    json_decref(ops);
    fprintf(CLI_OUT, "\n%zu tpu_custom_call kernel%s checked%s\n", kernels, kernels == 1 ? "" : "s",
            kernels && !compile
                ? "; vmemscope check FILE --instruction N (the result %N, or the kernel_name) for one in full"
                : "");
  }
  /* With --compile the compiler's verdict stands: its exit status, unless
   * the module could not even be read. */
  if (compile && !bad)
    rc = cli_compile_report("check", compile, path, text, len, t, in, mk, kernels, cli_clock() - start, root);
  if (json)
    cli_print_json(root);
  for (size_t i = 0; mk && i < kernels; i++) {
    free((char *)(uintptr_t)mk[i].name);
    json_decref(configs[i]);
  }
  free(mk);
  free(configs);
  vmem_stablehlo_free(m);
  free(text);
  return rc;
}
