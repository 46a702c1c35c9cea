/*
 * cli_kernel.c — where the CLI finds a kernel: a JSON spec, Mosaic MLIR
 * text, Mosaic bytecode (raw, base64, or inside a backend_config), or a
 * tpu_custom_call of an HLO module (named by --instruction, or the only
 * one). Shared by check, fit and mlir-text.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static bool is_b64(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/' || c == '=';
}

bool cli_find_body(const char *text, size_t len, size_t from, size_t *start, size_t *n) {
  for (size_t i = from; i + 6 <= len; i++)
    if (text[i] == 'T' && !memcmp(text + i, "TUzvUg", 6) &&
        (i == 0 || !is_b64(text[i - 1]) || (i >= 3 && !memcmp(text + i - 3, "\\22", 3)))) {
      /* StableHLO escapes the config's quotes as \22: "body": \22TUzvUg... */
      size_t e = i;
      while (e < len && is_b64(text[e]))
        e++;
      *start = i;
      *n = e - i;
      return true;
    }
  return false;
}

bool cli_whole_body(const char *text, size_t len) {
  size_t i = 0;
  while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r'))
    i++;
  return len - i >= 6 && !memcmp(text + i, "TUzvUg", 6);
}

const char *cli_detect_format(const char *text, size_t len) {
  size_t i = 0;
  if (len >= 4 && !memcmp(text, "ML\xefR", 4))
    return "bytecode";
  if (memchr(text, '\0', len))
    return "hlo"; /* binary: the HLO reader says so, with the position */
  char head[8193];
  size_t n = len < sizeof head - 1 ? len : sizeof head - 1;
  memcpy(head, text, n);
  head[n] = '\0';
  while (i < n && (head[i] == ' ' || head[i] == '\t' || head[i] == '\n' || head[i] == '\r'))
    i++;
  if (!strncmp(head + i, "TUzvUg", 6))
    return "bytecode";
  const char *hlo = strstr(head + i, "HloModule"), *fn = strstr(head + i, "func.func");
  if (i < n && head[i] == '{')
    return strstr(head, "custom_call_config") ? "bytecode" : "spec";
  if (!hlo && (strstr(head, "stablehlo.") || strstr(head, "mhlo.")))
    return "stablehlo";
  if (fn && (!hlo || fn < hlo))
    return "mlir";
  return "hlo";
}

static bool is_body_call(const vmem_hlo_instruction *in) {
  vmem_hlo_scoped s;
  vmem_error err;
  return vmem_hlo_instruction_scoped(in, &s, &err) == VMEM_OK && s.has_kernel_body;
}

const vmem_hlo_instruction *cli_kernel_instruction(const char *cmd, const vmem_hlo_module *m, const char *name) {
  const vmem_hlo_instruction *found = NULL;
  size_t count = 0;
  for (size_t c = 0; c < vmem_hlo_computation_count(m); c++) {
    const vmem_hlo_computation *comp = vmem_hlo_computation_at(m, c);
    for (size_t i = 0; i < vmem_hlo_computation_instruction_count(comp); i++) {
      const vmem_hlo_instruction *in = vmem_hlo_computation_instruction_at(comp, i);
      vmem_str nm = vmem_hlo_instruction_name(in);
      if (name && strlen(name) == nm.len && !memcmp(name, nm.ptr, nm.len))
        return in;
      if (!name && is_body_call(in) && count++ == 0)
        found = in;
    }
  }
  if (name)
    cli_error(cmd, "no instruction named '%s' in the module", name);
  else if (count == 0)
    cli_error(cmd, "the module has no custom call with a Mosaic kernel body");
  else if (count > 1)
    cli_error(cmd, "the module has %zu Pallas kernels: name one with --instruction (check lists them)", count);
  return count == 1 ? found : NULL;
}

static vmem_kernel *from_hlo(const char *cmd, const char *path, const char *text, size_t len, const char *instr) {
  vmem_error err;
  vmem_hlo_module *m = vmem_hlo_parse(text, len, NULL, &err);
  if (!m) {
    cli_file_error(cmd, path, text, len, &err);
    return NULL;
  }
  const vmem_hlo_instruction *in = cli_kernel_instruction(cmd, m, instr);
  vmem_kernel *k = in ? vmem_hlo_instruction_kernel(in, NULL, &err) : NULL;
  if (in && !k)
    cli_file_error(cmd, path, text, len, &err);
  vmem_hlo_free(m);
  return k;
}

vmem_kernel *cli_load_kernel(const char *cmd, const char *path, const char *format, const char *instr,
                             const char **used) {
  size_t len;
  char *text = cli_read_file(path, &len);
  if (!text) {
    cli_open_error(cmd, path);
    return NULL;
  }
  if (cli_blank(text, len)) {
    cli_error(cmd, "%s: %s", path, CLI_EMPTY_FILE);
    free(text);
    return NULL;
  }
  if (!format)
    format = cli_detect_format(text, len);
  if (used)
    *used = format;
  vmem_error err;
  vmem_kernel *k = NULL;
  size_t at = 0, n = len;
  if (instr && strcmp(format, "hlo") != 0 && strcmp(format, "stablehlo") != 0) {
    cli_error(cmd, "--instruction names a custom call of an HLO module, and %s is %s", path, format);
  } else if (!strcmp(format, "hlo")) {
    k = from_hlo(cmd, path, text, len, instr);
  } else if (!strcmp(format, "stablehlo")) {
    k = cli_stablehlo_kernel(cmd, path, text, len, instr);
  } else if (!strcmp(format, "bytecode")) {
    bool raw = len >= 4 && !memcmp(text, "ML\xefR", 4), whole = raw || cli_whole_body(text, len);
    if (whole || cli_find_body(text, len, 0, &at, &n))
      k = vmem_kernel_from_bytecode(text + at, n, NULL, &err);
    else
      snprintf(err.message, sizeof err.message, "no Mosaic bytecode (base64 'TUzvUg...') in the file");
    if (!k && raw) /* binary: no line to show; the message names the byte */
      fprintf(CLI_ERR, "vmemscope %s: error: %s: %s\n", cli_who(cmd), path, err.message);
    else if (!k) {
      err.offset += at; /* the library's offset is within the body */
      cli_file_error(cmd, path, text, len, &err);
    }
  } else {
    k = !strcmp(format, "spec") ? vmem_kernel_from_spec(text, len, NULL, &err)
                                : vmem_kernel_from_mlir(text, len, NULL, &err);
    if (!k && (err.offset || !strcmp(format, "mlir")))
      cli_file_error(cmd, path, text, len, &err);
    else if (!k)
      fprintf(CLI_ERR, "vmemscope %s: error: %s: %s\n", cli_who(cmd), path, err.message);
  }
  free(text);
  return k;
}
