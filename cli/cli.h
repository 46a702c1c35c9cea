/*
 * cli.h — shared pieces of the vmemscope command line. The CLI includes
 * only the public header of the library.
 */
#ifndef VMEM_CLI_H
#define VMEM_CLI_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "vmemscope.h"

/* One run of the command line (vmem_cli_run): where it writes and the
 * settings every command shares. The ~350 places that print reach it
 * through cli_now, a thread-local pointer vmem_cli_run sets for the length
 * of the call and restores after; so the CLI is reentrant and thread-safe
 * as a library call, and the library proper (src/) keeps no state at all. */
typedef struct cli_ctx {
  FILE *out, *err;
  bool exact_bytes;    /* --bytes */
  bool colour;         /* --color, NO_COLOR, a terminal */
  bool progress_shown; /* a progress line is on the terminal */
  json_t **capture;    /* report: cli_print_json hands the document here */
  const char *as;      /* report running check, explain or fit inside: the name errors carry */
  bool at_risk_seen;   /* a kernel's verdict was "at risk" (check --strict turns that into exit 1) */
} cli_ctx;
extern _Thread_local cli_ctx *cli_now;
#define CLI_OUT (cli_now->out)
#define CLI_ERR (cli_now->err)

/* The command name an error message carries: cmd, or the command that
 * runs it inside (report), which is the one the user typed. */
const char *cli_who(const char *cmd);

/* A malloc'd copy of s (strdup is POSIX, not C11); NULL when out of memory. */
char *cli_strdup(const char *s);

/* The rows report's page lists at most per table, and the rectangles it
 * draws at most per kind; check's document for the page (captured) keeps
 * the rows that can be among them and no more reservations than that. */
enum { CLI_REPORT_ROWS = 200, CLI_REPORT_RECTS = 5000 };

/* Exit codes, the same for every command. */
enum { EXIT_OK = 0, EXIT_OOM = 1, EXIT_BAD = 2 };

typedef struct cli_command {
  const char *name;
  const char *summary;
  int (*run)(int argc, char **argv);
} cli_command;

