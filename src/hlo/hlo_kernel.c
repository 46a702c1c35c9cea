/*
 * hlo_kernel.c — the Pallas kernel inside a tpu_custom_call: its Mosaic
 * body decoded (src/mosaic/), then completed with what only the HLO
 * knows: the arrays behind the windows (the operands and the result), so
 * the roles by count rather than by guessing from stores, and the
 * config's vmem_limit_bytes, internal scratch and cost estimate.
 *
 *   custom_call_config: {"body": base64, "vmem_limit_bytes": N,
 *                        "internal_scratch_in_bytes": N,
 *                        "cost_estimate": {"flops": N, ...}, ...}
 */
#include <jansson.h>
#include <string.h>

#include "../kernel/kernel.h"
#include "hlo.h"

/* Operands: scalar prefetch, then one per input window; results: one per
 * output window. The kernel's operand list is prefetch, inputs, outputs,
 * scratch. When the counts agree, the HLO settles the roles. */
static bool set_roles(vmem_kernel *k, size_t nin, size_t nout) {
  size_t npre = 0, nscratch = 0;
  for (size_t i = 0; i < k->nops; i++) {
    npre += k->ops[i].pub.role == VMEM_ROLE_SCALAR_PREFETCH;
    nscratch += k->ops[i].pub.role == VMEM_ROLE_SCRATCH;
  }
  if (nin < npre || npre + (nin - npre) + nout + nscratch != k->nops)
    return false; /* a calling convention we do not know: keep the body's view */
  for (size_t i = npre; i < nin + nout; i++)
    k->ops[i].pub.role = i < nin ? VMEM_ROLE_INPUT : VMEM_ROLE_OUTPUT;
  k->roles_inferred = true;
  return true;
}

/* The array behind operand i, when it matches the window's dtype and rank. */
static void set_array(vmem_kernel *k, size_t i, const vmem_shape *s) {
  kernel_operand *op = &k->ops[i];
  const vmem_shape *b = op->pub.block;
  if (!s || s->tuple || !b || s->dtype != b->dtype || s->rank != b->rank)
    return;
  for (size_t d = 0; d < s->rank; d++)
    if (s->dims[d] < b->dims[d])
      return;
  vmem_shape *a = shape_clone(&k->a, s);
  if (a)
    op->pub.array = op->array = a;
}

/* A grid bound known only at run time is passed to the custom call as a
 * leading scalar operand, one per dynamic bound (megablox gmm's tiles per
 * group: tensor<i32> before its prefetch operands). */
static size_t dynamic_bounds(const vmem_kernel *k) {
  size_t n = 0;
  for (size_t g = 0; g < k->grid_rank; g++)
    n += k->grid[g] == VMEM_GRID_DYNAMIC;
  return n;
}

static void complete(vmem_kernel *k, const kernel_arrays *io, const json_t *config) {
  const json_t *ccc = json_object_get(config, "custom_call_config");
  size_t lead = dynamic_bounds(k);
  bool known = lead <= io->nin && set_roles(k, io->nin - lead, io->nout);
  if (!known && lead) { /* the bounds were not passed: the operands are the kernel's alone */
    lead = 0;
    known = set_roles(k, io->nin, io->nout);
  }
  if (known) /* then operand i is input i (after the bounds), and output j follows the inputs */
    for (size_t i = 0; i < k->nops; i++) {
      vmem_operand_role r = k->ops[i].pub.role;
      if (r == VMEM_ROLE_INPUT)
        set_array(k, i, io->ins[i + lead]);
      else if (r == VMEM_ROLE_OUTPUT)
        set_array(k, i, io->outs[i - (io->nin - lead)]);
    }
  const vmem_shape *res = io->result ? io->result : io->nout == 1 ? io->outs[0] : NULL;
  if (res && !k->result)
    k->result = shape_clone(&k->a, res);
  /* Pallas's vmem_limit_bytes; after compilation, the compiler's own
   * scoped_memory_configs say the same. */
  int64_t v = hlo_json_i64(json_object_get(ccc, "vmem_limit_bytes"));
  if (v < 0)
    v = hlo_vmem_config_size(json_object_get(config, "scoped_memory_configs"));
  if (v >= 0)
    k->vmem_limit = v;
  if ((v = hlo_json_i64(json_object_get(ccc, "internal_scratch_in_bytes"))) >= 0)
    k->internal_scratch = v;
  if ((v = hlo_json_i64(json_object_get(json_object_get(ccc, "cost_estimate"), "flops"))) >= 0)
    k->flops = (double)v;
  /* The body's module name, unless the caller has an explicit one or the
   * body only says "main" (then the instruction's name is better). */
  bool body_named = strcmp(k->name, "main") != 0;
  if (io->name.len && io->name.len < 256 && (io->name_given || !body_named)) {
    char *n = arena_strndup(&k->a, io->name.ptr, io->name.len);
    if (n)
      k->name = n;
  }
}

