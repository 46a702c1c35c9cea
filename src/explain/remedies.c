/*
 * remedies.c — what to do about an error explain read out of a log: one
 * decision (vmem_log_error_remedies), which explain's text, its JSON and the
 * HTML report each render and none decides again.
 *
 * A scoped error (E1001): the printed size rounded up to a MiB is the limit
 * to ask for; size / limit the factor the windows must shrink by; a standard
 * op (not a custom kernel) is likely a compiler bug; a size above every
 * generation's physical VMEM is one no limit can help. A program-wide error:
 * a list read off its allocation listing (the largest allocation, spill
 * slots, scoped allocations, colored values, the excess).
 */
#include <stdio.h>
#include <string.h>

#include "../base/base.h"

static const char *const kind_names[] = {
    [VMEM_LOG_REMEDY_LARGEST] = "largest",           [VMEM_LOG_REMEDY_SPILL] = "spill",
    [VMEM_LOG_REMEDY_COMPILER_BUG] = "compiler_bug", [VMEM_LOG_REMEDY_SCOPED] = "scoped",
    [VMEM_LOG_REMEDY_UNCOLOR] = "uncolor",           [VMEM_LOG_REMEDY_FREE] = "free",
};

const char *vmem_log_remedy_kind_name(vmem_log_remedy_kind k) {
  return (unsigned)k < sizeof kind_names / sizeof *kind_names ? kind_names[k] : NULL;
}

/* The largest physical VMEM of any generation: a request above it is no remedy. */
static uint64_t max_physical(void) {
  uint64_t m = 0;
  for (size_t i = 0; i < vmem_target_count(); i++) {
    uint64_t v = vmem_target_u64(vmem_target_at(i), VMEM_FACT_VMEM_BYTES);
    m = v > m ? v : m;
  }
  return m;
}

static void scoped(const vmem_log_error *e, vmem_log_remedies *r) {
  r->scoped = true;
  r->request_bytes = vmem_request_bytes(e->size.hi);
  r->shrink_factor = e->limit.present && e->limit.hi ? (double)e->size.lo / (double)e->limit.hi : 0;
  r->likely_compiler_bug = e->custom_kernel == 0;
  r->custom_kernel_unknown = e->custom_kernel < 0;
  r->max_physical_bytes = max_physical();
  r->limit_can_help = e->size.lo <= r->max_physical_bytes;
}

static vmem_log_remedy *add(vmem_log_remedies *r, vmem_log_remedy_kind kind) {
  vmem_log_remedy *x = &r->program[r->nprogram++];
  x->kind = kind;
  return x;
}

/* What the listing holds: its bytes, the spill slots', the scoped ones',
 * and whether a Pallas kernel is among them. */
typedef struct listing {
  uint64_t total, spill, scoped;
  bool custom;
} listing;

static listing read_listing(const vmem_log_error *e) {
  listing l = {0};
  for (size_t i = 0; i < e->nallocs; i++) {
    const vmem_log_alloc *a = &e->allocs[i];
    l.total += a->size.lo;
    if (a->spill)
      l.spill += a->size.lo;
    else if (a->allocation_type && !strcmp(a->allocation_type, "scoped"))
      l.scoped += a->size.lo;
    l.custom = l.custom || (a->label && strstr(a->label, "custom-call"));
  }
  return l;
}

static void program(const vmem_log_error *e, vmem_log_remedies *r) {
  listing l = read_listing(e);
  /* "Program vmem requirement X: scoped X": all of it is instructions'
   * scoped allocations, so no program-scoped value is there to uncolor */
  bool all_scoped =
      e->requirement.present && e->requirement_scoped.present && e->requirement_scoped.hi >= e->requirement.lo;
  if (e->nallocs && e->allocs[0].size.present && l.total)
    snprintf(add(r, VMEM_LOG_REMEDY_LARGEST)->text, sizeof r->program->text,
             "the largest allocation, %s (%.0f%% of the listed bytes; %s), dominates: start there",
             e->allocs[0].size.text, 100.0 * (double)e->allocs[0].size.lo / (double)l.total,
             e->allocs[0].label ? e->allocs[0].label : "no label");
  if (l.spill)
    snprintf(add(r, VMEM_LOG_REMEDY_SPILL)->text, sizeof r->program->text,
             "register-allocator spill slots: in a Pallas kernel, smaller live values (smaller blocks, or loop over "
             "row chunks inside the kernel) free them");
  /* The log seldom says whose spill slots they are: a standard op's (no
   * Pallas kernel in the program) belong to the compiler-bug branch, not
   * to block advice. */
  if (l.spill && !l.custom && 2 * l.spill >= l.total)
    snprintf(add(r, VMEM_LOG_REMEDY_COMPILER_BUG)->text, sizeof r->program->text,
             "if no Pallas kernel is in the program, they are a standard op's: likely a compiler issue; report it "
             "with the dump (--xla_dump_to=DIR --xla_dump_hlo_as_text) and a reproducer: vmemscope repro "
             "DIR/MODULE.after_optimizations.txt --instruction NAME");
  if (all_scoped)
    snprintf(add(r, VMEM_LOG_REMEDY_SCOPED)->text, sizeof r->program->text,
             "the requirement is all scoped (%s of %s): instructions' scoped allocations fill VMEM, not "
             "program-scoped values; lower the scoped limit (--xla_tpu_scoped_vmem_limit_kib, or a kernel's "
             "vmem_limit_bytes) or shrink the blocks of the kernel that sets it",
             e->requirement_scoped.text, e->requirement.text);
  else if (l.scoped)
    snprintf(add(r, VMEM_LOG_REMEDY_SCOPED)->text, sizeof r->program->text,
             "scoped allocations: a lower --xla_tpu_scoped_vmem_limit_kib, or smaller vmem_limit_bytes, leaves "
             "more VMEM to the program");
  if (!all_scoped)
    snprintf(add(r, VMEM_LOG_REMEDY_UNCOLOR)->text, sizeof r->program->text,
             "values colored to VMEM (S(1), with_memory_space_constraint): uncolor the largest");
  if (e->excess.present) {
    char b[32];
    if (e->derived & VMEM_DERIVED_EXCESS)
      vmem_format_bytes((int64_t)e->excess.lo, b, sizeof b);
    snprintf(add(r, VMEM_LOG_REMEDY_FREE)->text, sizeof r->program->text, "to fit, free at least %s",
             e->derived & VMEM_DERIVED_EXCESS ? b : e->excess.text);
  }
}

vmem_status vmem_log_error_remedies(const vmem_log_error *e, vmem_log_remedies *out, vmem_error *err) {
  if (!e || !out)
    return err_set(err, VMEM_ERR_ARGUMENT, 0, "vmem_log_error_remedies: an error and a result are needed"),
           VMEM_ERR_ARGUMENT;
  memset(out, 0, sizeof *out);
  if (e->kind == VMEM_OOM_SCOPED_VMEM && e->size.present)
    scoped(e, out);
  else if (e->kind == VMEM_OOM_PROGRAM_VMEM)
    program(e, out);
  err_clear(err);
  return VMEM_OK;
}
