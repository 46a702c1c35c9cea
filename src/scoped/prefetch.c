/*
 * prefetch.c — which kernel inputs the compiler copies whole into VMEM
 * before the kernel, and which of those the kernel reads in place: one
 * rule, for the planner (footprint.c) and fit's template alike.
 *
 * 7x (VMEM_FACT_PREFETCHES_INPUTS; libtpu 0.0.42.1, the oracle's records
 * and probes, docs/fidelity.md "7x"): XLA copies the kernel's inputs — the
 * program's entry parameters when the kernel is compiled alone — into S(1)
 * with copy-start/copy-done, in operand order, each while the copies fit a
 * budget of physical VMEM less the scoped limit less
 * VMEM_FACT_PREFETCH_RESERVE_BYTES (limits of 16, 32, 40 and 48 MiB copy
 * inputs of 38, 22, 14 and 6 MiB, not 40, 23, 16 and 10). A copied input
 * whose block is one contiguous run of it is read in place, with no window;
 * one whose block is a tile keeps its windows. Elsewhere the input is taken
 * for an entry parameter, which one inside a larger program may not be.
 *
 * Every target: where the array is laid out (a compiled module), its S(1)
 * says it is in VMEM, for an input or an output, budget aside. XLA's
 * memory-space assignment puts small values there on v5e and v6e too (paged
 * attention's f32 q and its output, libtpu 0.0.42.1), and the kernel then
 * reads or writes a contiguous block of them in place: on v6e the compiler's
 * figure is the windows of the others alone (docs/fidelity.md).
 */
#include "scoped.h"

/* A block is one contiguous run of its array when, past its leading dims of
 * one, only its first dim may be cut short and every later dim is whole:
 * (1, 1, 128, 128) of (1, 2, 4096, 128) is one run of 128 rows; (2, 128, 128)
 * of (2, 4096, 128) is two runs. */
bool scoped_contiguous(const int64_t *block, const int64_t *array, size_t n) {
  size_t d = 0;
  while (d < n && block[d] == 1)
    d++;
  for (d++; d < n; d++)
    if (block[d] != array[d])
      return false;
  return true;
}

uint64_t scoped_limit(const vmem_kernel *k, const vmem_target *t, const vmem_plan_options *opt) {
  if (opt && opt->limit_bytes)
    return opt->limit_bytes;
  return k->vmem_limit > 0 ? (uint64_t)k->vmem_limit : vmem_target_u64(t, VMEM_FACT_SCOPED_DEFAULT_BYTES);
}

void scoped_prefetch(const vmem_kernel *k, const vmem_target *t, uint64_t limit, const uint64_t *array_bytes,
                     bool *copied) {
  for (size_t i = 0; i < k->nops; i++)
    copied[i] = false;
  bool predicts = vmem_target_u64(t, VMEM_FACT_PREFETCHES_INPUTS) != 0;
  uint64_t phys = vmem_target_u64(t, VMEM_FACT_VMEM_BYTES), keep = vmem_target_u64(t, VMEM_FACT_PREFETCH_RESERVE_BYTES);
  uint64_t budget = limit < phys && phys - limit > keep ? phys - limit - keep : 0, used = 0;
  for (size_t i = 0; i < k->nops; i++) {
    const vmem_operand *o = &k->ops[i].pub;
    if (!scoped_io(o->role) || o->space != VMEM_SPACE_VMEM || !o->block || !o->array || o->buffers <= 0 ||
        !array_bytes[i])
      continue;
    if (vmem_shape_has_tiles(o->array)) { /* a compiled module says where the operand is */
      copied[i] = vmem_shape_memory_space(o->array) == 1;
      continue;
    }
    if (!predicts || o->role != VMEM_ROLE_INPUT)
      continue;
    if (array_bytes[i] > budget - used)
      continue; /* does not fit what is left: not copied (a later, smaller one may be) */
    used += array_bytes[i];
    copied[i] = true;
  }
}
