/*
 * cmd_repro.c — `vmemscope repro`: one instruction of an HLO module as a
 * standalone module, for an XLA bug report (a scoped OOM in a standard HLO
 * op is likely the compiler's, and the report needs the failing op alone).
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char help[] =
    "usage: vmemscope repro MODULE.hlo --instruction NAME [-o REPRO.hlo] [--json]\n\n"
    "Writes a standalone HLO module holding the instruction NAME: the\n"
    "computations it calls (fusion bodies, reducers, while bodies, ...),\n"
    "parameters in place of its operands, and its shape, layouts,\n"
    "backend_config and metadata as written. The output parses again, and\n"
    "a Pallas custom call in it has the same kernel and footprint. To standard output\n"
    "without -o.\n\n"
    "example:\n"
    "  vmemscope repro dump/module_0042.after_optimizations.txt --instruction fusion.17 -o fusion17.hlo\n";

int cmd_repro(int argc, char **argv) {
  const char *path = NULL, *instr = NULL, *out = NULL;
  bool json = false;
  const cli_opt opts[] = {{"--instruction", &instr, NULL, NULL},
                          {"-o", &out, NULL, NULL},
                          {"--json", NULL, &json, NULL},
                          {NULL, NULL, NULL, NULL}};
  int scan = cli_scan("repro", argc, argv, opts, &path, 1, help, "give one HLO file");
  if (scan != CLI_GO)
    return scan;
  if (!path || !instr)
    return cli_usage_error("repro", "give an HLO module and --instruction NAME");
  size_t len;
  char *text = cli_read_file(path, &len);
  if (!text) {
    cli_open_error("repro", path);
    return EXIT_BAD;
  }
  vmem_error err;
  vmem_hlo_module *m = vmem_hlo_parse(text, len, NULL, &err);
  const vmem_hlo_instruction *in = m ? cli_kernel_instruction("repro", m, instr) : NULL;
  int rc = EXIT_BAD;
  if (!m) {
    cli_file_error("repro", path, text, len, &err);
  } else if (in) {
    size_t n = vmem_hlo_print_repro(in, NULL, 0, &err);
    char *buf = n != SIZE_MAX ? malloc(n + 1) : NULL;
    FILE *f = buf && out ? fopen(out, "wb") : json ? NULL : CLI_OUT;
    if (n == SIZE_MAX)
      cli_file_error("repro", path, text, len, &err);
    else if (!buf)
      cli_error("repro", "out of memory");
    else if (!f && out)
      cli_error("repro", "%s: cannot write", out);
    else {
      vmem_hlo_print_repro(in, buf, n + 1, &err);
      rc = !f || fwrite(buf, 1, n, f) == n ? EXIT_OK : EXIT_BAD;
      if (f && f != CLI_OUT && fclose(f) != 0)
        rc = EXIT_BAD;
      if (rc != EXIT_OK)
        cli_error("repro", "%s: write failed", out ? out : "standard output");
      else if (json)
        rc = cli_print_json(json_pack("{s:i,s:s,s:s,s:s%,s:o}", "schema_version", CLI_JSON_SCHEMA, "command", "repro",
                                      "instruction", instr, "module", buf, n, "written",
                                      out ? json_string(out) : json_null()));
    }
    free(buf);
  }
  vmem_hlo_free(m);
  free(text);
  return rc;
}
