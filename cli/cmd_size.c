/*
 * cmd_size.c — `vmemscope size SHAPE... [--target T] [--json]`
 */
#define _POSIX_C_SOURCE 200809L /* getline */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char help[] =
    "usage: vmemscope size SHAPE... [--target T] [--json]\n\n"
    "Exact TPU byte size of each XLA shape, e.g. 'bf16[129,1024]' or\n"
    "'f32[128,6]{1,0:T(8,128)}'. A shape without tiles gets the target's default\n"
    "TPU layout (marked 'default'); a shape with tiles is sized as written.\n"
    "Padded bytes follow XLA's ArraySize rule; unpadded bytes count elements only.\n\n"
    "options:\n"
    "  --file F     read shapes from F, one per line ('#' starts a comment; - is stdin)\n"
    "  --target T   TPU generation (v2 v3 v4 v5e v5p v6e 7x 8i 8t, or an alias)\n"
    "  --json       print JSON: {\"target\", \"shapes\": [{\"shape\", \"layout\", \"bytes\", ...}]}\n\n"
    "examples:\n"
    "  vmemscope size 'bf16[129,1024]' --target 7x\n"
    "  vmemscope size --file shapes.txt --json\n";

typedef struct sized {
  const char *input;
  vmem_shape *shape; /* with the layout used */
  bool given;        /* the input carried its own tiles */
  vmem_size size;
} sized;

static double expansion(vmem_size s) { return s.unpadded_bytes ? (double)s.bytes / (double)s.unpadded_bytes : 1.0; }

static char *print_shape(const vmem_shape *s, bool layout_only) {
  size_t n = layout_only ? vmem_shape_print_layout(s, NULL, 0) : vmem_shape_print(s, NULL, 0);
  char *buf = malloc(n + 1);
  if (buf) {
    if (layout_only)
      vmem_shape_print_layout(s, buf, n + 1);
    else
      vmem_shape_print(s, buf, n + 1);
  }
  return buf;
}

/* Parses, lays out and sizes one argument; prints its error and returns
 * false on bad input. */
static bool size_one(const char *text, const char *what, const vmem_target *t, sized *out) {
  vmem_error err;
  vmem_shape *parsed = vmem_shape_parse(text, strlen(text), NULL, &err);
  if (!parsed) {
    cli_error_at("size", what, text, &err);
    return false;
  }
  out->input = text;
  out->given = vmem_shape_has_tiles(parsed);
  out->shape = vmem_shape_with_tpu_layout(parsed, t, NULL, &err);
  vmem_shape_free(parsed);
  if (!out->shape || vmem_shape_size(out->shape, &out->size, &err) != VMEM_OK) {
    cli_error_at("size", what, text, &err);
    return false;
  }
  return true;
}

/* A tuple's elements, each with its own sizes (recursively). */
static json_t *json_elements(const vmem_shape *t) {
  json_t *arr = json_array();
  for (size_t i = 0; i < vmem_shape_tuple_count(t); i++) {
    const vmem_shape *e = vmem_shape_tuple_at(t, i);
    vmem_size z = {0, 0};
    vmem_error err;
    vmem_shape_size(e, &z, &err); /* the whole tuple sized already */
    char *shape = print_shape(e, false);
    json_t *o = json_object();
    json_object_set_new(o, "shape", json_string(shape ? shape : ""));
    json_object_set_new(o, "bytes", json_integer((json_int_t)z.bytes));
    json_object_set_new(o, "unpadded_bytes", json_integer((json_int_t)z.unpadded_bytes));
    if (vmem_shape_is_tuple(e))
      json_object_set_new(o, "elements", json_elements(e));
    json_array_append_new(arr, o);
    free(shape);
  }
  return arr;
}

static json_t *json_size(const sized *z) {
  char *shape = print_shape(z->shape, false), *layout = print_shape(z->shape, true);
  char human[32];
  json_t *o = json_object();
  json_object_set_new(o, "input", json_string(z->input));
  json_object_set_new(o, "shape", json_string(shape ? shape : ""));
  json_object_set_new(o, "layout", json_string(layout ? layout : ""));
  json_object_set_new(o, "layout_source", json_string(z->given ? "given" : "default"));
  json_object_set_new(o, "bytes", json_integer((json_int_t)z->size.bytes));
  json_object_set_new(o, "unpadded_bytes", json_integer((json_int_t)z->size.unpadded_bytes));
  json_object_set_new(o, "padding_bytes", json_integer((json_int_t)(z->size.bytes - z->size.unpadded_bytes)));
  json_object_set_new(o, "expansion", json_real(expansion(z->size)));
  json_object_set_new(o, "bytes_human", json_string(cli_human(human, sizeof human, z->size.bytes)));
  json_object_set_new(o, "memory_space", json_integer(vmem_shape_memory_space(z->shape)));
  if (vmem_shape_is_tuple(z->shape))
    json_object_set_new(o, "elements", json_elements(z->shape));
  free(shape);
  free(layout);
  return o;
}

static void text_row(cli_table *tb, const sized *z) {
  char *shape = print_shape(z->shape, false);
  char b[48], u[48], p[32], x[32];
  cli_bytes(b, sizeof b, z->size.bytes);
  cli_bytes(u, sizeof u, z->size.unpadded_bytes);
  cli_human(p, sizeof p, z->size.bytes - z->size.unpadded_bytes);
  snprintf(x, sizeof x, "%.1fx", expansion(z->size));
  table_add(tb, shape ? shape : "?", z->given ? "given" : "default", b, u, p, x);
  free(shape);
}

