/*
 * cli_util.c — option scanning, target choice, error printing, tables.
 */
#define _POSIX_C_SOURCE 200809L /* fileno, isatty */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

const char *cli_next(cli_args *a, const char *const *with_value, const char **value, bool *bad) {
  *value = NULL;
  const char *arg = a->argv[a->i++];
  if (arg[0] != '-' || arg[1] == '\0' || (arg[1] != '-' && arg[1] >= '0' && arg[1] <= '9'))
    return NULL; /* positional ("-" and negative numbers too) */
  char *name = a->name;
  const char *eq = strchr(arg, '=');
  size_t n = eq ? (size_t)(eq - arg) : strlen(arg);
  if (n >= sizeof a->name)
    n = sizeof a->name - 1;
  memcpy(name, arg, n);
  name[n] = '\0';
  for (const char *const *w = with_value; w && *w; w++) {
    if (strcmp(*w, name) != 0)
      continue;
    if (eq) {
      *value = eq + 1;
    } else if (a->i < a->argc) {
      *value = a->argv[a->i++];
    } else {
      cli_error(a->cmd, "option %s needs a value", name);
      *bad = true;
    }
    return name;
  }
  if (eq) {
    cli_error(a->cmd, "option %s takes no value", name);
    *bad = true;
  }
  return name;
}

/* cli_scan's loop, given the names of the options that take a value. */
static int scan_args(const char *cmd, int argc, char **argv, const cli_opt *opts, const char *const *with_value,
                     const char **pos, size_t npos, const char *help, const char *surplus) {
  size_t got = 0;
  cli_args a = {.argc = argc, .argv = argv, .cmd = cmd};
  while (a.i < argc) {
    bool bad = false;
    const char *val, *opt = cli_next(&a, with_value, &val, &bad);
    if (bad)
      return EXIT_BAD;
    if (!opt) {
      if (got == npos)
        return cli_usage_error(cmd, "%s; '%s' is one too many", surplus, argv[a.i - 1]);
      pos[got++] = argv[a.i - 1];
      continue;
    }
    if (!strcmp(opt, "--help") || !strcmp(opt, "-h")) {
      fputs(help, CLI_OUT);
      return EXIT_OK;
    }
    const cli_opt *o = opts;
    while (o->name && strcmp(o->name, opt))
      o++;
    if (!o->name)
      return cli_usage_error(cmd, "unknown option %s", opt);
    if (o->value)
      *o->value = val;
    else if (o->flag)
      *o->flag = true;
    else if (o->list->n == o->list->max)
      return cli_usage_error(cmd, "at most %zu %s", o->list->max, opt);
    else
      o->list->items[o->list->n++] = val;
  }
  return CLI_GO;
}

int cli_scan(const char *cmd, int argc, char **argv, const cli_opt *opts, const char **pos, size_t npos,
             const char *help, const char *surplus) {
  size_t nopts = 0, nv = 0;
  while (opts[nopts].name)
    nopts++;
  /* the options that take a value, for cli_next, sized to the table (a fixed
   * array that overflowed would have made a value option a flag) */
  const char **with_value = malloc((nopts + 1) * sizeof *with_value);
  if (!with_value) {
    cli_error(cmd, "out of memory");
    return EXIT_BAD;
  }
  for (const cli_opt *o = opts; o->name; o++)
    if (o->value || o->list)
      with_value[nv++] = o->name;
  with_value[nv] = NULL;
  int rc = scan_args(cmd, argc, argv, opts, with_value, pos, npos, help, surplus);
  free(with_value);
  return rc;
}

void cli_error(const char *cmd, const char *fmt, ...) {
  cli_progress_done(); /* an error starts on a clean line */
  va_list ap;
  va_start(ap, fmt);
  fprintf(CLI_ERR, "vmemscope%s%s: error: ", cmd ? " " : "", cmd ? cli_who(cmd) : ""); /* report runs check as itself */
  vfprintf(CLI_ERR, fmt, ap);
  fputc('\n', CLI_ERR);
  va_end(ap);
}

const char *cli_who(const char *cmd) { return cli_now->as ? cli_now->as : cmd; }

