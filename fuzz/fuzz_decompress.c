/* libFuzzer target for explain's compressed input (cli/cli_compress.c):
 * whatever the bytes — a gzip or zstd header on garbage, a cut stream —
 * the decoder returns plain, decompressed text that ends in a NUL, or a
 * damaged-stream verdict with its reason, and never reads past its input.
 * What it decompresses goes through the log reader too. */
#include <stdlib.h>
#include <string.h>

#include "../cli/cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = malloc(size ? size : 1);
  if (!text)
    return 0;
  memcpy(text, data, size);
  size_t len = size;
  char why[256];
  int kind = cli_decompress(&text, &len, why, sizeof why);
  if (kind == CLI_BAD_STREAM && !why[0])
    abort(); /* a refusal always says why */
  if ((kind == CLI_GZIP || kind == CLI_ZSTD) && text[len] != '\0')
    abort();
  if (kind == CLI_PLAIN && (len != size || memcmp(text, data, size)))
    abort(); /* plain input is left as it is */
  if (kind == CLI_GZIP || kind == CLI_ZSTD) {
    vmem_error err;
    vmem_log_report *r = vmem_explain(text, len, NULL, NULL, &err);
    vmem_log_report_free(r);
  }
  free(text);
  return 0;
}