static int print_all(const vmem_target *t, sized *z, int n, bool json) {
  if (json) {
    json_t *root = cli_json_root("size"), *arr = json_array();
    json_object_set_new(root, "target", json_string(vmem_target_name(t)));
    for (int i = 0; i < n; i++)
      json_array_append_new(arr, json_size(&z[i]));
    json_object_set_new(root, "shapes", arr);
    return cli_print_json(root);
  }
  static const int right[] = {0, 0, 1, 1, 1, 1};
  cli_table tb;
  table_init(&tb, 6, right);
  table_add(&tb, "SHAPE", "LAYOUT", "BYTES", "UNPADDED", "PADDING", "EXPANSION");
  for (int i = 0; i < n; i++)
    text_row(&tb, &z[i]);
  fprintf(CLI_OUT, "target %s (%s); 'default' layouts are the ones %s assigns\n\n", vmem_target_name(t),
          vmem_target_device_kind(t), vmem_target_name(t));
  table_print(&tb, CLI_OUT);
  table_free(&tb);
  return EXIT_OK;
}

/* The shapes to size, from arguments and --file, with where each came from. */
typedef struct shape_list {
  char **text;
  struct origin {
    const char *file; /* NULL for an argument */
    int line;
  } * where;
  int n, cap;
} shape_list;

static bool list_add(shape_list *l, const char *text, size_t len, const char *file, int line) {
  if (l->n == l->cap) {
    int cap = l->cap ? l->cap * 2 : 16;
    char **t = realloc(l->text, (size_t)cap * sizeof *t);
    struct origin *w = t ? realloc(l->where, (size_t)cap * sizeof *w) : NULL;
    if (t)
      l->text = t;
    if (!t || !w)
      return false;
    l->where = w;
    l->cap = cap;
  }
  char *copy = malloc(len + 1);
  if (!copy)
    return false;
  memcpy(copy, text, len);
  copy[len] = '\0';
  l->text[l->n] = copy;
  l->where[l->n].file = file;
  l->where[l->n].line = line;
  l->n++;
  return true;
}

/* file ::= (line '\n')*   line ::= shape? ('#' comment)?   (blank lines skipped) */
static bool read_shape_file(shape_list *l, const char *path) {
  FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
  if (!f) {
    cli_open_error("size", path);
    return false;
  }
  char *line = NULL;
  size_t cap = 0;
  ssize_t got;
  bool ok = true;
  int before = l->n;
  for (int no = 1; ok && (got = getline(&line, &cap, f)) >= 0; no++) {
    if (memchr(line, '\0', (size_t)got)) {
      cli_error("size", "%s:%d: binary data (a NUL byte); expected one shape per line", path, no);
      ok = false;
      break;
    }
    char *hash = strchr(line, '#');
    size_t len = hash ? (size_t)(hash - line) : (size_t)got;
    while (len && (line[len - 1] == '\n' || line[len - 1] == '\r' || line[len - 1] == ' ' || line[len - 1] == '\t'))
      len--;
    /* Leading blanks stay, so that error columns are the file's columns. */
    size_t start = 0;
    while (start < len && (line[start] == ' ' || line[start] == '\t'))
      start++;
    if (start < len)
      ok = list_add(l, line, len, path, no);
  }
  free(line);
  if (f != stdin)
    fclose(f);
  if (ok && l->n == before) {
    cli_error("size", "%s: no shapes in the file (it is empty or holds only comments)", path);
    ok = false;
  }
  return ok;
}

static void list_free(shape_list *l) {
  for (int i = 0; i < l->n; i++)
    free(l->text[i]);
  free(l->text);
  free(l->where);
}

int cmd_size(int argc, char **argv) {
  static const char *const with_value[] = {"--target", "--file", "-f", NULL};
  cli_args a = {.argc = argc, .argv = argv, .cmd = "size"};
  cli_opts o = {0};
  shape_list l = {0};
  bool bad = false;
  while (a.i < argc && !bad) {
    const char *val, *opt = cli_next(&a, with_value, &val, &bad);
    if (bad)
      break;
    if (!opt)
      bad = !list_add(&l, argv[a.i - 1], strlen(argv[a.i - 1]), NULL, 0);
    else if (!strcmp(opt, "--target"))
      o.target = val;
    else if (!strcmp(opt, "--file") || !strcmp(opt, "-f"))
      bad = !read_shape_file(&l, val);
    else if (!strcmp(opt, "--json"))
      o.json = true;
    else if (!strcmp(opt, "--help") || !strcmp(opt, "-h"))
      o.help = true;
    else
      bad = cli_usage_error("size", "unknown option %s", opt) != 0;
  }
  if (o.help && !bad) {
    fputs(help, CLI_OUT);
    list_free(&l);
    return EXIT_OK;
  }
  if (!bad && l.n == 0)
    bad = cli_usage_error("size", "give at least one shape, e.g. 'bf16[129,1024]'") != 0;
  const vmem_target *t = bad ? NULL : cli_target("size", o.target);
  sized *z = calloc((size_t)l.n + 1, sizeof *z);
  if (!t || !z)
    bad = true;
  for (int i = 0; i < l.n && !bad; i++) {
    char what[300];
    if (l.where[i].file) /* file:line:column, as compilers print it */
      snprintf(what, sizeof what, "%s:%d:", l.where[i].file, l.where[i].line);
    else
      snprintf(what, sizeof what, "shape %d,", i + 1);
    if (!size_one(l.text[i], what, t, &z[i]))
      bad = true;
  }
  int rc = bad ? EXIT_BAD : print_all(t, z, l.n, o.json);
  for (int i = 0; z && i < l.n; i++)
    vmem_shape_free(z[i].shape);
  free(z);
  list_free(&l);
  return rc;
}