int cli_usage_error(const char *cmd, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(CLI_ERR, "vmemscope %s: error: ", cli_who(cmd));
  vfprintf(CLI_ERR, fmt, ap);
  fprintf(CLI_ERR, "\n(see 'vmemscope %s --help')\n", cli_who(cmd));
  va_end(ap);
  return EXIT_BAD;
}

void cli_error_at(const char *cmd, const char *what, const char *text, const vmem_error *err) {
  cli_progress_done(); /* an error starts on a clean line */
  size_t len = strlen(text), line, col;
  vmem_locate(text, len, err->offset, &line, &col);
  /* `what` ends in ':' for "file:line:" (then the column follows as
   * ":col"), else it names an argument ("shape 2,"). */
  size_t wn = strlen(what);
  if (strchr(text, '\n'))
    fprintf(CLI_ERR, "vmemscope %s: error: %s:%zu:%zu: %s\n", cli_who(cmd), what, line, col, err->message);
  else if (wn && what[wn - 1] == ':')
    fprintf(CLI_ERR, "vmemscope %s: error: %s%zu: %s\n", cli_who(cmd), what, col, err->message);
  else
    fprintf(CLI_ERR, "vmemscope %s: error: %s column %zu: %s\n", cli_who(cmd), what, col, err->message);
  /* Show the line with a caret under the position (single-line texts). */
  if (!strchr(text, '\n') && len <= 200) {
    fprintf(CLI_ERR, "  %s\n  %*s^\n", text, (int)(col - 1), "");
  }
}

/* An error in a file: file:line:col, then the line (cut to 160 columns
 * around the caret) with a caret under the position. */
void cli_file_error(const char *cmd, const char *path, const char *text, size_t len, const vmem_error *err) {
  cli_progress_done(); /* an error starts on a clean line */
  size_t line, col;
  vmem_locate(text, len, err->offset, &line, &col);
  fprintf(CLI_ERR, "vmemscope %s: error: %s:%zu:%zu: %s\n", cli_who(cmd), path, line, col, err->message);
  /* The line itself, cut to 160 columns around the caret. */
  size_t b = err->offset > len ? len : err->offset;
  while (b > 0 && text[b - 1] != '\n')
    b--;
  size_t e = b;
  while (e < len && text[e] != '\n' && e - b < 400)
    e++;
  size_t from = col > 120 ? col - 80 : 1;
  size_t n = e - b >= from - 1 ? e - b - (from - 1) : 0;
  if (n > 160)
    n = 160;
  bool printable = true;
  for (size_t i = 0; i < n; i++)
    printable = printable && ((unsigned char)text[b + from - 1 + i] >= 32 || text[b + from - 1 + i] == '\t');
  if (printable && n)
    fprintf(CLI_ERR, "  %.*s\n  %*s^\n", (int)n, text + b + from - 1, (int)(col - from), "");
}

const vmem_target *cli_target(const char *cmd, const char *name) {
  const char *from = "--target";
  if (!name || !*name) {
    name = getenv("VMEMSCOPE_TARGET");
    from = "VMEMSCOPE_TARGET";
  }
  if (!name || !*name)
    name = "v5e";
  const vmem_target *t = vmem_target_find(name, strlen(name));
  if (!t) {
    fprintf(CLI_ERR, "vmemscope %s: error: %s: unknown target '%s'; known:", cli_who(cmd), from, name);
    for (size_t i = 0; i < vmem_target_count(); i++)
      fprintf(CLI_ERR, " %s", vmem_target_name(vmem_target_at(i)));
    fputc('\n', CLI_ERR);
  }
  return t;
}

/* ---- the terminal: options every command shares ---------------------------- */

void cli_set_style(bool exact, cli_colour_mode mode) {
  cli_now->exact_bytes = exact;
  const char *no = getenv("NO_COLOR"), *term = getenv("TERM");
  int fd = fileno(CLI_OUT); /* -1 for a memory stream */
  bool tty = fd >= 0 && isatty(fd) && !(term && !strcmp(term, "dumb"));
  /* NO_COLOR (no-color.org) wins over everything, --color=always included. */
  cli_now->colour = !(no && *no) && (mode == CLI_COLOUR_ALWAYS || (mode == CLI_COLOUR_AUTO && tty));
}

