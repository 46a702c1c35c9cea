/*
 * limits.c — which scoped-VMEM limit is in force.
 *
 * generation default <- --xla_tpu_scoped_vmem_limit_kib <- a kernel's
 * vmem_limit_bytes. The flag is a libtpu flag: libtpu parses it from
 * LIBTPU_INIT_ARGS once at start-up. Scripts also put it in XLA_FLAGS,
 * where no source shows it taking effect, so a flag seen only there is
 * reported and not applied. Explicit flags (--flags) stand for the
 * LIBTPU_INIT_ARGS the user is about to run with, and win over both.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "../base/base.h"

static const char FLAG[] = "xla_tpu_scoped_vmem_limit_kib";

/* The last occurrence of the flag in one source. */
typedef struct flag_hit {
  bool found;
  int count;
  int dashes;
  uint64_t kib;
} flag_hit;

static void warn(vmem_limits *out, vmem_limit_warning_code code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void warn(vmem_limits *out, vmem_limit_warning_code code, const char *fmt, ...) {
  if (out->warning_count >= VMEM_LIMIT_MAX_WARNINGS)
    return;
  vmem_limit_warning *w = &out->warnings[out->warning_count++];
  w->code = code;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(w->message, sizeof w->message, fmt, ap);
  va_end(ap);
}

/* value ::= [0-9]+   (KiB; must fit in bytes) */
static vmem_status parse_kib(const char *s, size_t start, size_t end, const char *origin, uint64_t *kib,
                             vmem_error *err) {
  uint64_t v = 0, bytes;
  size_t i = start;
  bool wrapped = false;
  for (; i < end && ch_is_digit(s[i]); i++)
    if (!ck_mul(v, 10, &v) || !ck_add(v, (uint64_t)(s[i] - '0'), &v))
      wrapped = true;
  if (i == start || i != end) {
    err_set(err, VMEM_ERR_SYNTAX, i, "%s: malformed --%s value '%.*s' (expected a whole number of KiB)", origin, FLAG,
            (int)(end - start > 40 ? 40 : end - start), s + start);
    return VMEM_ERR_SYNTAX;
  }
  if (wrapped || !ck_mul(v, 1024, &bytes) || bytes > (uint64_t)INT64_MAX) {
    err_set(err, VMEM_ERR_OVERFLOW, start, "%s: --%s value is too large", origin, FLAG);
    return VMEM_ERR_OVERFLOW;
  }
  *kib = v;
  return VMEM_OK;
}

/* flags ::= (token (' ' token)*)?   token ::= '-'+ name ('=' value)? */
static vmem_status scan_flags(const char *s, const char *origin, flag_hit *hit, vmem_error *err) {
  memset(hit, 0, sizeof *hit);
  if (!s)
    return VMEM_OK;
  size_t len = strlen(s), i = 0;
  while (i < len) {
    while (i < len && ch_is_space(s[i]))
      i++;
    size_t tok = i;
    while (i < len && !ch_is_space(s[i]))
      i++;
    size_t d = tok;
    while (d < i && s[d] == '-')
      d++;
    size_t nlen = sizeof FLAG - 1;
    if (d == tok || i - d < nlen || memcmp(s + d, FLAG, nlen) != 0)
      continue;
    size_t after = d + nlen;
    size_t vstart, vend;
    if (after < i && s[after] == '=') {
      vstart = after + 1, vend = i;
    } else if (after == i) { /* "--flag value" */
      vstart = i;
      while (vstart < len && ch_is_space(s[vstart]))
        vstart++;
      vend = vstart;
      while (vend < len && !ch_is_space(s[vend]))
        vend++;
      i = vend;
    } else {
      continue; /* a longer flag name that starts the same way */
    }
    vmem_status st = parse_kib(s, vstart, vend, origin, &hit->kib, err);
    if (st != VMEM_OK)
      return st;
    hit->found = true;
    hit->count++;
    hit->dashes = (int)(d - tok);
  }
  return VMEM_OK;
}

static void note_hit(vmem_limits *out, const flag_hit *h, const char *origin) {
  if (!h->found)
    return;
  if (h->count > 1)
    warn(out, VMEM_WARN_DUPLICATE, "%s sets --%s %d times; the last (%" PRIu64 ") wins", origin, FLAG, h->count,
         h->kib);
  if (h->dashes != 2)
    warn(out, VMEM_WARN_DASHES, "%s spells the flag with %d dash%s; libtpu expects --%s", origin, h->dashes,
         h->dashes == 1 ? "" : "es", FLAG);
}

static void check_physical(vmem_limits *out, uint64_t bytes, const char *what) {
  char a[32], b[32];
  if (out->physical_bytes && bytes > out->physical_bytes) {
    vmem_format_bytes((int64_t)bytes, a, sizeof a);
    vmem_format_bytes((int64_t)out->physical_bytes, b, sizeof b);
    warn(out, VMEM_WARN_ABOVE_PHYSICAL,
         "%s %s is above the %s of physical VMEM: a kernel that uses it fails with "
         "the program-level 'Ran out of memory in memory space vmem'",
         what, a, b);
  }
}

/* Chooses the flag value in force from the three sources. */
static void pick_flag(vmem_limits *out, const flag_hit *opt, const flag_hit *lib, const flag_hit *xla) {
  const flag_hit *use = opt->found ? opt : lib->found ? lib : NULL;
  out->flag_origin = opt->found ? "--flags" : lib->found ? "LIBTPU_INIT_ARGS" : NULL;
  if (opt->found && lib->found && opt->kib != lib->kib)
    warn(out, VMEM_WARN_OVERRIDDEN, "--flags (%" PRIu64 " KiB) overrides LIBTPU_INIT_ARGS (%" PRIu64 " KiB)", opt->kib,
         lib->kib);
  if (use && xla->found && xla->kib != use->kib)
    warn(out, VMEM_WARN_OVERRIDDEN, "XLA_FLAGS also sets %s=%" PRIu64 "; libtpu reads %s, which wins", FLAG, xla->kib,
         out->flag_origin);
  if (!use && xla->found) {
    use = xla;
    out->flag_origin = "XLA_FLAGS";
    warn(out, VMEM_WARN_XLA_FLAGS_ONLY,
         "--%s=%" PRIu64 " is only in XLA_FLAGS; libtpu reads it from LIBTPU_INIT_ARGS, so it is "
         "not applied here (move it to LIBTPU_INIT_ARGS)",
         FLAG, xla->kib);
  }
  if (!use)
    return;
  out->has_flag = true;
  out->flag_applied = use != xla;
  out->flag_bytes = use->kib * 1024;
  /* The global limit reaches the program's standard ops too, and libtpu
   * 0.0.42.1's reduce-window emitter takes it less 4 MiB: at 4096 KiB or
   * less the compiler aborts (a CHECK failure, no error) on any reduce-window
   * in the program, on every generation (probes of jnp.cumsum at 4096 and
   * 4097 KiB; the oracle's edge record of megablox gmm, docs/fidelity.md). */
  if (use->kib <= 4096)
    warn(out, VMEM_WARN_BELOW_RANGE,
         "%" PRIu64 " KiB: at 4096 KiB or less libtpu aborts on any reduce-window (cumsum, pooling) in the program "
         "(its emitter takes the limit less 4 MiB); for one kernel, set vmem_limit_bytes",
         use->kib);
  if (out->flag_applied)
    check_physical(out, out->flag_bytes, "the flag's limit");
}

vmem_status vmem_limits_resolve(const vmem_target *t, const vmem_limit_inputs *in, vmem_limits *out, vmem_error *err) {
  err_clear(err);
  if (!t || !in || !out) {
    err_set(err, VMEM_ERR_ARGUMENT, 0, "no target, inputs or output");
    return VMEM_ERR_ARGUMENT;
  }
  memset(out, 0, sizeof *out);
  out->default_bytes = vmem_target_u64(t, VMEM_FACT_SCOPED_DEFAULT_BYTES);
  out->physical_bytes = vmem_target_u64(t, VMEM_FACT_VMEM_BYTES);
  flag_hit opt, lib, xla;
  vmem_status st;
  if ((st = scan_flags(in->flags, "--flags", &opt, err)) != VMEM_OK ||
      (st = scan_flags(in->libtpu_init_args, "LIBTPU_INIT_ARGS", &lib, err)) != VMEM_OK ||
      (st = scan_flags(in->xla_flags, "XLA_FLAGS", &xla, err)) != VMEM_OK)
    return st;
  note_hit(out, &opt, "--flags");
  note_hit(out, &lib, "LIBTPU_INIT_ARGS");
  note_hit(out, &xla, "XLA_FLAGS");
  pick_flag(out, &opt, &lib, &xla);
  uint64_t scoped = out->has_flag && out->flag_applied ? out->flag_bytes : out->default_bytes;
  out->effective_bytes = scoped;
  out->origin = out->has_flag && out->flag_applied ? VMEM_LIMIT_FLAG : VMEM_LIMIT_DEFAULT;
  if (in->vmem_limit_bytes >= 0) {
    out->has_kernel = true;
    out->kernel_bytes = (uint64_t)in->vmem_limit_bytes;
    out->effective_bytes = out->kernel_bytes;
    out->origin = VMEM_LIMIT_KERNEL;
    if (out->kernel_bytes > scoped)
      warn(out, VMEM_WARN_KERNEL_ABOVE_FLAG,
           "vmem_limit_bytes is above the global scoped limit; JAX documents that the flag must be "
           "at least as large, though current compilers are reported to accept it");
    check_physical(out, out->kernel_bytes, "vmem_limit_bytes");
  }
  return VMEM_OK;
}

const char *vmem_limit_origin_name(vmem_limit_origin o) {
  switch (o) {
  case VMEM_LIMIT_FLAG:
    return "flag";
  case VMEM_LIMIT_KERNEL:
    return "kernel";
  default:
    return "default";
  }
}

const char *vmem_limit_warning_name(vmem_limit_warning_code c) {
  static const char *const names[] = {"above_physical",    "xla_flags_only", "duplicate", "overridden",
                                      "kernel_above_flag", "below_range",    "dashes"};
  return (unsigned)c < sizeof names / sizeof *names ? names[c] : "invalid";
}
