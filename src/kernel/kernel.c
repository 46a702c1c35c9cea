/*
 * kernel.c — the kernel model's constructor and public accessors.
 */
#include <string.h>

#include "kernel.h"

vmem_kernel *kernel_new(const vmem_allocator *alloc) {
  arena a;
  arena_init(&a, alloc);
  vmem_kernel *k = arena_calloc(&a, 1, sizeof *k);
  if (!k) {
    arena_destroy(&a);
    return NULL;
  }
  k->a = a;
  k->vmem_limit = k->internal_scratch = -1;
  k->flops = -1;
  for (size_t i = 0; i < VMEM_KERNEL_MAX_RANK; i++)
    k->grid_param[i] = -1;
  k->name = "kernel";
  return k;
}

vmem_shape *kernel_shape(vmem_kernel *k, vmem_dtype t, const int64_t *dims, size_t rank) {
  vmem_shape *s = arena_calloc(&k->a, 1, sizeof *s);
  if (!s)
    return NULL;
  s->dtype = t;
  s->rank = rank;
  s->dims = arena_alloc(&k->a, (rank ? rank : 1) * sizeof *s->dims);
  s->dyn = arena_calloc(&k->a, rank ? rank : 1, 1);
  s->dim_offset = arena_calloc(&k->a, rank ? rank : 1, sizeof *s->dim_offset);
  if (!s->dims || !s->dyn || !s->dim_offset)
    return NULL;
  memcpy(s->dims, dims, rank * sizeof *dims);
  s->lay.tail_align = 1;
  s->lay.index_type = s->lay.pointer_type = -1;
  return s;
}

void vmem_kernel_free(vmem_kernel *k) {
  if (!k)
    return;
  arena a = k->a;
  arena_destroy(&a);
}

const char *vmem_kernel_name(const vmem_kernel *k) { return k->name; }
size_t vmem_kernel_grid_rank(const vmem_kernel *k) { return k->grid_rank; }
int64_t vmem_kernel_grid_bound(const vmem_kernel *k, size_t axis) {
  return axis < k->grid_rank ? k->grid[axis] : 0;
}
const char *vmem_kernel_grid_axis_name(const vmem_kernel *k, size_t axis) {
  static const char *const names[VMEM_KERNEL_MAX_RANK] = {"g0", "g1", "g2",  "g3",  "g4",  "g5",  "g6",  "g7",
                                                          "g8", "g9", "g10", "g11", "g12", "g13", "g14", "g15"};
  if (axis >= k->grid_rank)
    return "";
  return k->grid_axis_name[axis] ? k->grid_axis_name[axis] : names[axis];
}

const char *vmem_kernel_dimension_semantics(const vmem_kernel *k, size_t axis) {
  return axis < k->grid_rank && k->semantics[axis] ? k->semantics[axis] : "";
}
size_t vmem_kernel_operand_count(const vmem_kernel *k) { return k->nops; }
const vmem_operand *vmem_kernel_operand(const vmem_kernel *k, size_t i) {
  return i < k->nops ? &k->ops[i].pub : NULL;
}
int64_t vmem_kernel_vmem_limit_bytes(const vmem_kernel *k) { return k->vmem_limit; }
int64_t vmem_kernel_internal_scratch_bytes(const vmem_kernel *k) { return k->internal_scratch; }
const vmem_shape *vmem_kernel_result_shape(const vmem_kernel *k) { return k->result; }
bool vmem_kernel_roles_known(const vmem_kernel *k) { return k->roles_inferred; }
