/*
 * check.h — `vmemscope check` on an HLO module, in three files: the
 * orchestration (cmd_check.c: read, size every row, plan, choose the
 * output), the text (check_text.c) and the JSON (check_json.c). Every
 * decision is the library's or cmd_check.c's; the two renderers only
 * print what the report holds.
 */
#ifndef VMEM_CHECK_H
#define VMEM_CHECK_H

#include "cli.h"

/* One instruction, sized. */
typedef struct row {
  const vmem_hlo_instruction *in;
  vmem_shape *laid; /* the shape with the layout used: shared, owned by the report's cache */
  bool given;       /* the text carried tiles */
  vmem_size size;
  bool sized;
  vmem_hlo_scoped *scoped; /* its config decoded: in report.scoped, by instruction id */
  bool has_scoped;
  vmem_kernel *k;        /* the Pallas kernel of a custom call with a body */
  char *kerr;            /* why its body could not be read (malloc'd; rare, so not a 240-byte
                           vmem_error in every row: that was a quarter of a GB at 10^6 rows) */
  vmem_std_scoped model; /* a standard op's modelled least scoped VMEM */
  uint64_t model_limit;  /* the limit it is held to */
  uint64_t model_likely; /* the modelled choice under that limit */
  bool top_model;        /* among the CLI_REPORT_ROWS with the most modelled (the report's table) */
  bool top_used;         /* among the CLI_REPORT_ROWS with the largest used figure (the report's bars) */
} row;

typedef struct report {
  const char *path;
  vmem_hlo_module *m;
  const vmem_target *t;
  row *rows; /* in module order */
  /* Laid-out shapes by the IR's interned shape: a module of a million
   * instructions has a few thousand distinct shapes, and a copy per row
   * was most of check's memory. Open addressing on the pointer. */
  struct laid_entry *laid;
  size_t laid_cap, laid_n;
  char *uncached; /* the last shape printed outside the cache (out of memory) */
  size_t nrows;
  const vmem_limit_inputs *in;
  const vmem_plan_options *opt;
  int worst;         /* the worst kernel verdict: 0 fits, 1 at risk, 2 over */
  bool bad_body;     /* a kernel body that could not be read */
  vmem_program prog; /* program-scoped VMEM: the S(1) values packed */
  bool has_prog, timeline, tight, summary;
  bool lean;                /* the document is report's: only the rows it reads */
  size_t omitted_bars;      /* lean: rows with a used figure and a limit left out (the page counts them) */
  vmem_hlo_scoped *scoped;  /* each instruction's config, by id: the rows' and the planner's */
  uint64_t global_limit;    /* the scoped limit the flags put in force */
  size_t modelled, flagged; /* standard ops modelled; those whose minimum exceeds their limit */
} report;

/* cmd_check.c: what both renderers ask of a report. */
char *chk_shape_text(const vmem_shape *s); /* malloc'd */
bool chk_is_custom_call(const vmem_hlo_instruction *in);
const char *chk_row_shape(report *r, const row *w); /* laid out, else as written; owned by r */
const row *chk_row_of(const report *r, const vmem_hlo_instruction *in);
uint64_t chk_model_likely(const row *w);
int chk_by_likely_desc(const void *a, const void *b); /* qsort on const row * */
/* The module's totals and `top` largest; false (printed) when out of memory. */
bool chk_module_buffers(const report *r, size_t top, vmem_module_buffers *b);

/* check_text.c */
void chk_print_text(report *r, bool summary, size_t top);

/* check_json.c */
json_t *chk_json_report(report *r, size_t top, bool streamed);
/* Marks the rows the HTML report reads (report's lean document). */
bool report_mark_rows(report *r); /* cmd_report.c: the rows report's page shows */
/* The document written one instruction at a time (a large module). */
int chk_stream_report(report *r, size_t top);

#endif
