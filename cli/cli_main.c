/*
 * cli_main.c — the command line as a library call: vmem_cli_run dispatches
 * to one command per file, with its output going to the streams it is
 * given (cli/main.c passes stdout and stderr; the Python package, memory
 * streams through vmem_cli_capture).
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const cli_command commands[] = {
    {"check", "a kernel's scoped VMEM and verdict, or an HLO module's sizes; --compile asks libtpu too", cmd_check},
    {"explain", "explain TPU compiler memory errors in a log, with remedies", cmd_explain},
    {"fit", "search the block sizes (and buffers, coloring) of a kernel that fit, ranked by a cost model", cmd_fit},
    {"mlir-text", "decode a Pallas kernel's Mosaic bytecode and print it as MLIR text", cmd_mlir_text},
    {"print", "print an HLO module back canonically", cmd_print},
    {"report", "a self-contained HTML memory report of a module, kernel or log", cmd_report},
    {"repro", "one HLO instruction as a standalone module, for a bug report", cmd_repro},
    {"size", "exact padded and unpadded bytes of XLA shapes on a TPU", cmd_size},
    {"targets", "the TPU generation table, with sources", cmd_targets},
    {"limits", "the scoped VMEM limit in force for given flags", cmd_limits},
};

enum { NCOMMANDS = sizeof commands / sizeof *commands };

static void usage(FILE *f) {
  fprintf(f, "usage: vmemscope COMMAND [ARGS...] [--target T] [--json]\n"
             "       vmemscope --help | --version\n\n"
             "TPU VMEM accounting offline: exact sizes, limits and diagnostics.\n\n"
             "commands:\n");
  for (size_t i = 0; i < NCOMMANDS; i++)
    fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].summary);
  fprintf(f, "\nRun 'vmemscope COMMAND --help' for a command's options.\n"
             "Targets: --target T, else $VMEMSCOPE_TARGET, else v5e.\n"
             "Any command: --quiet (-q) prints only errors, the exit status says it; --bytes\n"
             "prints every size with its exact bytes; --color=auto|always|never (colour only\n"
             "on a terminal by default, never when NO_COLOR is set).\n"
             "Exit status: 0 ok, 1 an OOM found or predicted, 2 bad usage or input.\n");
}

/* Options every command takes: --quiet (-q) sends standard output to
 * /dev/null, so only errors and the exit status remain; --bytes prints each
 * size with its exact bytes; --color=auto|always|never (and --no-color).
 * They are taken out of the arguments before the command sees them.
 * Returns the new count, or -1 after an error. */
static int global_args(int argc, char **argv, FILE **null_out) {
  int n = 0;
  bool quiet = false, exact = false;
  cli_colour_mode mode = CLI_COLOUR_AUTO;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--quiet") || !strcmp(a, "-q"))
      quiet = true;
    else if (!strcmp(a, "--bytes"))
      exact = true;
    else if (!strcmp(a, "--no-color") || !strcmp(a, "--color=never"))
      mode = CLI_COLOUR_NEVER;
    else if (!strcmp(a, "--color=always")) /* bare --color is fit's memory coloring */
      mode = CLI_COLOUR_ALWAYS;
    else if (!strcmp(a, "--color=auto"))
      mode = CLI_COLOUR_AUTO;
    else if (!strncmp(a, "--color=", 8)) {
      cli_error(NULL, "--color takes auto, always or never, got '%s'", a + 8);
      return -1;
    } else
      argv[n++] = argv[i];
  }
  if (quiet) {
    if (!(*null_out = fopen("/dev/null", "w"))) {
      cli_error(NULL, "--quiet: cannot open /dev/null");
      return -1;
    }
    CLI_OUT = *null_out;
  }
  cli_set_style(exact, mode);
  return n;
}

static int dispatch(int argc, char **argv) {
  if (argc < 1) {
    usage(CLI_ERR);
    return EXIT_BAD;
  }
  const char *cmd = argv[0];
  if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
    usage(CLI_OUT);
    return EXIT_OK;
  }
  if (!strcmp(cmd, "--version")) {
    fprintf(CLI_OUT, "vmemscope %s\n", vmem_version());
    return EXIT_OK;
  }
  for (size_t i = 0; i < NCOMMANDS; i++)
    if (!strcmp(cmd, commands[i].name)) {
      FILE *null_out = NULL;
      int n = global_args(argc - 1, argv + 1, &null_out);
      int rc = n < 0 ? EXIT_BAD : commands[i].run(n, argv + 1);
      if (null_out)
        fclose(null_out);
      return rc;
    }
  cli_error(NULL, "unknown command '%s' (see 'vmemscope --help')", cmd);
  return EXIT_BAD;
}

_Thread_local cli_ctx *cli_now;

int vmem_cli_run(int argc, const char *const *argv, FILE *out, FILE *err) {
  if (argc < 0 || (argc > 0 && !argv) || !out || !err)
    return EXIT_BAD;
  /* The commands reorder their argument array (never the strings): give
   * them a copy, so the caller's stays as it was. */
  char **args = malloc(((size_t)argc + 1) * sizeof *args);
  if (!args)
    return EXIT_BAD;
  for (int i = 0; i < argc; i++)
    args[i] = (char *)(uintptr_t)argv[i];
  args[argc] = NULL;
  cli_ctx ctx = {.out = out, .err = err}, *outer = cli_now;
  cli_now = &ctx;
  int rc = dispatch(argc, args);
  fflush(out);
  fflush(err);
  cli_now = outer; /* report runs commands inside a run */
  free(args);
  return rc;
}

int vmem_cli_capture(int argc, const char *const *argv, char **out, char **err) {
  size_t no = 0, ne = 0;
  char *o = NULL, *e = NULL;
  FILE *fo = open_memstream(&o, &no), *fe = fo ? open_memstream(&e, &ne) : NULL;
  int rc = fo && fe ? vmem_cli_run(argc, argv, fo, fe) : EXIT_BAD;
  if (fo)
    fclose(fo);
  if (fe)
    fclose(fe);
  if (!fo || !fe) {
    free(o);
    free(e);
    o = e = NULL;
  }
  if (out)
    *out = o;
  else
    free(o);
  if (err)
    *err = e;
  else
    free(e);
  return rc;
}

void vmem_cli_free(char *s) { free(s); }