const char *cli_tone(cli_tone_kind k) {
  static const char *const codes[] = {"\033[0m", "\033[1;32m", "\033[1;33m", "\033[1;31m", "\033[2m"};
  return cli_now->colour ? codes[k] : "";
}

/* A bar of `width` cells: the used part filled, the limit marked '|',
 * scaled to the larger of the two; coloured by the verdict. */
const char *cli_usage_bar(char *buf, size_t cap, uint64_t used, uint64_t limit, size_t width) {
  uint64_t top = used > limit ? used : limit;
  size_t at = top ? (size_t)((double)limit / (double)top * (double)width) : 0,
         fill = top ? (size_t)((double)used / (double)top * (double)width + 0.5) : 0, o = 0;
  const char *tone = cli_tone(used > limit ? CLI_BAD : CLI_OK);
  o += (size_t)snprintf(buf + o, cap - o, "[%s", tone);
  for (size_t i = 0; i <= width && o + 8 < cap; i++) {
    if (i == at)
      o += (size_t)snprintf(buf + o, cap - o, "%s|%s", cli_tone(CLI_RESET), tone);
    else
      o += (size_t)snprintf(buf + o, cap - o, "%s", i < fill ? "\u2588" : "\u00b7");
  }
  if (o + 8 < cap)
    snprintf(buf + o, cap - o, "%s]", cli_tone(CLI_RESET));
  return buf;
}

/* ---- a progress line on stderr, for inputs over 50 MB on a terminal ------- */
void cli_progress(const char *path, uint64_t bytes, const char *phase) {
  int fd = fileno(CLI_ERR);
  if (bytes < CLI_PROGRESS_BYTES || fd < 0 || !isatty(fd))
    return;
  fprintf(CLI_ERR, "\rvmemscope: %s (%.1f MB): %s...\033[K", path, (double)bytes / 1e6, phase);
  fflush(CLI_ERR);
  cli_now->progress_shown = true;
}

uint64_t cli_file_bytes(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
}

void cli_progress_done(void) {
  if (cli_now->progress_shown)
    fputs("\r\033[K", CLI_ERR);
  cli_now->progress_shown = false;
}

char *cli_shape_text(const vmem_shape *s) {
  if (!s)
    return NULL;
  size_t n = vmem_shape_print(s, NULL, 0);
  char *b = malloc(n + 1);
  if (b)
    vmem_shape_print(s, b, n + 1);
  return b;
}

const char *cli_seconds(char *buf, size_t cap, double s) {
  if (s >= 1e-3)
    snprintf(buf, cap, "%.3f ms", s * 1e3);
  else
    snprintf(buf, cap, "%.2f us", s * 1e6);
  return buf;
}

const char *cli_human(char *buf, size_t cap, uint64_t bytes) {
  if (cli_now->exact_bytes)
    return cli_bytes(buf, cap, bytes);
  vmem_format_bytes((int64_t)bytes, buf, cap);
  return buf;
}

const char *cli_bytes(char *buf, size_t cap, uint64_t bytes) {
  char h[32];
  vmem_format_bytes((int64_t)bytes, h, sizeof h);
  if (bytes < 1024)
    snprintf(buf, cap, "%s", h);
  else
    snprintf(buf, cap, "%s (%" PRIu64 ")", h, bytes);
  return buf;
}

json_t *cli_json_root(const char *command) {
  json_t *o = json_object();
  json_object_set_new(o, "schema_version", json_integer(CLI_JSON_SCHEMA));
  json_object_set_new(o, "command", json_string(command));
  return o;
}

/* `report` sets the slot around a call to check, explain or fit, and takes
 * the document back. */
void cli_capture_json(json_t **slot) { cli_now->capture = slot; }

bool cli_json_captured(void) { return cli_now->capture != NULL; }

