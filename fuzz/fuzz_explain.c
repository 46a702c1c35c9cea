/* libFuzzer target for the log reader behind explain: whatever the bytes,
 * it returns a report; every error has a kind, and each printed size is
 * an ordered interval. */
#include <stdlib.h>

#include "vmemscope.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_printed(const vmem_printed *p) {
  if (p->present && p->lo > p->hi)
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  vmem_error err;
  vmem_log_report *r = vmem_explain((const char *)data, size, NULL, NULL, &err);
  if (!r)
    abort(); /* only out of memory may fail, and libFuzzer's limit is far */
  for (size_t i = 0; i < vmem_log_error_count(r); i++) {
    const vmem_log_error *e = vmem_log_error_at(r, i);
    if ((unsigned)e->kind > VMEM_OOM_EMITTER_ABORT || e->offset > size || e->count < 1)
      abort();
    if (e->forms >> VMEM_FORM_COUNT || e->derived > 7 || ((e->derived & VMEM_DERIVED_SIZE) && !e->size.present) ||
        ((e->derived & VMEM_DERIVED_EXCESS) && !e->excess.present))
      abort(); /* forms and derived figures name only what exists */
    check_printed(&e->size);
    check_printed(&e->limit);
    check_printed(&e->used);
    for (size_t k = 0; k < e->nallocs; k++)
      check_printed(&e->allocs[k].size);
  }
  vmem_log_report_free(r);
  return 0;
}
