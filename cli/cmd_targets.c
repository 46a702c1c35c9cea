/*
 * cmd_targets.c — `vmemscope targets [NAME] [--json]`
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "cli.h"

static const char help[] = "usage: vmemscope targets [NAME] [--model] [--json]\n\n"
                           "The embedded table of TPU generations. Without NAME, one line per target;\n"
                           "with NAME, every fact of that target with its source and whether it is\n"
                           "documented, observed in compiler output, or derived. Memories are per\n"
                           "TensorCore; HBM, bandwidth and FLOP/s per chip. JSON sizes are in bytes.\n"
                           "--model: the facts of the compiler's behaviour that the model keys on\n"
                           "(tiling, the body's charges), one row each, a column per target.\n\n"
                           "examples:\n"
                           "  vmemscope targets\n"
                           "  vmemscope targets v6e --json\n";

/* A fact's value for people: sizes in the compiler's format, rates with SI
 * prefixes, counts as integers. */
static const char *fact_text(char *buf, size_t cap, const vmem_target *t, vmem_fact_id id) {
  const vmem_fact *f = vmem_target_fact(t, id);
  const char *unit = vmem_fact_unit(id);
  if (!f)
    snprintf(buf, cap, "-");
  else if (!strcmp(unit, "bytes"))
    cli_human(buf, cap, (uint64_t)f->value);
  else if (!strcmp(unit, "bytes/s"))
    snprintf(buf, cap, "%.0f GB/s", f->value / 1e9);
  else if (!strcmp(unit, "flop/s") || !strcmp(unit, "op/s"))
    snprintf(buf, cap, "%.0f T%s", f->value / 1e12, unit[0] == 'f' ? "FLOP/s" : "OP/s");
  else if (!strcmp(unit, "bool"))
    snprintf(buf, cap, "%s", f->value != 0 ? "yes" : "no");
  else
    snprintf(buf, cap, "%.0f", f->value);
  return buf;
}

static json_t *json_fact_value(const vmem_fact *f, vmem_fact_id id) {
  const char *unit = vmem_fact_unit(id);
  if (!strcmp(unit, "bool"))
    return json_boolean(f->value != 0);
  if (f->value == floor(f->value) && f->value < 9.0e15)
    return json_integer((json_int_t)f->value);
  return json_real(f->value);
}

static json_t *json_target(const vmem_target *t) {
  json_t *o = json_object(), *facts = json_object();
  json_object_set_new(o, "name", json_string(vmem_target_name(t)));
  json_object_set_new(o, "aliases", json_string(vmem_target_aliases(t)));
  json_object_set_new(o, "device_kind", json_string(vmem_target_device_kind(t)));
  json_object_set_new(o, "generation", json_integer(vmem_target_generation(t)));
  for (int id = 0; id < VMEM_FACT_COUNT; id++) {
    const vmem_fact *f = vmem_target_fact(t, (vmem_fact_id)id);
    if (!f)
      continue;
    json_object_set_new(o, vmem_fact_name((vmem_fact_id)id), json_fact_value(f, (vmem_fact_id)id));
    json_t *d = json_object();
    json_object_set_new(d, "value", json_fact_value(f, (vmem_fact_id)id));
    json_object_set_new(d, "unit", json_string(vmem_fact_unit((vmem_fact_id)id)));
    json_object_set_new(d, "provenance", json_string(vmem_provenance_name(f->provenance)));
    json_object_set_new(d, "source", json_string(f->source));
    if (f->note)
      json_object_set_new(d, "note", json_string(f->note));
    json_object_set_new(facts, vmem_fact_name((vmem_fact_id)id), d);
  }
  json_object_set_new(o, "facts", facts);
  return o;
}

