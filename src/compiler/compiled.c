/*
 * compiled.c — what the compiler gave each Pallas kernel, read from the
 * compiled module it hands back (PJRT_Executable_OptimizedProgram).
 *
 * The module is a serialized xla.HloModuleProto (xla/service/hlo.proto),
 * wrapped in an HloModuleProtoWithConfig (field 1) for "hlo_with_config":
 *   HloModuleProto        3 computations
 *   HloComputationProto   1 name, 2 instructions
 *   HloInstructionProto   1 name, 2 opcode, 28 custom_call_target,
 *                         43 backend_config (JSON text for TPU custom calls)
 * A tpu_custom_call's backend_config names, after compilation, the scoped
 * memory the compiler gave it: "used_scoped_memory_configs":
 * [{"memory_space": "1", "offset": "0", "size": "540672"}] (int64 values are
 * written as strings in proto JSON; numbers are accepted too). Memory space
 * 1 is VMEM. This is the figure the oracle's records hold (oracle/record.py
 * reads the same field from the module's text).
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "compiler.h"

/* The bytes of a length-delimited field as a string view. */
static bool field_is(const pb_field *f, const char *s) {
  size_t n = strlen(s);
  return f->wire == 2 && f->len == n && memcmp(f->bytes, s, n) == 0;
}

/* A proto-JSON int64: a string of digits or a number. */
static bool json_u64(const json_t *v, uint64_t *out) {
  if (json_is_integer(v) && json_integer_value(v) >= 0) {
    *out = (uint64_t)json_integer_value(v);
    return true;
  }
  if (!json_is_string(v) || json_string_length(v) == 0 || json_string_length(v) > 19)
    return false;
  uint64_t r = 0;
  for (const char *s = json_string_value(v); *s; s++) {
    if (!ch_is_digit(*s))
      return false;
    r = r * 10 + (uint64_t)(*s - '0');
  }
  *out = r;
  return true;
}

/* The VMEM bytes of used_scoped_memory_configs in a backend_config. A
 * config that does not read as one is an error: the figure would be
 * wrong, not missing. */
static vmem_status read_used(const pb_field *cfg, arena *a, cc_call *call, vmem_error *err) {
  json_error_t je;
  json_t *root = json_loadb((const char *)cfg->bytes, cfg->len, 0, &je);
  json_t *used = root ? json_object_get(root, "used_scoped_memory_configs") : NULL;
  json_t *body = root ? json_object_get(json_object_get(root, "custom_call_config"), "body") : NULL;
  vmem_status st = VMEM_OK;
  if (json_is_string(body) && json_string_length(body) &&
      !(call->body = arena_strndup(a, json_string_value(body), json_string_length(body)))) {
    json_decref(root);
    return err_set(err, VMEM_ERR_NOMEM, 0, "out of memory"), VMEM_ERR_NOMEM;
  }
  if (json_is_array(used)) {
    call->has_configs = true;
    size_t i;
    json_t *c;
    json_array_foreach(used, i, c) {
      uint64_t space = 0, size = 0;
      if (!json_u64(json_object_get(c, "memory_space"), &space) || !json_u64(json_object_get(c, "size"), &size)) {
        err_set(err, VMEM_ERR_SYNTAX, 0, "%s: used_scoped_memory_configs[%zu] has no memory_space or size", call->name,
                i);
        st = VMEM_ERR_SYNTAX;
        break;
      }
      call->nconfigs++;
      if (space == 1 && !ck_add(call->scoped_bytes, size, &call->scoped_bytes)) {
        err_set(err, VMEM_ERR_OVERFLOW, 0, "%s: used scoped memory past 64 bits", call->name);
        st = VMEM_ERR_OVERFLOW;
        break;
      }
    }
  }
  json_decref(root);
  return st;
}

