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
static void set_roles(vmem_kernel *k, size_t nin, size_t nout) {
  size_t npre = 0, nscratch = 0;
  for (size_t i = 0; i < k->nops; i++) {
    npre += k->ops[i].pub.role == VMEM_ROLE_SCALAR_PREFETCH;
    nscratch += k->ops[i].pub.role == VMEM_ROLE_SCRATCH;
  }
  if (nin < npre || npre + (nin - npre) + nout + nscratch != k->nops)
    return; /* a calling convention we do not know: keep the body's view */
  for (size_t i = npre; i < nin + nout; i++)
    k->ops[i].pub.role = i < nin ? VMEM_ROLE_INPUT : VMEM_ROLE_OUTPUT;
  k->roles_inferred = true;
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

static void complete(vmem_kernel *k, const kernel_arrays *io, const json_t *ccc) {
  set_roles(k, io->nin, io->nout);
  if (k->roles_inferred)
    for (size_t i = 0; i < k->nops; i++) {
      vmem_operand_role r = k->ops[i].pub.role;
      if (r == VMEM_ROLE_INPUT)
        set_array(k, i, io->ins[i]);
      else if (r == VMEM_ROLE_OUTPUT)
        set_array(k, i, io->outs[i - io->nin]);
    }
  int64_t v = hlo_json_i64(json_object_get(ccc, "vmem_limit_bytes"));
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

vmem_kernel *hlo_config_kernel(const json_t *config, const kernel_arrays *io, size_t at, const vmem_allocator *alloc,
                               vmem_error *err) {
  json_t *ccc = json_object_get(config, "custom_call_config");
  json_t *body = json_object_get(ccc, "body");
  vmem_kernel *k = NULL;
  if (!json_is_string(body))
    err_set(err, VMEM_ERR_UNSUPPORTED, at, "no Mosaic kernel body (custom_call_config.body) in the backend_config");
  else if (!(k = vmem_kernel_from_bytecode(json_string_value(body), json_string_length(body), alloc, err)))
    err->offset = at; /* the message names the byte in the body */
  else
    complete(k, io, ccc);
  return k;
}

vmem_kernel *vmem_hlo_instruction_kernel(const vmem_hlo_instruction *in, const vmem_allocator *alloc,
                                         vmem_error *err) {
  vmem_error local;
  json_t *root = hlo_config_json(in, &local);
  vmem_kernel *k = NULL;
  size_t nin = vmem_hlo_instruction_operand_count(in);
  const vmem_shape *res = in->shape;
  const vmem_shape **ins = vmem__alloc(alloc, (nin + 1) * sizeof *ins);
  kernel_arrays io = {ins, nin, res->tuple ? (const vmem_shape *const *)res->elems : &res,
                      res->tuple ? res->count : 1, vmem_hlo_instruction_kernel_name(in), false};
  for (size_t i = 0; ins && i < nin; i++)
    ins[i] = vmem_hlo_instruction_operand_at(in, i)->shape;
  if (!ins)
    err_set(&local, VMEM_ERR_NOMEM, 0, "out of memory");
  else if (root || local.code == VMEM_OK)
    k = hlo_config_kernel(root, &io, vmem_hlo_instruction_offset(in), alloc, &local);
  vmem__free(alloc, ins);
  json_decref(root);
  if (err)
    *err = local;
  return k;
}
