/*
 * buffers.c — what a module's buffers take, per memory space, and which
 * are the largest (vmem_hlo_module_buffers): the totals `check` prints,
 * decided here so that the CLI, its JSON and a C caller agree.
 */
#include <stdlib.h>
#include <string.h>

#include "program.h"

/* A shape laid out on the target, sized, by the IR's interned shape: a
 * large module has a million instructions and a few thousand shapes. */
typedef struct sized_entry {
  const vmem_shape *key;
  vmem_shape *laid; /* NULL: cannot be laid out or sized */
  uint64_t bytes;
} sized_entry;

typedef struct sizer {
  const vmem_target *t;
  const vmem_allocator *alloc;
  sized_entry *slots;
  size_t cap, n;
} sizer;

static sized_entry *slot(const sizer *z, const vmem_shape *s) {
  size_t j = ((uintptr_t)s >> 4) & (z->cap - 1);
  while (z->slots[j].key && z->slots[j].key != s)
    j = (j + 1) & (z->cap - 1);
  return &z->slots[j];
}

static bool grow(sizer *z) {
  sizer bigger = *z;
  bigger.cap = z->cap ? 2 * z->cap : 256;
  if (!(bigger.slots = vmem__alloc(z->alloc, bigger.cap * sizeof *bigger.slots)))
    return false;
  memset(bigger.slots, 0, bigger.cap * sizeof *bigger.slots);
  for (size_t i = 0; i < z->cap; i++)
    if (z->slots[i].key)
      *slot(&bigger, z->slots[i].key) = z->slots[i];
  vmem__free(z->alloc, z->slots);
  *z = bigger;
  return true;
}

/* The entry for s, laid out and sized on first sight; NULL when out of memory. */
static const sized_entry *sized(sizer *z, const vmem_shape *s, vmem_error *err) {
  if ((z->n + 1) * 2 > z->cap && !grow(z))
    return NULL;
  sized_entry *e = slot(z, s);
  if (e->key)
    return e;
  vmem_error local;
  vmem_shape *laid = vmem_shape_with_tpu_layout(s, z->t, z->alloc, &local);
  vmem_size size;
  if (!laid && local.code == VMEM_ERR_NOMEM) {
    *err = local;
    return NULL;
  }
  if (laid && vmem_shape_size(laid, &size, &local) != VMEM_OK) {
    vmem_shape_free(laid);
    laid = NULL;
  }
  *e = (sized_entry){s, laid, laid ? size.bytes : 0};
  z->n++;
  return e;
}

/* Each array leaf into the total of its own space (a tuple's leaves may
 * live in different spaces). */
static void add_leaves(const vmem_shape *s, vmem_module_buffers *out) {
  if (vmem_shape_is_tuple(s)) {
    for (size_t i = 0; i < vmem_shape_tuple_count(s); i++)
      add_leaves(vmem_shape_tuple_at(s, i), out);
    return;
  }
  vmem_size z;
  if (vmem_shape_size(s, &z, NULL) != VMEM_OK)
    return;
  int64_t sp = vmem_shape_memory_space(s);
  size_t j = 0;
  while (j < out->nspaces && out->spaces[j].memory_space != sp)
    j++;
  if (j == out->nspaces) {
    if (j == VMEM_MAX_SPACES)
      return;
    for (; j > 0 && out->spaces[j - 1].memory_space > sp; j--) /* kept in order of space */
      out->spaces[j] = out->spaces[j - 1];
    out->spaces[j] = (vmem_space_total){sp, 0, 0, 0};
    out->nspaces++;
  }
  out->spaces[j].buffers++;
  out->spaces[j].bytes += z.bytes;
  out->spaces[j].unpadded_bytes += z.unpadded_bytes;
}

static bool bigger(const vmem_buffer_ref *a, const vmem_buffer_ref *b) {
  if (a->bytes != b->bytes)
    return a->bytes > b->bytes;
  return vmem_hlo_instruction_id(a->instruction) < vmem_hlo_instruction_id(b->instruction);
}

/* Keeps the `top` largest in order, by insertion: top is a screenful. */
static void keep_largest(vmem_module_buffers *out, size_t top, vmem_buffer_ref r) {
  size_t j = out->nlargest < top ? out->nlargest++ : top;
  if (j == top && !bigger(&r, &out->largest[top - 1]))
    return;
  if (j == top)
    j = top - 1;
  for (; j > 0 && bigger(&r, &out->largest[j - 1]); j--)
    out->largest[j] = out->largest[j - 1];
  out->largest[j] = r;
}

vmem_status vmem_hlo_module_buffers(const vmem_hlo_module *m, const vmem_target *t, size_t top,
                                    vmem_module_buffers *out, const vmem_allocator *alloc, vmem_error *err) {
  if (!m || !t || !out) {
    err_set(err, VMEM_ERR_ARGUMENT, 0, "a module, a target and a result are needed");
    return VMEM_ERR_ARGUMENT;
  }
  err_clear(err);
  memset(out, 0, sizeof *out);
  if (alloc)
    out->alloc = *alloc;
  sizer z = {t, &out->alloc, NULL, 0, 0};
  if (top && !(out->largest = vmem__alloc(&out->alloc, top * sizeof *out->largest))) {
    err_set(err, VMEM_ERR_NOMEM, 0, "out of memory");
    return VMEM_ERR_NOMEM;
  }
  vmem_status st = VMEM_OK;
  vmem_error local;
  for (size_t c = 0; c < vmem_hlo_computation_count(m) && st == VMEM_OK; c++) {
    const vmem_hlo_computation *comp = vmem_hlo_computation_at(m, c);
    for (size_t i = 0; i < vmem_hlo_computation_instruction_count(comp); i++) {
      const vmem_hlo_instruction *in = vmem_hlo_computation_instruction_at(comp, i);
      if (!vmem_hlo_instruction_defines_buffer(in))
        continue;
      const sized_entry *e = sized(&z, vmem_hlo_instruction_shape(in), &local);
      if (!e) {
        err_set(err, VMEM_ERR_NOMEM, 0, "out of memory");
        st = VMEM_ERR_NOMEM;
        break;
      }
      if (!e->laid) {
        out->unsized++;
        continue;
      }
      add_leaves(e->laid, out);
      if (top)
        keep_largest(out, top, (vmem_buffer_ref){in, e->bytes});
    }
  }
  for (size_t i = 0; i < z.cap; i++)
    vmem_shape_free(z.slots[i].laid);
  vmem__free(&out->alloc, z.slots);
  if (st != VMEM_OK)
    vmem_module_buffers_free(out);
  return st;
}

void vmem_module_buffers_free(vmem_module_buffers *b) {
  if (!b)
    return;
  vmem__free(&b->alloc, b->largest);
  b->largest = NULL, b->nlargest = 0;
}
