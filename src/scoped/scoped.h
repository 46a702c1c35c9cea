/*
 * scoped.h — the rules the planner (footprint.c) and fit's template
 * (src/tune/template.c) share, so that both charge a kernel the same way:
 * the body model's (body_model.c) and the prefetch's (prefetch.c) (module
 * prefix: scoped_).
 */
#ifndef VMEM_SCOPED_H
#define VMEM_SCOPED_H

#include "../kernel/kernel.h"

/* What value m costs on t when it lays out in `padded` bytes and its matmul
 * (for an lhs) contracts `contracted` into `columns` columns: 0 when the
 * rule does not charge it there or it fits the vector registers. */
uint64_t scoped_body_charge(const kernel_modelled *m, const vmem_target *t, int64_t contracted, int64_t columns,
                            uint64_t padded);

/* The ceiling of one body value (src/scoped/body_model.c, "the ceiling"):
 * its rule at the worst error the oracle's records showed; `charge` is its
 * estimate. */
uint64_t scoped_body_ceiling(const kernel_modelled *m, const vmem_target *t, uint64_t padded, uint64_t charge);
/* The body's ceiling from the peak of its values' ceilings and the bytes of
 * its VALUE_LIVE values, with the facts the walk learnt of the body
 * (copies, v2/v3's live values where a rule recorded one, a reduction's
 * spill margin); never under the estimate. */
uint64_t scoped_ceiling_total(const kernel_body_facts *bf, const vmem_target *t, uint64_t peak_high, uint64_t live,
                              uint64_t estimate);
/* The values live at the line where the charged values (charge[i] for
 * k->modelled[i]) sum highest: their indices into members (at most cap),
 * how many in *count; false when out of memory. */
bool scoped_body_peak(const vmem_kernel *k, const uint64_t *charge, bool groups, size_t *members, size_t cap,
                      size_t *count);
/* An unrolled body's copies as the estimate charges them: 3/8 of `copies`
 * times `live` (the bytes of one copy's computed values live at once), less
 * t's register file; 0 when fewer than two copies. */
uint64_t scoped_unrolled_estimate(size_t copies, uint64_t live, const vmem_target *t);

/* The sum of the values scoped_body_peak picks for a charge (members: room
 * for k->nmodelled indices); UINT64_MAX when out of memory. */
uint64_t scoped_peak_of(const vmem_kernel *k, const uint64_t *charge, size_t *members);
/* The body's ceiling as scoped_ceiling_total gives it, with the floor of
 * every live value at once (`floor`) or without it (what a requested limit
 * holds: scoped_rules_ceiling). */
uint64_t scoped_ceiling_of(const kernel_body_facts *bf, const vmem_target *t, uint64_t peak_high, uint64_t live,
                           uint64_t estimate, bool floor);
/* Whether a value's charge was made inside the domain its rule was
 * measured on (body_model.c, "where the rules hold"); and an unrolled
 * body's copies likewise. */
bool scoped_rule_firm(const kernel_modelled *m, uint64_t charge);
bool scoped_unrolled_firm(const kernel_body_facts *bf);

/* Whether the compiler forwards scratch operand op (the body writes it
 * whole before it reads it, every step: src/mosaic/forward.c), so that it
 * has no buffer. */
bool scoped_forwarded(const vmem_kernel *k, const kernel_operand *op);
/* Whether a block of dims `block` is one contiguous run of an array of dims
 * `array` (rank n): past leading dims of one, the first dim cut short is
 * followed only by whole dims. */
bool scoped_contiguous(const int64_t *block, const int64_t *array, size_t n);

/* The scoped limit that sizes the prefetch budget: opt's, else the kernel's
 * vmem_limit_bytes, else the target's default. */
uint64_t scoped_limit(const vmem_kernel *k, const vmem_target *t, const vmem_plan_options *opt);

/* A footprint's totals as the verdict counts them (verdict.c), saturating:
 * exact + the body's estimated values (predicted), + those sized inside
 * their rules' domains (firm), + their ceiling never under the estimate
 * (ceiling), + the rules' ceiling without the live floor (rules_ceiling).
 * The verdict and the remedies' request use these. */
uint64_t scoped_predicted(const vmem_footprint *f);
uint64_t scoped_firm(const vmem_footprint *f);
uint64_t scoped_rules_ceiling(const vmem_footprint *f);
uint64_t scoped_ceiling(const vmem_footprint *f);

/* An input or an output: the roles that have windows, and that may be
 * whole in VMEM instead (prefetch.c). */
static inline bool scoped_io(vmem_operand_role r) { return r == VMEM_ROLE_INPUT || r == VMEM_ROLE_OUTPUT; }

/* Which operands of k are whole in VMEM under `limit` (copied[i], k->nops
 * of them): 7x's copies of inputs, or S(1) in a compiled module; given each
 * operand's laid-out array size (array_bytes[i]; 0: not a candidate).
 * prefetch.c has the rule. */
void scoped_prefetch(const vmem_kernel *k, const vmem_target *t, uint64_t limit, const uint64_t *array_bytes,
                     bool *copied);

#endif
