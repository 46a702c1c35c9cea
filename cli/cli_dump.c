/*
 * cli_dump.c — an XLA dump folder (--xla_dump_to=DIR) as `check` and
 * `explain` read it. XLA names each file module_NNNN.<program>[.<id>].<what>
 * (libtpu 0.0.42.1 writes module_0000.jit_f.cl_933746096.after_optimizations.txt,
 * ...before_optimizations.txt, ...after_optimizations-buffer-assignment.txt,
 * debug options and the like beside them). A program compiled again gets a
 * higher NNNN; the latest after-optimizations module of each program is the
 * one the compiler ran.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

#define SUFFIX_AFTER ".after_optimizations.txt"
#define SUFFIX_BEFORE ".before_optimizations.txt"

bool cli_is_dir(const char *path) {
  struct stat st;
  return path && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && !strcmp(s + n - m, suffix);
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The folder's file names, sorted (so module_0001 precedes module_0002). */
static char **list(const char *dir, size_t *n) {
  DIR *d = opendir(dir);
  *n = 0;
  if (!d)
    return NULL;
  size_t cap = 64;
  char **names = malloc(cap * sizeof *names);
  struct dirent *e;
  while (names && (e = readdir(d))) {
    if (e->d_name[0] == '.')
      continue;
    if (*n == cap) {
      char **m = realloc(names, (cap *= 2) * sizeof *names);
      if (!m)
        break;
      names = m;
    }
    names[(*n)++] = cli_strdup(e->d_name);
  }
  closedir(d);
  if (names)
    qsort(names, *n, sizeof *names, by_name);
  return names;
}

/* "jit_f" of module_0003.jit_f.cl_9.after_optimizations.txt: the program,
 * between the number and the compilation id or the suffix. */
static void program_of(const char *name, char *out, size_t cap) {
  const char *p = strchr(name, '.');
  p = p ? p + 1 : name;
  size_t n = 0;
  while (p[n] && p[n] != '.' && n + 1 < cap)
    n++;
  memcpy(out, p, n);
  out[n] = '\0';
}

static bool wanted(const char *name, const char *prog, const char *module) {
  return !module || !strcmp(prog, module) || !strncmp(name, module, strlen(module));
}

/* 2 for an after-optimizations module, 1 for a before one, 0 for anything else. */
static int rank(const char *name) {
  if (strncmp(name, "module_", 7) != 0)
    return 0;
  return ends_with(name, SUFFIX_AFTER) ? 2 : ends_with(name, SUFFIX_BEFORE) ? 1 : 0;
}

size_t cli_dump_modules(const char *dir, const char *module, char ***out) {
  size_t n, m = 0;
  char **names = list(dir, &n);
  char **pick = calloc(n ? n : 1, sizeof *pick);
  bool *skip = calloc(n ? n : 1, sizeof *skip);
  int *ranks = calloc(n ? n : 1, sizeof *ranks);
  char(*progs)[256] = calloc(n ? n : 1, sizeof *progs);
  for (size_t i = 0; progs && ranks && i < n; i++) { /* each name read once */
    ranks[i] = rank(names[i]);
    program_of(names[i], progs[i], sizeof progs[i]);
  }
  for (size_t i = 0; pick && skip && ranks && progs && i < n; i++) {
    int r = ranks[i];
    bool best = r > 0 && wanted(names[i], progs[i], module);
    /* the latest module of its program, after optimizations where there is one */
    for (size_t j = 0; best && j < n; j++)
      if (j != i && ranks[j] && !strcmp(progs[i], progs[j]) && (ranks[j] > r || (ranks[j] == r && j > i)))
        best = false;
    if (best)
      pick[m++] = cli_strdup(names[i]);
    else
      skip[i] = true;
  }
  if (m) { /* a folder with no module is no dump folder: the caller says so, without a listing */
    size_t shown = 0, skipped = n - m;
    fprintf(CLI_OUT,
            "XLA dump folder %s: %zu files; %zu module%s checked, %zu skipped (earlier compilations, "
            "before-optimization modules, other dumps):\n",
            dir, n, m, m == 1 ? "" : "s", skipped);
    for (size_t i = 0; skip && i < n && shown < 12; i++)
      if (skip[i]) {
        fprintf(CLI_OUT, "  skipped %s\n", names[i]);
        shown++;
      }
    if (skipped > shown)
      fprintf(CLI_OUT, "  ... and %zu more\n", skipped - shown);
  }
  for (size_t i = 0; names && i < n; i++)
    free(names[i]);
  free(names);
  free(skip);
  free(ranks);
  free(progs);
  *out = pick;
  return m;
}

size_t cli_dump_logs(const char *dir, char ***out) {
  size_t n, m = 0;
  char **names = list(dir, &n);
  char **pick = calloc(n ? n : 1, sizeof *pick);
  for (size_t i = 0; pick && i < n; i++) {
    bool log = ends_with(names[i], ".log") || ends_with(names[i], ".err") || ends_with(names[i], ".out") ||
               (ends_with(names[i], ".txt") && strncmp(names[i], "module_", 7) != 0);
    if (log)
      pick[m++] = cli_strdup(names[i]);
    free(names[i]);
  }
  free(names);
  *out = pick;
  return m;
}