/* The offset of `body` within src[0, n), or SIZE_MAX: a base64 body has
 * no escapes, so it stands verbatim in a raw or a quoted config. */
static size_t find_body(const char *src, size_t n, const char *body, size_t blen) {
  for (size_t i = 0; blen && i + blen <= n; i++)
    if (src[i] == body[0] && !memcmp(src + i, body, blen))
      return i;
  return SIZE_MAX;
}

vmem_kernel *hlo_config_kernel(const json_t *config, const kernel_arrays *io, vmem_str src, size_t at,
                               const vmem_allocator *alloc, vmem_error *err) {
  json_t *ccc = json_object_get(config, "custom_call_config");
  json_t *body = json_object_get(ccc, "body");
  vmem_kernel *k = NULL;
  if (body && !json_is_string(body)) {
    err_set(err, VMEM_ERR_SYNTAX, at, "custom_call_config.body is not a string: no Mosaic kernel body to read");
  } else if (!body) {
    err_set(err, VMEM_ERR_UNSUPPORTED, at, "no Mosaic kernel body (custom_call_config.body) in the backend_config");
  } else if (!(k = vmem_kernel_from_bytecode(json_string_value(body), json_string_length(body), alloc, err))) {
    /* err->offset is within the body: make it one in the source text. */
    size_t pos = find_body(src.ptr, src.len, json_string_value(body), json_string_length(body));
    err->offset = pos == SIZE_MAX ? at : (size_t)(src.ptr - io->text) + pos + err->offset;
  } else {
    complete(k, io, config);
  }
  return k;
}

vmem_kernel *vmem_hlo_instruction_kernel(const vmem_hlo_instruction *in, const vmem_allocator *alloc, vmem_error *err) {
  if (!in)
    return NULL;
  vmem_error local;
  json_t *root = hlo_config_json(in, &local);
  vmem_kernel *k = NULL;
  size_t nin = vmem_hlo_instruction_operand_count(in);
  const vmem_shape *res = in->shape;
  const vmem_shape **ins = vmem__alloc(alloc, (nin + 1) * sizeof *ins);
  kernel_arrays io = {ins,
                      nin,
                      res->tuple ? (const vmem_shape *const *)res->elems : &res,
                      res->tuple ? res->count : 1,
                      vmem_hlo_instruction_kernel_name(in),
                      false,
                      in->parent->module->text,
                      res};
  for (size_t i = 0; ins && i < nin; i++)
    ins[i] = vmem_hlo_instruction_operand_at(in, i)->shape;
  if (!ins)
    err_set(&local, VMEM_ERR_NOMEM, 0, "out of memory");
  else if (root || local.code == VMEM_OK)
    k = hlo_config_kernel(root, &io, vmem_hlo_instruction_attr(in, "backend_config"), vmem_hlo_instruction_offset(in),
                          alloc, &local);
  vmem__free(alloc, ins);
  json_decref(root);
  if (err)
    *err = local;
  return k;
}