int cli_print_json(json_t *v) {
  if (v && cli_now->capture) {
    json_decref(*cli_now->capture);
    *cli_now->capture = v;
    return EXIT_OK;
  }
  if (!v) {
    cli_error(NULL, "out of memory building JSON");
    return EXIT_BAD;
  }
  /* Straight to the stream: a string of the whole document first was as
   * large again as the tree (hundreds of MB for a large module). */
  int rc = json_dumpf(v, CLI_OUT, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
  json_decref(v);
  if (rc != 0) {
    cli_error(NULL, "out of memory or a write error printing JSON");
    return EXIT_BAD;
  }
  fputc('\n', CLI_OUT);
  return EXIT_OK;
}

void table_init(cli_table *t, size_t ncols, const int *right) {
  memset(t, 0, sizeof *t);
  t->ncols = ncols;
  t->right = right;
}

char *cli_strdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d)
    memcpy(d, s, n);
  return d;
}

void table_add(cli_table *t, ...) {
  if (t->nrows == t->cap) {
    size_t cap = t->cap ? t->cap * 2 : 16;
    char **c = realloc(t->cells, cap * t->ncols * sizeof *c);
    if (!c)
      return;
    t->cells = c;
    t->cap = cap;
  }
  va_list ap;
  va_start(ap, t);
  for (size_t j = 0; j < t->ncols; j++) {
    const char *s = va_arg(ap, const char *);
    t->cells[t->nrows * t->ncols + j] = cli_strdup(s ? s : "");
  }
  va_end(ap);
  t->nrows++;
}

void table_print(cli_table *t, FILE *f) {
  size_t w[16] = {0};
  for (size_t r = 0; r < t->nrows; r++)
    for (size_t j = 0; j < t->ncols && j < 16; j++) {
      const char *c = t->cells[r * t->ncols + j];
      size_t n = c ? strlen(c) : 0;
      if (n > w[j])
        w[j] = n;
    }
  for (size_t r = 0; r < t->nrows; r++) {
    for (size_t j = 0; j < t->ncols && j < 16; j++) {
      const char *c = t->cells[r * t->ncols + j];
      bool last = j + 1 == t->ncols;
      if (t->right && t->right[j])
        fprintf(f, "%*s", (int)w[j], c ? c : "");
      else if (last)
        fputs(c ? c : "", f);
      else
        fprintf(f, "%-*s", (int)w[j], c ? c : "");
      if (!last)
        fputs("  ", f);
    }
    fputc('\n', f);
  }
}

void table_free(cli_table *t) {
  for (size_t i = 0; i < t->nrows * t->ncols; i++)
    free(t->cells[i]);
  free(t->cells);
  memset(t, 0, sizeof *t);
}

char *cli_read_stream(FILE *f, size_t *len) {
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  for (size_t got; buf && (got = fread(buf + n, 1, cap - n, f)) > 0;) {
    n += got;
    if (n == cap) {
      char *nb = realloc(buf, cap * 2);
      if (!nb)
        free(buf);
      buf = nb;
      cap *= 2;
    }
  }
  *len = n;
  return buf;
}

bool cli_blank(const char *text, size_t len) {
  for (size_t i = 0; i < len; i++)
    if (text[i] != ' ' && text[i] != '\t' && text[i] != '\n' && text[i] != '\r')
      return false;
  return true;
}

void cli_open_error(const char *cmd, const char *path) {
  int e = errno;
  if (cli_is_dir(path))
    cli_error(cmd, "%s: cannot open: a folder, not a file", path);
  else
    cli_error(cmd, "%s: cannot open: %s", path, strerror(e ? e : ENOENT));
}

char *cli_read_file(const char *path, size_t *len) {
  if (strcmp(path, "-") && cli_is_dir(path)) {
    errno = EISDIR; /* fopen would open it, and the read would find nothing */
    return NULL;
  }
  FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
  if (!f)
    return NULL;
  char *buf = cli_read_stream(f, len);
  if (f != stdin)
    fclose(f);
  return buf;
}

bool cli_parse_bytes(const char *val, int64_t *out) {
  char *end;
  errno = 0;
  long long v = strtoll(val, &end, 10);
  if (errno || end == val || *end || v < 0)
    return false;
  *out = v;
  return true;
}

void cli_env_flags(vmem_limit_inputs *in) {
  in->libtpu_init_args = getenv("LIBTPU_INIT_ARGS");
  in->xla_flags = getenv("XLA_FLAGS");
}
