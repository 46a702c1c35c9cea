/*
 * hlo_print.c — prints a module back as HLO text. The output parses to the
 * same IR (tested on every corpus module): names with '%', operands by
 * name, attributes and literals as written, one instruction per line.
 */
#include <string.h>

#include "hlo.h"

static void put_sv(strbuf *sb, sv s) { sb_putn(sb, s.ptr, s.len); }

static void put_attrs(strbuf *sb, const hlo_attr *a, uint32_t n) {
  for (uint32_t k = 0; k < n; k++) {
    sb_puts(sb, ", ");
    put_sv(sb, attr_name(&a[k]));
    sb_putn(sb, "=", 1);
    put_sv(sb, attr_value(&a[k]));
  }
}

static void print_instruction(strbuf *sb, const vmem_hlo_instruction *in) {
  sb_puts(sb, in->parent->root == in ? "  ROOT %" : "  %");
  put_sv(sb, in->name);
  sb_puts(sb, " = ");
  shape_print_sb(sb, in->shape);
  sb_putn(sb, " ", 1);
  put_sv(sb, *in->opcode);
  sb_putn(sb, "(", 1);
  if (in->kind == HLO_KIND_CONSTANT)
    put_sv(sb, *in->literal);
  else if (in->kind == HLO_KIND_PARAMETER)
    sb_printf(sb, "%llu", (unsigned long long)in->parameter);
  for (uint32_t k = 0; k < in->noperands; k++) {
    sb_puts(sb, k ? ", %" : "%");
    put_sv(sb, in->operands[k]->name);
  }
  sb_putn(sb, ")", 1);
  put_attrs(sb, hlo_attrs(in), in->nattrs);
  sb_putn(sb, "\n", 1);
}

static void print_computation(strbuf *sb, const vmem_hlo_computation *c) {
  sb_puts(sb, c->is_entry ? "ENTRY %" : "%");
  put_sv(sb, c->name);
  if (c->has_signature) {
    sb_puts(sb, " (");
    for (uint32_t k = 0; k < c->nparams; k++) {
      if (k)
        sb_puts(sb, ", ");
      put_sv(sb, c->param_names[k]);
      sb_puts(sb, ": ");
      shape_print_sb(sb, c->param_shapes[k]);
    }
    sb_puts(sb, ") -> ");
    shape_print_sb(sb, c->result);
  }
  sb_puts(sb, " {\n");
  for (uint32_t i = 0; i < c->ninstrs; i++)
    print_instruction(sb, c->instrs[i]);
  sb_putn(sb, "}", 1);
  if (c->thread.len) {
    sb_puts(sb, ", execution_thread=\"");
    put_sv(sb, c->thread);
    sb_putn(sb, "\"", 1);
  }
  sb_puts(sb, "\n\n");
}

size_t vmem_hlo_print(const vmem_hlo_module *m, char *buf, size_t cap) {
  if (!m)
    return 0;
  strbuf sb;
  sb_init(&sb, buf, cap);
  if (m->has_header) {
    sb_puts(&sb, "HloModule ");
    put_sv(&sb, m->name);
    put_attrs(&sb, m->attrs, m->nattrs);
    sb_puts(&sb, "\n\n");
  }
  if (m->frames.len) {
    put_sv(&sb, m->frames);
    sb_puts(&sb, "\n\n");
  }
  for (uint32_t c = 0; c < m->ncomps; c++)
    print_computation(&sb, m->comps[c]);
  return sb.len;
}

/* Marks c and every computation it calls, transitively. */
static void mark_called(const vmem_hlo_computation *c, bool *marks, unsigned depth) {
  if (marks[c->index] || depth > 256)
    return;
  marks[c->index] = true;
  for (uint32_t i = 0; i < c->ninstrs; i++) {
    const vmem_hlo_instruction *in = c->instrs[i];
    for (uint32_t k = 0; in->kind == HLO_KIND_CALLS && k < in->ncalled; k++)
      mark_called(in->called[k], marks, depth + 1);
  }
}

/* repro ::= header computations-it-calls ENTRY { parameters ROOT in } */
size_t vmem_hlo_print_repro(const vmem_hlo_instruction *in, char *buf, size_t cap, vmem_error *err) {
  if (!in)
    return 0;
  err_clear(err);
  const vmem_hlo_module *m = in->parent->module;
  if (in->kind == HLO_KIND_PARAMETER) {
    err_set(err, VMEM_ERR_ARGUMENT, vmem_hlo_instruction_offset(in), "a parameter has nothing to reproduce");
    return SIZE_MAX;
  }
  bool *marks = vmem__alloc(&m->a.alloc, m->ncomps ? m->ncomps : 1);
  if (!marks) {
    err_set(err, VMEM_ERR_NOMEM, 0, "out of memory");
    return SIZE_MAX;
  }
  memset(marks, 0, m->ncomps ? m->ncomps : 1);
  for (uint32_t k = 0; in->kind == HLO_KIND_CALLS && k < in->ncalled; k++)
    mark_called(in->called[k], marks, 0);
  strbuf sb;
  sb_init(&sb, buf, cap);
  sb_puts(&sb, "HloModule repro_");
  put_sv(&sb, in->name);
  sb_puts(&sb, "\n\n// ");
  put_sv(&sb, in->name);
  sb_puts(&sb, " alone, from module ");
  put_sv(&sb, m->name);
  sb_puts(&sb, ": its called computations, and parameters in place of its operands.\n\n");
  if (m->frames.len) { /* metadata's stack_frame_id refers to these tables */
    put_sv(&sb, m->frames);
    sb_puts(&sb, "\n\n");
  }
  for (uint32_t c = 0; c < m->ncomps; c++)
    if (marks[c] && !m->comps[c]->is_entry)
      print_computation(&sb, m->comps[c]);
  vmem__free(&m->a.alloc, marks);
  /* One parameter per operand position: simple, and what a bug report
   * needs (an operand named twice becomes two equal parameters). */
  sb_puts(&sb, "ENTRY %repro (");
  for (uint32_t k = 0; k < in->noperands; k++) {
    sb_printf(&sb, "%sp%u: ", k ? ", " : "", k);
    shape_print_sb(&sb, in->operands[k]->shape);
  }
  sb_puts(&sb, ") -> ");
  shape_print_sb(&sb, in->shape);
  sb_puts(&sb, " {\n");
  for (uint32_t k = 0; k < in->noperands; k++) {
    sb_printf(&sb, "  %%p%u = ", k);
    shape_print_sb(&sb, in->operands[k]->shape);
    sb_printf(&sb, " parameter(%u)\n", k);
  }
  sb_puts(&sb, "  ROOT %");
  put_sv(&sb, in->name);
  sb_puts(&sb, " = ");
  shape_print_sb(&sb, in->shape);
  sb_putn(&sb, " ", 1);
  put_sv(&sb, *in->opcode);
  sb_putn(&sb, "(", 1);
  if (in->kind == HLO_KIND_CONSTANT)
    put_sv(&sb, *in->literal);
  for (uint32_t k = 0; k < in->noperands; k++)
    sb_printf(&sb, "%s%%p%u", k ? ", " : "", k);
  sb_putn(&sb, ")", 1);
  put_attrs(&sb, hlo_attrs(in), in->nattrs);
  sb_puts(&sb, "\n}\n");
  return sb.len;
}
