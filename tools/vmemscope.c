/*
 * vmemscope.c — the command-line tool: dispatch to one command per file.
 */
#include <string.h>

#include "cli.h"

static const cli_command commands[] = {
    {"check", "a kernel's scoped VMEM and verdict, or an HLO module's sizes", cmd_check},
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

/* Options every command takes: --quiet (-q) closes standard output, so
 * only errors and the exit status remain; --bytes prints each size with its
 * exact bytes; --color=auto|always|never (and --no-color). They are taken
 * out of the arguments before the command sees them. Returns the new count,
 * or -1 after an error. */
static int global_args(int argc, char **argv) {
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
  cli_set_style(exact, mode);
  if (quiet && !freopen("/dev/null", "w", stdout))
    cli_error(NULL, "--quiet: cannot close standard output");
  return n;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return EXIT_BAD;
  }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
    usage(stdout);
    return EXIT_OK;
  }
  if (!strcmp(cmd, "--version")) {
    printf("vmemscope %s\n", vmem_version());
    return EXIT_OK;
  }
  for (size_t i = 0; i < NCOMMANDS; i++)
    if (!strcmp(cmd, commands[i].name)) {
      int n = global_args(argc - 2, argv + 2);
      return n < 0 ? EXIT_BAD : commands[i].run(n, argv + 2);
    }
  cli_error(NULL, "unknown command '%s' (see 'vmemscope --help')", cmd);
  return EXIT_BAD;
}
