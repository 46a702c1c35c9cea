/* libFuzzer target for the HLO reader's two halves. The first two bytes
 * pick a line; the rest is read with the text cut there (a second thread
 * reads from the cut) and in one pass. Beyond "no crash": both give the
 * same module — printout, instruction ids, callers, fusion marks — or the
 * same error (code, offset, message). Then the module's backend configs
 * are decoded in two halves on two threads and in one pass: the same
 * figures, or the same first error. */
#include <stdlib.h>
#include <string.h>

#include "fuzz_hlo.h"
#include "vmemscope.h"
#include "../src/hlo/hlo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The start of line `k` (counted modulo the lines there are). */
static size_t line_start(const char *s, size_t n, unsigned k) {
  size_t lines = 1;
  for (size_t i = 0; i < n; i++)
    lines += s[i] == '\n';
  k %= (unsigned)lines;
  for (size_t i = 0; i < n && k; i++)
    if (s[i] == '\n' && --k == 0)
      return i + 1;
  return 0;
}

static void same_configs(const vmem_hlo_module *m) {
  size_t n = m->total_instrs ? m->total_instrs : 1;
  vmem_hlo_scoped *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
  if (!x || !y)
    abort();
  vmem_error one, two;
  vmem_status a = hlo_scoped_all(m, x, SIZE_MAX, &one), b = hlo_scoped_all(m, y, 0, &two);
  if (a != b || one.code != two.code ||
      (a != VMEM_OK && (one.offset != two.offset || strcmp(one.message, two.message))))
    abort();
  for (size_t i = 0; a == VMEM_OK && i < m->total_instrs; i++)
    if (x[i].limit_bytes != y[i].limit_bytes || x[i].used_bytes != y[i].used_bytes ||
        x[i].internal_scratch_bytes != y[i].internal_scratch_bytes || x[i].has_kernel_body != y[i].has_kernel_body ||
        x[i].config_is_json != y[i].config_is_json)
      abort();
  free(x);
  free(y);
}

static void same(const vmem_hlo_module *a, const vmem_hlo_module *b) {
  if (a->ncomps != b->ncomps || a->total_instrs != b->total_instrs || a->entry->index != b->entry->index)
    abort();
  for (uint32_t ci = 0; ci < a->ncomps; ci++) {
    const vmem_hlo_computation *x = a->comps[ci], *y = b->comps[ci];
    if (y->index != ci || y->module != b || x->is_fusion != y->is_fusion || x->ncallers != y->ncallers ||
        x->ninstrs != y->ninstrs || x->root->id != y->root->id)
      abort();
    for (uint32_t k = 0; k < x->ncallers; k++)
      if (x->callers[k]->id != y->callers[k]->id)
        abort();
    for (uint32_t k = 0; k < x->ninstrs; k++)
      if (x->instrs[k]->id != y->instrs[k]->id || y->instrs[k]->parent != y)
        abort();
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 2)
    return 0;
  const char *text = (const char *)data + 2;
  size_t len = size - 2;
  size_t cut = line_start(text, len, (unsigned)data[0] | (unsigned)data[1] << 8);
  vmem_error one, two;
  vmem_hlo_module *a = hlo_parse_cut(text, len, HLO_CUT_NONE, &one);
  vmem_hlo_module *b = hlo_parse_cut(text, len, cut ? cut : HLO_CUT_NONE, &two);
  if (!a || !b) {
    if (a || b || one.code != two.code || one.offset != two.offset || strcmp(one.message, two.message))
      abort();
    return 0;
  }
  same(a, b);
  char *x = print(a), *y = print(b);
  if (!x || !y || strcmp(x, y))
    abort();
  free(x);
  free(y);
  same_configs(b);
  vmem_hlo_free(a);
  vmem_hlo_free(b);
  return 0;
}