/* One instruction: a call when it is a tpu_custom_call. */
static vmem_status read_instruction(const pb_field *ins, const char *computation, arena *a, cc_call *call,
                                    bool *is_call, vmem_error *err) {
  pb_in in;
  pb_field f, name = {0}, config = {0};
  bool custom = false, tpu = false;
  int r;
  pb_in_init(&in, ins->bytes, ins->len);
  while ((r = pb_next(&in, &f, err)) > 0) {
    if (f.number == 1 && f.wire == 2)
      name = f;
    else if (f.number == 2)
      custom = field_is(&f, "custom-call");
    else if (f.number == 28)
      tpu = field_is(&f, "tpu_custom_call");
    else if (f.number == 43 && f.wire == 2)
      config = f;
  }
  if (r < 0)
    return VMEM_ERR_SYNTAX;
  *is_call = custom && tpu;
  if (!*is_call)
    return VMEM_OK;
  memset(call, 0, sizeof *call);
  call->computation = computation;
  call->body = "";
  if (!(call->name = name.len ? arena_strndup(a, (const char *)name.bytes, name.len) : ""))
    return err_set(err, VMEM_ERR_NOMEM, 0, "out of memory"), VMEM_ERR_NOMEM;
  return config.len ? read_used(&config, a, call, err) : VMEM_OK;
}

/* A growing array of calls in the arena (the module's count is unknown
 * until it is read; a module holds few kernels). */
static cc_call *grow(arena *a, cc_call *calls, size_t n, size_t *cap) {
  if (n < *cap)
    return calls;
  size_t want = *cap ? *cap * 2 : 8;
  cc_call *bigger = arena_calloc(a, want, sizeof *bigger);
  if (bigger && n)
    memcpy(bigger, calls, n * sizeof *calls);
  *cap = want;
  return bigger;
}

static vmem_status read_computation(const pb_field *comp, arena *a, cc_call **calls, size_t *n, size_t *cap,
                                    vmem_error *err) {
  pb_in in;
  pb_field f;
  const char *name = "";
  int r;
  /* The name first: it may follow the instructions in the bytes. */
  pb_in_init(&in, comp->bytes, comp->len);
  while ((r = pb_next(&in, &f, err)) > 0)
    if (f.number == 1 && f.wire == 2 && f.len && !(name = arena_strndup(a, (const char *)f.bytes, f.len)))
      return err_set(err, VMEM_ERR_NOMEM, 0, "out of memory"), VMEM_ERR_NOMEM;
  if (r < 0)
    return VMEM_ERR_SYNTAX;
  pb_in_init(&in, comp->bytes, comp->len);
  while ((r = pb_next(&in, &f, err)) > 0) {
    if (f.number != 2 || f.wire != 2)
      continue;
    if (!(*calls = grow(a, *calls, *n, cap)))
      return err_set(err, VMEM_ERR_NOMEM, 0, "out of memory"), VMEM_ERR_NOMEM;
    bool is_call = false;
    vmem_status st = read_instruction(&f, name, a, &(*calls)[*n], &is_call, err);
    if (st != VMEM_OK)
      return st;
    *n += is_call;
  }
  return r < 0 ? VMEM_ERR_SYNTAX : VMEM_OK;
}

/* The module's bytes: the whole input, or field 1 of the wrapper. */
static vmem_status module_bytes(pb_in *in, bool with_config, vmem_error *err) {
  if (!with_config)
    return VMEM_OK;
  pb_field f;
  int r;
  while ((r = pb_next(in, &f, err)) > 0)
    if (f.number == 1 && f.wire == 2) {
      pb_in_init(in, f.bytes, f.len);
      return VMEM_OK;
    }
  if (r == 0)
    err_set(err, VMEM_ERR_SYNTAX, 0, "the compiled program holds no HLO module");
  return VMEM_ERR_SYNTAX;
}

vmem_status cc_read_calls(const void *p, size_t n, bool with_config, arena *a, cc_call **out, size_t *count,
                          vmem_error *err) {
  pb_in in;
  pb_field f;
  size_t cap = 0;
  int r;
  *out = NULL;
  *count = 0;
  pb_in_init(&in, p, n);
  vmem_status st = module_bytes(&in, with_config, err);
  if (st != VMEM_OK)
    return st;
  while ((r = pb_next(&in, &f, err)) > 0) {
    if (f.number == 3 && f.wire == 2 && (st = read_computation(&f, a, out, count, &cap, err)) != VMEM_OK)
      return st;
  }
  return r < 0 ? VMEM_ERR_SYNTAX : VMEM_OK;
}
