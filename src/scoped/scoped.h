/*
 * scoped.h — the body model's rules, shared by the planner (footprint.c)
 * and fit's template (src/tune/template.c), so that both charge a body's
 * values the same way (module prefix: scoped_).
 */
#ifndef VMEM_SCOPED_H
#define VMEM_SCOPED_H

#include "../kernel/kernel.h"

/* What value m costs on t when it lays out in `padded` bytes and its matmul
 * (for an lhs) contracts `contracted` into `columns` columns: 0 when the
 * rule does not charge it there or it fits the vector registers. */
uint64_t scoped_body_charge(const kernel_modelled *m, const vmem_target *t, int64_t contracted, int64_t columns,
                            uint64_t padded);

/* The values live at the line where the charged values (charge[i] for
 * k->modelled[i]) sum highest: their indices into members (at most cap),
 * how many in *count; false when out of memory. */
bool scoped_body_peak(const vmem_kernel *k, const uint64_t *charge, size_t *members, size_t cap, size_t *count);

#endif