int cmd_size(int argc, char **argv);
int cmd_targets(int argc, char **argv);
int cmd_limits(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_explain(int argc, char **argv);
int cmd_fit(int argc, char **argv);
int cmd_print(int argc, char **argv);
int cmd_mlir_text(int argc, char **argv);
int cmd_repro(int argc, char **argv);
int cmd_report(int argc, char **argv);
/* cmd_kernel.c: check on one kernel (from any reader; format NULL: detect),
 * its full report; and the one-line verdict check prints per kernel of a
 * module (returns 0 fits, 1 at risk, 2 over, -1 when it cannot be sized;
 * with json, fills *json instead of printing). */
/* Whether check's option `opt` takes a value (report passes it on with it). */
bool check_takes_value(const char *opt);
int check_kernel_file(const char *path, const char *format, const char *instr, const vmem_target *t,
                      const vmem_limit_inputs *in, const vmem_plan_options *opt, bool json, const char *const *params,
                      size_t nparams);
int check_kernel(const char *path, const char *format, const vmem_kernel *k, const vmem_target *t,
                 const vmem_limit_inputs *in, const vmem_plan_options *opt, bool json);
int kernel_brief(const vmem_kernel *k, const vmem_target *t, const vmem_limit_inputs *in, const vmem_plan_options *opt,
                 const char *indent, json_t **json, vmem_verdict *verdict);

/* cli_compile.c: the real compiler beside the model (check --compile,
 * fit --confirm). A request: --libtpu, --compile-timeout, --topology. */
typedef struct cli_compile_req {
  const char *libtpu, *timeout_s, *topology;
} cli_compile_req;
/* One kernel of the module as the model judged it, and its body (for
 * pairing it with the compiled module's). */
typedef struct cli_model_kernel {
  const char *name;
  bool sized;
  vmem_verdict v;
  const char *body;
  size_t body_len;
} cli_model_kernel;
vmem_compiler *cli_compiler_open(const char *cmd, const cli_compile_req *req, double *timeout);
vmem_compile_result *cli_compile_text(const char *cmd, vmem_compiler *c, const cli_compile_req *req, double timeout,
                                      const char *text, size_t len, const vmem_target *t, const vmem_limit_inputs *in);
/* The compile that gave no answer (refused for another reason than memory,
 * crashed, timed out), as an error naming path where the compiler says "-". */
void cli_compile_failed(const char *cmd, const vmem_compile_result *res, const char *path);
/* Compiles `text`, prints (or adds to root as "compiler") both sides, and
 * returns the exit status: 1 when they disagree or the compiler ran out
 * of scoped VMEM, 2 when the compile could not be had or was refused for
 * another reason, else 0. */
int cli_compile_report(const char *cmd, const cli_compile_req *req, const char *path, const char *text, size_t len,
                       const vmem_target *t, const vmem_limit_inputs *in, const cli_model_kernel *mk, size_t n,
                       double model_seconds, json_t *root);
bool cli_config_body(const char *config, size_t len, const char **body, size_t *blen, json_t **keep);
/* explain --recompile: compiles the module at path, and says (or adds to
 * root as "recompiled") whether it gives the log's E1001 again (log_size,
 * log_limit: the first scoped error's printed figures, or NULL). Returns 2
 * when the compile could not be had, else 0. */
int cli_recompile_report(const cli_compile_req *req, const char *path, const vmem_target *t, const char *log_size,
                         const char *log_limit, json_t *root);
double cli_clock(void); /* a monotonic clock, in seconds */

int check_stablehlo(const char *path, const vmem_target *t, const vmem_limit_inputs *in, const vmem_plan_options *opt,
                    bool json, const cli_compile_req *compile);

/* Common options. Each command loops over argv with cli_next_option. */
typedef struct cli_opts {
  const char *target;
  bool json;
  bool help;
} cli_opts;

/* Argument scanning: returns the option name (without value) or NULL for a
 * positional argument; `*value` receives "--x=v" or the next argument for
 * options listed in `with_value`. Sets *bad on a missing value. */
typedef struct cli_args {
  int argc, i;
  char **argv;
  const char *cmd;
  char name[64]; /* the option last returned by cli_next */
} cli_args;

const char *cli_next(cli_args *a, const char *const *with_value, const char **value, bool *bad);

/* A command's options declared once: the option's name and where it goes —
 * its value into *value (it takes one), or *flag set (it takes none). */
/* A repeatable option's values, in order: room for max. */
typedef struct cli_list {
  const char **items;
  size_t n, max;
} cli_list;

/* An option: a value, a flag, or a repeatable value (list); one is set. */
typedef struct cli_opt {
  const char *name;
  const char **value;
  bool *flag;
  cli_list *list;
} cli_opt;

enum { CLI_GO = -1 }; /* cli_scan: carry on with the command */

/* Scans argv against opts (ended by a NULL name): values, flags and lists stored,
 * up to npos positional arguments into pos[] (one more is the usage error
 * "<surplus>; 'ARG' is one too many"), --help or -h prints help. Returns
 * CLI_GO, or the exit status to return at once. */
int cli_scan(const char *cmd, int argc, char **argv, const cli_opt *opts, const char **pos, size_t npos,
             const char *help, const char *surplus);

/* Target from --target, $VMEMSCOPE_TARGET, or v5e; prints an error and
 * returns NULL for an unknown name. */
const vmem_target *cli_target(const char *cmd, const char *name);

/* "vmemscope CMD: error: ..." to stderr. */
void cli_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* An error inside an argument's text, with the text and a caret. */
void cli_error_at(const char *cmd, const char *what, const char *text, const vmem_error *err);
/* An error inside a file's text: path:line:col, the line, and a caret. */
void cli_file_error(const char *cmd, const char *path, const char *text, size_t len, const vmem_error *err);
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The terminal (cli_util.c). --bytes: every size with its exact bytes;
 * colour with --color=always, or auto on a terminal; never with NO_COLOR. */
typedef enum { CLI_COLOUR_AUTO, CLI_COLOUR_ALWAYS, CLI_COLOUR_NEVER } cli_colour_mode;
typedef enum { CLI_RESET, CLI_OK, CLI_WARN, CLI_BAD, CLI_DIM } cli_tone_kind;
void cli_set_style(bool exact_bytes, cli_colour_mode mode);
const char *cli_tone(cli_tone_kind k); /* an escape sequence, or "" */
/* "[████·····|···]": used against limit in `width` cells (buf: 4*width+64). */
const char *cli_usage_bar(char *buf, size_t cap, uint64_t used, uint64_t limit, size_t width);
/* A progress line on stderr while a large input (over CLI_PROGRESS_BYTES)
 * is read, when stderr is a terminal; cleared by cli_progress_done. */
#define CLI_PROGRESS_BYTES (50u * 1000u * 1000u)
void cli_progress(const char *path, uint64_t bytes, const char *phase);
void cli_progress_done(void);
uint64_t cli_file_bytes(const char *path); /* 0 when not a regular file */

/* Sizes printed as "272.0K (278528)"; cli_human prints "272.0K", or as
 * cli_bytes with --bytes. */
const char *cli_bytes(char *buf, size_t cap, uint64_t bytes);
const char *cli_human(char *buf, size_t cap, uint64_t bytes);
const char *cli_seconds(char *buf, size_t cap, double s); /* "12.50 us", "3.125 ms": fit's and check's times */
char *cli_shape_text(const vmem_shape *s);                /* malloc'd "bf16[8,128]", or NULL; the caller frees */
/* "PATH: cannot open: <the system's reason>" (or "a folder, not a file"),
 * the one wording every command uses; reads errno. */
void cli_open_error(const char *cmd, const char *path);
/* Whether text holds nothing but blanks (an empty file, for every reader). */
bool cli_blank(const char *text, size_t len);
#define CLI_EMPTY_FILE \
  "empty file: nothing to read (give an HLO module, StableHLO text, Mosaic MLIR or bytecode, or a kernel spec)"
/* XLA dump folders (cli_dump.c): whether path is a directory; the module
 * files to check (the latest after-optimizations module of each program,
 * or of `module`), the rest listed as skipped; the log files in it. The
 * caller frees each name and the array. */
bool cli_is_dir(const char *path);
size_t cli_dump_modules(const char *dir, const char *module, char ***out);
size_t cli_dump_logs(const char *dir, char ***out);

/* The JSON schema version every command's output carries (docs/json.md). */
#define CLI_JSON_SCHEMA 5
/* A top-level JSON object: {"schema_version": 3, "command": NAME, ...}. */
json_t *cli_json_root(const char *command);

/* Reads a whole stream or file ("-" is stdin) into a malloc'd buffer;
 * NULL when it cannot be opened or memory runs out. */
char *cli_read_stream(FILE *f, size_t *len);
char *cli_read_file(const char *path, size_t *len);
/* A buffer read whole that is a gzip or zstd stream (by its magic bytes) is
 * replaced by its text (cli_compress.c). CLI_PLAIN: not compressed, kept;
 * CLI_GZIP / CLI_ZSTD: decompressed, with *why saying so when the stream
 * was cut (what it held is read); CLI_BAD_STREAM: damaged, *why says
 * where, *text kept for the caller to free. */
enum { CLI_PLAIN, CLI_GZIP, CLI_ZSTD, CLI_BAD_STREAM };
int cli_decompress(char **text, size_t *len, char *why, size_t cap);
/* The same decoders as a stream: cli_unpack_kind(head) says whether the
 * first bytes of a file are gzip or zstd; cli_unpack_open(in, head) decodes
 * `in` after the head already read from it; cli_unpack_read fills out with
 * up to n bytes of text (0 at the end), setting *why when the stream is cut
 * (what it held is returned) and *bad, with *why, when it is damaged. */
typedef struct cli_unpack cli_unpack;
int cli_unpack_kind(const char *head, size_t n);
cli_unpack *cli_unpack_open(FILE *in, const char *head, size_t nhead);
size_t cli_unpack_read(cli_unpack *u, char *out, size_t n, char *why, size_t cap, bool *bad);
void cli_unpack_close(cli_unpack *u);
/* A whole number of bytes (>= 0) from an option value. */
bool cli_parse_bytes(const char *val, int64_t *out);

/* Prints a JSON value to stdout and frees it; while a capture slot is set
 * (`report` running another command), hands it to the slot instead. */
int cli_print_json(json_t *v);
void cli_capture_json(json_t **slot);
/* Whether a document printed now goes to report rather than to the output. */
bool cli_json_captured(void);

/* A simple aligned text table. */
typedef struct cli_table {
  size_t ncols, nrows, cap;
  char **cells;     /* row-major, ncols per row */
  const int *right; /* per column: right-align numbers */
} cli_table;

/* The flags the environment sets: LIBTPU_INIT_ARGS and XLA_FLAGS (the
 * library reads no environment itself). */
void cli_env_flags(vmem_limit_inputs *in);

void table_init(cli_table *t, size_t ncols, const int *right);
void table_add(cli_table *t, ...); /* ncols strings */
void table_print(cli_table *t, FILE *f);
void table_free(cli_table *t);

/* cli_kernel.c: finding a kernel in any input. Formats: "spec", "mlir",
 * "bytecode" (raw, base64, or a backend_config holding a body), "hlo",
 * "stablehlo". */
const char *cli_detect_format(const char *text, size_t len);
/* True when the file is one base64 body (blanks around it allowed). */
bool cli_whole_body(const char *text, size_t len);
/* The next base64 Mosaic body ("TUzvUg...") at or after `from`. */
bool cli_find_body(const char *text, size_t len, size_t from, size_t *start, size_t *n);
/* The custom call named `name`, or the module's only one with a body;
 * prints why not and returns NULL. */
const vmem_hlo_instruction *cli_kernel_instruction(const char *cmd, const vmem_hlo_module *m, const char *name);
/* Reads the file and its kernel (format NULL: detected; *used says which);
 * prints the error and returns NULL on failure. */
vmem_kernel *cli_load_kernel(const char *cmd, const char *path, const char *format, const char *instr,
                             const char **used);
/* cmd_stablehlo.c: the tpu_custom_call kernel named by instr (its result
 * name, or kernel_name), or the only one. */
vmem_kernel *cli_stablehlo_kernel(const char *cmd, const char *path, const char *text, size_t len, const char *instr);

/* report_html.c: the HTML report from the JSON documents of check,
 * explain and fit (any may be NULL); status is the command's exit status. */
typedef struct report_docs {
  const char *input, *target;
  uint64_t physical; /* physical VMEM of the target */
  json_t *check, *explain, *fit;
} report_docs;
void report_html(FILE *f, const report_docs *d, int status);

#endif