static void print_summary(void) {
  static const vmem_fact_id cols[] = {VMEM_FACT_VMEM_BYTES, VMEM_FACT_SMEM_BYTES,      VMEM_FACT_SCOPED_DEFAULT_BYTES,
                                      VMEM_FACT_HBM_BYTES,  VMEM_FACT_HBM_BYTES_PER_S, VMEM_FACT_BF16_FLOPS,
                                      VMEM_FACT_MXU_DIM,    VMEM_FACT_CORES_PER_CHIP};
  static const int right[] = {0, 0, 1, 1, 1, 1, 1, 1, 1, 1};
  cli_table tb;
  table_init(&tb, 10, right);
  table_add(&tb, "TARGET", "DEVICE KIND", "VMEM/TC", "SMEM/TC", "SCOPED DEFAULT", "HBM", "HBM BW", "BF16 PEAK", "MXU",
            "TCS");
  for (size_t i = 0; i < vmem_target_count(); i++) {
    const vmem_target *t = vmem_target_at(i);
    char v[8][32];
    for (size_t c = 0; c < 8; c++)
      fact_text(v[c], sizeof v[c], t, cols[c]);
    table_add(&tb, vmem_target_name(t), vmem_target_device_kind(t), v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]);
  }
  table_print(&tb, CLI_OUT);
  table_free(&tb);
  fprintf(CLI_OUT, "\nRun 'vmemscope targets NAME' for every value's source.\n");
}

/* The model's behaviour facts (VMEM_FACT_TILE_MIN_TWO_PACKS on), one row
 * each and a column per target: docs/targets.md, "Model facts", is this
 * output (CTest targets_doc holds it so). */
static void print_model(void) {
  size_t n = vmem_target_count();
  fprintf(CLI_OUT, "%-24s", "FACT");
  for (size_t i = 0; i < n; i++)
    fprintf(CLI_OUT, " %7s", vmem_target_name(vmem_target_at(i)));
  fputc('\n', CLI_OUT);
  for (int id = VMEM_FACT_TILE_MIN_TWO_PACKS; id < VMEM_FACT_COUNT; id++) {
    fprintf(CLI_OUT, "%-24s", vmem_fact_name((vmem_fact_id)id));
    for (size_t i = 0; i < n; i++) {
      char v[32];
      fprintf(CLI_OUT, " %7s", fact_text(v, sizeof v, vmem_target_at(i), (vmem_fact_id)id));
    }
    fputc('\n', CLI_OUT);
  }
}

static void print_detail(const vmem_target *t) {
  fprintf(CLI_OUT, "%s (%s), generation %d; aliases: %s\n\n", vmem_target_name(t), vmem_target_device_kind(t),
          vmem_target_generation(t), vmem_target_aliases(t));
  for (int id = 0; id < VMEM_FACT_COUNT; id++) {
    const vmem_fact *f = vmem_target_fact(t, (vmem_fact_id)id);
    char v[32];
    fact_text(v, sizeof v, t, (vmem_fact_id)id);
    fprintf(CLI_OUT, "%-26s %-14s", vmem_fact_name((vmem_fact_id)id), v);
    if (!f) {
      fprintf(CLI_OUT, "no public source\n");
      continue;
    }
    fprintf(CLI_OUT, "%-10s %s\n", vmem_provenance_name(f->provenance), f->source);
    if (f->note)
      fprintf(CLI_OUT, "%-26s %-14s%-10s note: %s\n", "", "", "", f->note);
  }
}

int cmd_targets(int argc, char **argv) {
  bool json = false, model = false;
  const char *name = NULL;
  const cli_opt opts[] = {{"--json", NULL, &json, NULL}, {"--model", NULL, &model, NULL}, {NULL, NULL, NULL, NULL}};
  int scan = cli_scan("targets", argc, argv, opts, &name, 1, help, "give at most one target name");
  if (scan != CLI_GO)
    return scan;
  const vmem_target *one = NULL;
  if (name && !(one = cli_target("targets", name)))
    return EXIT_BAD;
  if (json) {
    json_t *root = cli_json_root("targets");
    if (one) {
      json_t *fields = json_target(one);
      json_object_update(root, fields); /* copies references: drop ours */
      json_decref(fields);
      return cli_print_json(root);
    }
    json_t *arr = json_array();
    for (size_t i = 0; i < vmem_target_count(); i++)
      json_array_append_new(arr, json_target(vmem_target_at(i)));
    json_object_set_new(root, "targets", arr);
    return cli_print_json(root);
  }
  if (one)
    print_detail(one);
  else if (model)
    print_model();
  else
    print_summary();
  return EXIT_OK;
}
