/*
 * cmd_mlir_text.c — `vmemscope mlir-text`: a Mosaic kernel body, decoded
 * from MLIR bytecode, printed as MLIR text — what the compiler will
 * compile, readable. The body may be raw bytecode, base64, or anywhere in
 * a JSON backend_config, an HLO module or StableHLO text.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char help[] = "usage: vmemscope mlir-text FILE [--instruction NAME] [--json]\n\n"
                           "Decodes the Mosaic MLIR bytecode of Pallas kernels and prints it as MLIR\n"
                           "text. FILE is raw bytecode (\"ML\\xefR...\"), its base64 (\"TUzvUg...\"), a JSON\n"
                           "backend_config, an HLO module or StableHLO text: every body in it is\n"
                           "printed, each after a '// body N' line when there are several. With\n"
                           "--instruction, only the body of that custom call (an HLO instruction name;\n"
                           "in StableHLO the result number or the kernel_name).\n\n"
                           "The text keeps the serde's ops under their own names (stable_mosaic.\n"
                           "dropped), prints module, func.func, arith.constant, return and stores in\n"
                           "their custom form and the rest generically; locations are left out.\n\n"
                           "examples:\n"
                           "  vmemscope mlir-text module.hlo --instruction flash_attention_kernel.7\n"
                           "  vmemscope mlir-text jit_f.stablehlo.mlir | less\n";

/* Decodes one body and prints it (or, with json, appends {"text"} to
 * it); false after printing the error. */
static bool print_body(const char *path, const char *text, size_t len, const char *body, size_t n, bool raw,
                       json_t *json) {
  vmem_error err;
  size_t need = vmem_bytecode_text(body, n, NULL, 0, NULL, &err);
  char *out = need != SIZE_MAX ? malloc(need + 1) : NULL;
  if (out)
    vmem_bytecode_text(body, n, out, need + 1, NULL, &err);
  if (!out) {
    if (need != SIZE_MAX)
      cli_error("mlir-text", "out of memory");
    else if (raw)
      fprintf(CLI_ERR, "vmemscope mlir-text: error: %s: %s\n", path, err.message);
    else {
      err.offset += (size_t)(body - text); /* the library's offset is within the body */
      cli_file_error("mlir-text", path, text, len, &err);
    }
    return false;
  }
  if (json)
    json_array_append_new(json, json_pack("{s:s%}", "text", out, need));
  else
    fwrite(out, 1, need, CLI_OUT);
  free(out);
  return true;
}

/* The backend_config text of the named instruction, or NULL (printed). */
static const char *instruction_config(const char *path, const char *text, size_t len, const char *instr,
                                      vmem_hlo_module **m, vmem_stablehlo **sm, size_t *n) {
  vmem_error err;
  if (!strcmp(cli_detect_format(text, len), "stablehlo")) {
    if (!(*sm = vmem_stablehlo_parse(text, len, NULL, &err))) {
      cli_file_error("mlir-text", path, text, len, &err);
      return NULL;
    }
    size_t nl = strlen(instr);
    for (size_t i = 0; i < vmem_stablehlo_op_count(*sm); i++) {
      const vmem_stablehlo_op *op = vmem_stablehlo_op_at(*sm, i);
      bool named = (op->result.len == nl + 1 && !memcmp(op->result.ptr + 1, instr, nl)) ||
                   (op->kernel_name.len == nl && !memcmp(op->kernel_name.ptr, instr, nl));
      if (named && op->backend_config.len) {
        *n = op->backend_config.len;
        return op->backend_config.ptr;
      }
    }
    cli_error("mlir-text", "no custom call named '%s' with a backend_config", instr);
    return NULL;
  }
  if (!(*m = vmem_hlo_parse(text, len, NULL, &err))) {
    cli_file_error("mlir-text", path, text, len, &err);
    return NULL;
  }
  const vmem_hlo_instruction *in = cli_kernel_instruction("mlir-text", *m, instr);
  if (!in)
    return NULL;
  vmem_str cfg = vmem_hlo_instruction_attr(in, "backend_config");
  *n = cfg.len;
  return cfg.ptr;
}

/* Every body in the file (or in the named instruction's config), printed
 * or appended to json. */
static int scan_bodies(const char *path, const char *text, size_t len, const char *instr, json_t *json) {
  int rc = EXIT_OK;
  bool raw = len >= 4 && !memcmp(text, "ML\xefR", 4);
  if (raw || (!instr && cli_whole_body(text, len)))
    return print_body(path, text, len, text, len, raw, json) ? EXIT_OK : EXIT_BAD;
  vmem_hlo_module *m = NULL;
  vmem_stablehlo *sm = NULL;
  size_t from = 0, end = len, at, n, count = 0;
  const char *scope = text;
  if (instr) {
    scope = instruction_config(path, text, len, instr, &m, &sm, &end);
    if (!scope)
      rc = EXIT_BAD;
  }
  while (rc == EXIT_OK && cli_find_body(scope, end, from, &at, &n)) {
    size_t more, more_n;
    bool several = count > 0 || cli_find_body(scope, end, at + n, &more, &more_n);
    if (several && !json)
      fprintf(CLI_OUT, "%s// body %zu\n", count ? "\n" : "", count + 1);
    /* A body inside an unescaped StableHLO config is not in the file's
     * text: its errors then carry no line. */
    bool in_file = scope >= text && scope < text + len;
    if (!print_body(path, in_file ? text : scope, in_file ? len : end, scope + at, n, false, json))
      rc = EXIT_BAD;
    count++;
    from = at + n;
  }
  if (rc == EXIT_OK && count == 0) {
    cli_error("mlir-text", "%s: no Mosaic kernel body (MLIR bytecode, base64 'TUzvUg...') found", path);
    rc = EXIT_BAD;
  }
  vmem_hlo_free(m);
  vmem_stablehlo_free(sm);
  return rc;
}

int cmd_mlir_text(int argc, char **argv) {
  const char *path = NULL, *instr = NULL;
  bool json = false;
  const cli_opt opts[] = {
      {"--instruction", &instr, NULL, NULL}, {"--json", NULL, &json, NULL}, {NULL, NULL, NULL, NULL}};
  int scan = cli_scan("mlir-text", argc, argv, opts, &path, 1, help, "give one file");
  if (scan != CLI_GO)
    return scan;
  if (!path)
    return cli_usage_error("mlir-text", "give a file holding a Mosaic kernel body");
  size_t len;
  char *text = cli_read_file(path, &len);
  if (!text) {
    cli_open_error("mlir-text", path);
    return EXIT_BAD;
  }
  json_t *bodies = json ? json_array() : NULL;
  int rc = scan_bodies(path, text, len, instr, bodies);
  free(text);
  if (json && rc == EXIT_OK) {
    json_t *root = cli_json_root("mlir-text");
    json_object_set_new(root, "bodies", bodies);
    return cli_print_json(root);
  }
  json_decref(bodies);
  return rc;
}
