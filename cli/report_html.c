/*
 * report_html.c — the HTML memory report: one self-contained file (inline
 * CSS, inline SVG, a few lines of inline JS; nothing fetched) rendered from
 * the JSON documents of check, explain and fit (docs/json.md), so the page
 * shows exactly the figures `--json` prints.
 *
 * Each section is one function over one part of a document. Sizes are
 * printed in the compiler's format with the exact bytes in the hover title.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

enum { SVG_W = 960, LABEL_W = 300, ROW_H = 20, MAX_ROWS = CLI_REPORT_ROWS, MAX_RECTS = CLI_REPORT_RECTS };

/* ---- small helpers ---------------------------------------------------------- */

static void esc(FILE *f, const char *s) {
  for (; s && *s; s++)
    switch (*s) {
    case '<':
      fputs("&lt;", f);
      break;
    case '>':
      fputs("&gt;", f);
      break;
    case '&':
      fputs("&amp;", f);
      break;
    case '"':
      fputs("&quot;", f);
      break;
    default:
      fputc(*s, f);
    }
}

static const char *jstr(const json_t *o, const char *key) {
  const char *s = json_string_value(json_object_get(o, key));
  return s ? s : "";
}

static uint64_t jbytes(const json_t *o, const char *key) {
  json_int_t v = json_integer_value(json_object_get(o, key));
  return v > 0 ? (uint64_t)v : 0;
}

static bool jtrue(const json_t *o, const char *key) { return json_is_true(json_object_get(o, key)); }

/* "28.0M" and, for titles, "28.0M (29360128 bytes)". */
static const char *human(char *b, size_t cap, uint64_t v) { return cli_human(b, cap, v); }
static void title_bytes(FILE *f, uint64_t v) {
  char b[32];
  fprintf(f, "%s (%" PRIu64 " bytes)", human(b, sizeof b, v), v);
}

static double frac(uint64_t v, uint64_t scale) { return scale ? (double)v / (double)scale : 0.0; }

/* ---- page frame ------------------------------------------------------------- */

static const char css[] =
    "body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1000px;color:#1d232b;padding:0 16px}"
    "h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #d8dde3}"
    ".sub{color:#5b6673;margin:0 0 16px}.cards{display:flex;gap:12px;flex-wrap:wrap}"
    ".card{border:1px solid #d8dde3;border-radius:6px;padding:8px 12px;min-width:150px}"
    ".card b{display:block;font-size:18px}.card.over{border-color:#c62828;background:#fdecea}"
    ".card.ok{border-color:#2e7d32;background:#edf7ee}.card.warn{border-color:#b26a00;background:#fff4e0}"
    "table{border-collapse:collapse;margin:8px 0;font-size:13px}th,td{padding:3px 8px;text-align:left;"
    "border-bottom:1px solid #eceff2}td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}"
    "th{cursor:pointer;background:#f4f6f8}tr.over td{color:#b71c1c}.model{color:#6a5d00;font-style:italic}"
    "p.compiler{color:#0d47a1}p.compiler.over{color:#b71c1c}pre.compiler-error{white-space:pre-wrap}"
    "svg text{font:11px system-ui,sans-serif}.note{color:#5b6673;font-size:13px}"
    "pre{background:#f4f6f8;padding:8px;overflow-x:auto}";

/* Sorting by a header click; marks the page rendered so a test can tell
 * the script ran in the browser. */
static const char js[] =
    "document.querySelectorAll('table.sortable th').forEach(function(th,i){th.addEventListener('click',"
    "function(){var tb=th.closest('table').tBodies[0],rows=Array.from(tb.rows),d=th.dataset.dir==='a'?-1:1;"
    "th.dataset.dir=d>0?'a':'d';rows.sort(function(a,b){var x=a.cells[i].dataset.v||a.cells[i].textContent,"
    "y=b.cells[i].dataset.v||b.cells[i].textContent,p=parseFloat(x),q=parseFloat(y);"
    "return d*(isNaN(p)||isNaN(q)?x.localeCompare(y):p-q)});rows.forEach(function(r){tb.appendChild(r)})})});"
    "document.body.dataset.rendered='yes';";

static void page_open(FILE *f, const char *title, const char *sub) {
  fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>vmemscope: ", f);
  esc(f, title);
  fprintf(f, "</title>\n<style>%s</style></head>\n<body>\n<h1>", css);
  esc(f, title);
  fputs("</h1>\n<p class=\"sub\">", f);
  esc(f, sub);
  fputs("</p>\n", f);
}

static void page_close(FILE *f) {
  fprintf(f,
          "<p class=\"note\">Made by vmemscope %s. Exact figures are computed from the input; figures "
          "marked <span class=\"model\">modelled</span> rebuild a closed compiler's behaviour from public "
          "facts.</p>\n<script>%s</script>\n</body></html>\n",
          vmem_version(), js);
}

static void card(FILE *f, const char *cls, const char *label, const char *value) {
  fprintf(f, "<div class=\"card %s\"><span>", cls);
  esc(f, label);
  fputs("</span><b>", f);
  esc(f, value);
  fputs("</b></div>\n", f);
}

/* ---- scoped VMEM against a limit: one bar per kernel or instruction --------- */

typedef struct bar {
  const char *name, *what;
  uint64_t value, limit;
} bar;

static int bar_desc(const void *a, const void *b) {
  const bar *x = a, *y = b;
  return x->value < y->value ? 1 : x->value > y->value ? -1 : strcmp(x->name, y->name);
}

static void bar_row(FILE *f, const bar *b, size_t i, uint64_t scale) {
  double w = SVG_W - LABEL_W - 10, y = (double)i * ROW_H;
  bool over = b->value > b->limit;
  char v[32], l[32];
  fprintf(f, "<g class=\"bar%s\" data-name=\"", over ? " over" : "");
  esc(f, b->name);
  fprintf(f, "\" data-bytes=\"%" PRIu64 "\"><title>", b->value);
  esc(f, b->name);
  fprintf(f, " (%s): ", b->what);
  title_bytes(f, b->value);
  fputs(" of limit ", f);
  title_bytes(f, b->limit);
  fprintf(f, "%s</title>\n<text x=\"0\" y=\"%.0f\">", over ? ", OVER" : "", y + 14);
  size_t n = strlen(b->name);
  if (n > 44) {
    esc(f, "...");
    esc(f, b->name + n - 41);
  } else {
    esc(f, b->name);
  }
  fprintf(f, "</text><rect x=\"%d\" y=\"%.0f\" width=\"%.1f\" height=\"14\" fill=\"%s\"/>", LABEL_W, y + 3,
          w * frac(b->value, scale), over ? "#d32f2f" : "#5c8fd6");
  fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.0f\" y2=\"%.0f\" stroke=\"#222\" stroke-width=\"2\"/>",
          LABEL_W + w * frac(b->limit, scale), LABEL_W + w * frac(b->limit, scale), y + 1, y + 19);
  fprintf(f, "<text x=\"%.1f\" y=\"%.0f\">%s / %s</text></g>\n", LABEL_W + 4 + w * frac(b->value, scale), y + 14,
          human(v, sizeof v, b->value), human(l, sizeof l, b->limit));
}

/* The bars, the largest first; `more` are bars the document left out
 * (check's document for the page keeps the largest only). */
static void bars_svg(FILE *f, bar *bars, size_t n, size_t more) {
  qsort(bars, n, sizeof *bars, bar_desc);
  size_t shown = n < MAX_ROWS ? n : MAX_ROWS;
  uint64_t scale = 1;
  for (size_t i = 0; i < shown; i++) {
    scale = bars[i].value > scale ? bars[i].value : scale;
    scale = bars[i].limit > scale ? bars[i].limit : scale;
  }
  scale += scale / 4; /* room for the figures right of the longest bar */
  fprintf(f, "<svg id=\"scoped-bars\" width=\"%d\" height=\"%zu\" role=\"img\">\n", SVG_W, shown * ROW_H + 4);
  for (size_t i = 0; i < shown; i++)
    bar_row(f, &bars[i], i, scale);
  fputs("</svg>\n", f);
  if (n + more > shown)
    fprintf(f, "<p class=\"note\">%zu more not shown.</p>\n", n + more - shown);
  fputs("<p class=\"note\">A bar is the scoped VMEM, the black tick the limit it must fit; red bars are over.</p>\n",
        f);
}

/* ---- a kernel's stack: each allocation at its offset ------------------------ */

static const char *kind_colour(const char *kind) {
  return !strcmp(kind, "window")             ? "#5c8fd6"
         : !strcmp(kind, "scratch")          ? "#8e6bbf"
         : !strcmp(kind, "internal scratch") ? "#9aa5b1"
                                             : "#e0a030";
}

static void stack_marker(FILE *f, const char *label, uint64_t at, uint64_t scale, int y) {
  double x = 10 + (SVG_W - 20) * frac(at, scale);
  char b[32];
  fprintf(f,
          "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"20\" y2=\"78\" stroke=\"#222\" stroke-dasharray=\"4 2\"/>"
          "<text x=\"%.1f\" y=\"%d\" text-anchor=\"end\">%s %s</text>\n",
          x, x, x - 2, y, label, human(b, sizeof b, at));
}

static void stack_rect(FILE *f, const json_t *a, uint64_t scale) {
  const char *kind = jstr(a, "kind"), *who = *jstr(a, "operand") ? jstr(a, "operand") : jstr(a, "note");
  uint64_t off = jbytes(a, "offset"), bytes = jbytes(a, "bytes");
  fprintf(f,
          "<rect class=\"alloc\" x=\"%.1f\" y=\"30\" width=\"%.1f\" height=\"40\" fill=\"%s\" stroke=\"#fff\">"
          "<title>",
          10 + (SVG_W - 20) * frac(off, scale), (SVG_W - 20) * frac(bytes, scale), kind_colour(kind));
  esc(f, kind);
  fputs(" ", f);
  esc(f, who);
  fprintf(f, " x%" PRId64 ": ", (int64_t)json_integer_value(json_object_get(a, "buffers")));
  title_bytes(f, bytes);
  fprintf(f, " at offset %" PRIu64 "%s</title></rect>\n", off, jtrue(a, "exact") ? "" : " (modelled)");
  int64_t nbuf = (int64_t)json_integer_value(json_object_get(a, "buffers"));
  for (int64_t b = 1; b < nbuf && b < 16; b++) { /* each buffer of a window: a divider */
    double x = 10 + (SVG_W - 20) * frac(off + bytes / (uint64_t)nbuf * (uint64_t)b, scale);
    fprintf(f,
            "<line class=\"buffer\" x1=\"%.1f\" x2=\"%.1f\" y1=\"30\" y2=\"70\" stroke=\"#fff\" "
            "stroke-dasharray=\"3 2\"/>\n",
            x, x);
  }
  double w = (SVG_W - 20) * frac(bytes, scale);
  if (w > 7.0 * (double)strlen(who) + 6) { /* the name inside the segment when it fits */
    fprintf(f, "<text x=\"%.1f\" y=\"54\" fill=\"#fff\">", 13 + (SVG_W - 20) * frac(off, scale));
    esc(f, who);
    fputs("</text>\n", f);
  }
}

static void stack_legend(FILE *f) {
  static const char *const kinds[] = {"window", "scratch", "internal scratch", "modelled"};
  fputs("<p class=\"legend\">", f);
  for (size_t i = 0; i < 4; i++)
    fprintf(f, "<span style=\"display:inline-block;width:10px;height:10px;background:%s\"></span> %s%s ",
            kind_colour(kinds[i]), kinds[i], i < 2 ? " (exact)" : " (modelled)");
  fputs("</p>\n", f);
}

static void alloc_table(FILE *f, const json_t *allocs) {
  fputs("<table class=\"sortable allocs\"><thead><tr><th>kind</th><th>operand</th><th>block</th>"
        "<th class=\"n\">buffers</th><th class=\"n\">bytes</th><th class=\"n\">offset</th><th>figure</th></tr>"
        "</thead><tbody>\n",
        f);
  for (size_t i = 0; i < json_array_size(allocs); i++) {
    const json_t *a = json_array_get(allocs, i);
    char b[32];
    fputs("<tr><td>", f);
    esc(f, jstr(a, "kind"));
    fputs("</td><td>", f);
    esc(f, *jstr(a, "operand") ? jstr(a, "operand") : jstr(a, "note"));
    fputs("</td><td>", f);
    esc(f, jstr(a, "block"));
    fprintf(f,
            "</td><td class=\"n\">%" PRId64 "</td><td class=\"n\" data-v=\"%" PRIu64 "\">%s</td>"
            "<td class=\"n\">%" PRIu64 "</td><td>%s</td></tr>\n",
            (int64_t)json_integer_value(json_object_get(a, "buffers")), jbytes(a, "bytes"),
            human(b, sizeof b, jbytes(a, "bytes")), jbytes(a, "offset"),
            !strcmp(jstr(a, "kind"), "prefetched")
                ? (!strcmp(jstr(a, "role"), "output")
                       ? "program-scoped, written in place and in VMEM after the kernel (not in the scoped figure)"
                       : "program-scoped, in VMEM before the kernel and read in place (not in the scoped figure)")
            : jtrue(a, "exact") ? "exact"
                                : "<span class=\"model\">modelled</span>");
  }
  fputs("</tbody></table>\n", f);
}

static void remedies(FILE *f, const json_t *k) {
  const json_t *rm = json_object_get(k, "remedies");
  if (!rm)
    return;
  char b[32];
  /* At risk, the remedies make it fit at the ceiling (check's "to be sure of it"). */
  bool risk = !strcmp(jstr(k, "verdict"), "at_risk");
  fputs(risk ? "<h3>To be sure of it</h3><ul class=\"remedies\">\n" : "<h3>Remedies</h3><ul class=\"remedies\">\n", f);
  const json_t *sh = json_object_get(rm, "shrink");
  for (size_t i = 0; i < json_array_size(sh); i++) {
    const json_t *s = json_array_get(sh, i);
    fputs("<li>shrink ", f);
    esc(f, *jstr(s, "param") ? jstr(s, "param") : jstr(s, "operand"));
    fprintf(f, " from %" PRId64 " to %" PRId64 ": scoped %s</li>\n",
            (int64_t)json_integer_value(json_object_get(s, "from")),
            (int64_t)json_integer_value(json_object_get(s, "to")), human(b, sizeof b, jbytes(s, "scoped_bytes")));
  }
  fprintf(f, "<li>%s <code>vmem_limit_bytes=%" PRIu64 "</code>%s%s</li>\n",
          json_array_size(sh) ? "or request" : "request", jbytes(rm, "vmem_limit_bytes"),
          jtrue(rm, "at_ceiling") ? " (the body's values at their ceiling)" : "",
          jtrue(rm, "within_physical") ? " (within physical VMEM)" : " (beyond physical VMEM: not possible)");
  const json_t *b1 = json_object_get(rm, "buffered1");
  for (size_t i = 0; i < json_array_size(b1); i++) {
    fputs("<li>or single-buffer <code>", f);
    esc(f, json_string_value(json_array_get(b1, i)));
    fputs("</code> with <code>pipeline_mode=pl.Buffered(1)</code></li>\n", f);
  }
  fputs("</ul>\n", f);
}

/* One kernel: its stacked allocations against the limit and physical VMEM. */
/* check --compile's word on this kernel, under its heading: the real
 * compiler's figure beside the model's stack. */
static void compiler_line(FILE *f, const json_t *comp, const json_t *ce) {
  char a[32];
  if (!comp || !ce)
    return;
  const json_t *fig = json_object_get(ce, "figure_bytes");
  fprintf(f, "<p class=\"compiler%s\">The compiler (", json_is_false(json_object_get(ce, "agrees")) ? " over" : "");
  esc(f, jstr(comp, "libtpu_version"));
  fputs(", ", f);
  esc(f, jstr(comp, "topology"));
  if (json_is_integer(fig))
    fprintf(f, "): scoped VMEM %s (%" PRIu64 " bytes), %s the model's ceiling",
            human(a, sizeof a, jbytes(ce, "figure_bytes")), jbytes(ce, "figure_bytes"),
            jbytes(ce, "figure_bytes") <= jbytes(ce, "model_ceiling_bytes") ? "within" : "ABOVE");
  else {
    fputs("): ", f);
    esc(f, jstr(comp, "verdict"));
  }
  if (json_is_string(json_object_get(ce, "disagreement"))) {
    fputs(" &mdash; <b>disagreement: ", f);
    esc(f, jstr(ce, "disagreement"));
    fputs("</b>", f);
  }
  fputs("</p>\n", f);
}

/* The compiler's figure (check --compile) as a solid tick on the stack,
 * labelled from the tick rightwards, below the bar: the model's stack and the
 * compiler's number side by side. */
static void compiler_marker(FILE *f, uint64_t at, uint64_t scale) {
  double x = 10 + (SVG_W - 20) * frac(at, scale);
  char b[32];
  fprintf(f,
          "<line class=\"compiler\" x1=\"%.1f\" x2=\"%.1f\" y1=\"24\" y2=\"76\" stroke=\"#0d47a1\" "
          "stroke-width=\"3\"><title>the compiler's figure: %s</title></line>"
          "<text class=\"compiler\" x=\"%.1f\" y=\"86\" fill=\"#0d47a1\">compiler %s</text>\n",
          x, x, human(b, sizeof b, at), x + 3, b);
}

static void kernel_section(FILE *f, const json_t *k, uint64_t physical, const json_t *comp, const json_t *ce) {
  uint64_t stack = jbytes(k, "stack_bytes"), limit = jbytes(k, "limit_bytes");
  uint64_t figure = ce && json_is_integer(json_object_get(ce, "figure_bytes")) ? jbytes(ce, "figure_bytes") : 0;
  /* Scaled to the limit (or the stack when it is over), not to physical VMEM, so that a 4 MiB kernel under a
   * 32 MiB limit is no sliver on a 128 MiB axis; physical VMEM is marked where it falls within. */
  uint64_t scale = stack > limit ? stack : limit;
  scale = figure > scale ? figure : scale;
  scale += scale / 4;
  char s[32], l[32];
  fprintf(f, "<section class=\"kernel\" data-kernel=\"");
  esc(f, jstr(k, "name"));
  fputs("\"><h2>Kernel ", f);
  esc(f, jstr(k, "name"));
  /* The JSON's verdict as check's text words it: scoped VMEM's, then SMEM apart (smem_fits). */
  const char *v = jstr(k, "verdict");
  bool smem_over = json_is_false(json_object_get(k, "smem_fits"));
  fprintf(f, ": scoped %s of %s (%s limit) &mdash; %s</h2>\n", human(s, sizeof s, jbytes(k, "scoped_bytes")),
          human(l, sizeof l, limit), jstr(k, "limit_origin"),
          !strcmp(v, "e1001")          ? "<b class=\"verdict over\">DOES NOT FIT (E1001)</b>"
          : !strcmp(v, "likely_e1001") ? "<b class=\"verdict over\">likely E1001 (<span "
                                         "class=\"model\">modelled</span>: body values)</b>"
          : smem_over && !strcmp(v, "at_risk")
              ? "<b class=\"verdict over\">DOES NOT FIT in SMEM</b> (scoped VMEM: fits, at risk)"
          : smem_over             ? "<b class=\"verdict over\">DOES NOT FIT in SMEM</b> (scoped VMEM: fits)"
          : !strcmp(v, "at_risk") ? "<b class=\"verdict\">fits, at risk</b>"
                                  : "<b class=\"verdict ok\">fits</b>");
  compiler_line(f, comp, ce);
  if (jbytes(k, "smem_bytes"))
    fprintf(f, "<p class=\"smem%s\">SMEM (scalar prefetch and SMEM operands): %s of %s%s</p>\n",
            smem_over ? " over" : "", human(s, sizeof s, jbytes(k, "smem_bytes")),
            human(l, sizeof l, jbytes(k, "smem_capacity_bytes")),
            smem_over ? " &mdash; the compiler's &ldquo;Ran out of memory in memory space smem&rdquo;" : "");
  if (jbytes(k, "modelled_high_bytes")) /* the estimate and its ceiling (docs/kernels.md, "The ceiling") */
    fprintf(f,
            "<p class=\"model\">the body's values (modelled): %s estimated, %s at the model's ceiling; "
            "&ldquo;fits&rdquo; means it fits at the ceiling, &ldquo;at risk&rdquo; that only the estimate "
            "does</p>\n",
            human(s, sizeof s, jbytes(k, "modelled_bytes")), human(l, sizeof l, jbytes(k, "modelled_high_bytes")));
  fprintf(f, "<svg class=\"stack\" width=\"%d\" height=\"92\" role=\"img\">\n", SVG_W);
  const json_t *allocs = json_object_get(k, "allocations");
  for (size_t i = 0; i < json_array_size(allocs); i++)
    if (strcmp(jstr(json_array_get(allocs, i), "kind"), "prefetched")) /* program-scoped: not on the stack */
      stack_rect(f, json_array_get(allocs, i), scale);
  stack_marker(f, "limit", limit, scale, 14);
  if (figure)
    compiler_marker(f, figure, scale);
  if (physical && physical <= scale)
    stack_marker(f, "physical VMEM", physical, scale, 90);
  else if (physical)
    fprintf(f,
            "<text class=\"physical\" x=\"%d\" y=\"90\" text-anchor=\"end\">physical VMEM %s &rarr; (off the "
            "scale)</text>\n",
            SVG_W - 10, human(s, sizeof s, physical));
  fputs("</svg>\n", f);
  stack_legend(f);
  alloc_table(f, allocs);
  remedies(f, k);
  fputs("</section>\n", f);
}

/* ---- program-scoped VMEM over schedule time --------------------------------- */

static bool live_at(const json_t *b, uint64_t t) { return jbytes(b, "start") <= t && t <= jbytes(b, "end"); }

static void timeline_rect(FILE *f, const json_t *b, double xs, double ys, int h) {
  uint64_t st = jbytes(b, "start"), en = jbytes(b, "end"), off = jbytes(b, "offset"), by = jbytes(b, "bytes");
  fprintf(f,
          "<rect class=\"buf\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#5c8fd6\" "
          "fill-opacity=\"0.75\" stroke=\"#1d4f91\" stroke-width=\"0.5\"><title>",
          40 + xs * (double)st, h - 20 - ys * (double)(off + by), xs * (double)(en - st + 1), ys * (double)by);
  esc(f, jstr(b, "name"));
  fputs(": ", f);
  title_bytes(f, by);
  fprintf(f, ", steps %" PRIu64 "..%" PRIu64 ", offset %" PRIu64 "</title></rect>\n", st, en, off);
}

static void timeline_svg(FILE *f, const json_t *p) {
  const json_t *bufs = json_object_get(p, "buffers");
  uint64_t steps = jbytes(p, "schedule_length"), peak_t = jbytes(p, "peak_time"), cap = jbytes(p, "capacity_bytes");
  uint64_t top = jbytes(p, "used_bytes") > cap ? jbytes(p, "used_bytes") : cap;
  const int h = 320;
  double xs = (SVG_W - 60) / (double)(steps ? steps : 1), ys = (h - 40) / (double)(top ? top : 1);
  char b[32];
  fprintf(f, "<svg id=\"timeline\" width=\"%d\" height=\"%d\" role=\"img\">\n", SVG_W, h);
  const json_t *resv = json_object_get(p, "reservations");
  for (size_t i = 0; i < json_array_size(resv) && i < MAX_RECTS; i++) {
    const json_t *v = json_array_get(resv, i);
    uint64_t st = jbytes(v, "start"), en = jbytes(v, "end"), by = jbytes(v, "bytes");
    fprintf(f,
            "<rect class=\"reservation\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
            "fill=\"#f3e5c0\"><title>%s",
            40 + xs * (double)st, h - 20 - ys * (double)by, xs * (double)(en - st + 1), ys * (double)by,
            st == en ? "scoped reservation of " : "scoped reservations, the first of ");
    esc(f, jstr(v, "instruction"));
    fputs(": ", f);
    title_bytes(f, by);
    fprintf(f, " at offset 0, steps %" PRIu64 "..%" PRIu64 "</title></rect>\n", st, en);
  }
  for (size_t i = 0; i < json_array_size(bufs) && i < MAX_RECTS; i++)
    timeline_rect(f, json_array_get(bufs, i), xs, ys, h);
  double px = 40 + xs * ((double)peak_t + 0.5), cy = h - 20 - ys * (double)cap;
  fprintf(f,
          "<line id=\"peak\" x1=\"%.1f\" x2=\"%.1f\" y1=\"10\" y2=\"%d\" stroke=\"#c62828\" stroke-width=\"2\">"
          "<title>peak at step %" PRIu64 "</title></line><text x=\"%.1f\" y=\"10\" fill=\"#c62828\">peak, step %" PRIu64
          "</text>\n",
          px, px, h - 20, peak_t, px + 3, peak_t);
  fprintf(f,
          "<line x1=\"40\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#222\" stroke-dasharray=\"6 3\"/>"
          "<text x=\"44\" y=\"%.1f\">physical VMEM %s</text>\n",
          SVG_W - 20, cy, cy, cy - 3, human(b, sizeof b, cap));
  fprintf(f,
          "<line x1=\"40\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"#888\"/><text x=\"40\" y=\"%d\">step 0</text>"
          "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">step %" PRIu64 "</text>\n",
          SVG_W - 20, h - 20, h - 20, h - 6, SVG_W - 20, h - 6, steps ? steps - 1 : 0);
  fputs("</svg>\n", f);
}

static int by_bytes(const void *a, const void *b) {
  uint64_t x = jbytes(*(json_t *const *)a, "bytes"), y = jbytes(*(json_t *const *)b, "bytes");
  return x < y ? 1 : x > y ? -1 : 0;
}

static uint64_t waste(const json_t *b) { return jbytes(b, "bytes") - jbytes(b, "unpadded_bytes"); }

static int by_waste(const void *a, const void *b) {
  uint64_t x = waste(*(json_t *const *)a), y = waste(*(json_t *const *)b);
  return x < y ? 1 : x > y ? -1 : 0;
}

static void peak_table(FILE *f, const char *id, json_t **live, size_t n) {
  fprintf(f,
          "<table class=\"sortable\" id=\"%s\"><thead><tr><th>buffer</th><th class=\"n\">bytes</th>"
          "<th class=\"n\">unpadded</th><th class=\"n\">padding</th><th class=\"n\">expansion</th>"
          "<th class=\"n\">steps</th></tr></thead><tbody>\n",
          id);
  for (size_t i = 0; i < n && i < MAX_ROWS; i++) {
    const json_t *b = live[i];
    uint64_t by = jbytes(b, "bytes"), un = jbytes(b, "unpadded_bytes");
    char x[32], y[32], z[32];
    fputs("<tr><td>", f);
    esc(f, jstr(b, "name"));
    fprintf(f,
            "</td><td class=\"n\" data-v=\"%" PRIu64 "\">%s</td><td class=\"n\" data-v=\"%" PRIu64 "\">%s</td>"
            "<td class=\"n\" data-v=\"%" PRIu64 "\">%s</td><td class=\"n\">%.1fx</td><td class=\"n\">%" PRIu64
            "..%" PRIu64 "</td></tr>\n",
            by, human(x, sizeof x, by), un, human(y, sizeof y, un), by - un, human(z, sizeof z, by - un),
            un ? (double)by / (double)un : 1.0, jbytes(b, "start"), jbytes(b, "end"));
  }
  fputs("</tbody></table>\n", f);
}

static void program_section(FILE *f, const json_t *p) {
  const json_t *bufs = json_object_get(p, "buffers");
  char a[32], b[32], c[32], d[32];
  bool fits = jtrue(p, "fits");
  fputs("<section id=\"program\"><h2>Program-scoped VMEM over the schedule</h2>\n<div class=\"cards\">", f);
  card(f, fits ? "ok" : "over", "used (heap + scoped reservation)", human(a, sizeof a, jbytes(p, "used_bytes")));
  card(f, "", "physical VMEM", human(b, sizeof b, jbytes(p, "capacity_bytes")));
  card(f, "", "packed heap", human(c, sizeof c, jbytes(p, "peak_bytes")));
  card(f, "", "peak live (lower bound)", human(d, sizeof d, jbytes(p, "lower_bound_bytes")));
  fputs("</div>\n", f);
  if (!fits)
    fprintf(f,
            "<p class=\"diag over\"><b>Does not fit:</b> %s over physical VMEM (the compiler's &lsquo;Ran out of "
            "memory in memory space vmem. Used X of Y vmem&rsquo;). Move values out of S(1), or lower the scoped "
            "limits of the instructions whose reservation is largest.</p>\n",
            human(a, sizeof a, jbytes(p, "used_bytes") - jbytes(p, "capacity_bytes")));
  if (!json_array_size(bufs)) {
    fputs("<p class=\"note\">No value is laid out in S(1): the program's VMEM is the largest scoped reservation "
          "alone.</p></section>\n",
          f);
    return;
  }
  timeline_svg(f, p);
  fprintf(f,
          "<p class=\"note\">x: schedule step; y: VMEM offset. Each rectangle is a memory-space-1 value placed by "
          "best-fit packing (exact sizes, <span class=\"model\">modelled</span> placement); shaded from offset 0, each "
          "step's scoped reservation%s.</p>\n",
          jtrue(p, "scoped_in_heap") ? " (drawn by its size: on this target it is packed beside the values, and the "
                                       "values' offsets are theirs in that packing)"
                                     : "");
  size_t n = 0;
  json_t **live = malloc((json_array_size(bufs) + 1) * sizeof *live);
  for (size_t i = 0; live && i < json_array_size(bufs); i++)
    if (live_at(json_array_get(bufs, i), jbytes(p, "peak_time")))
      live[n++] = json_array_get(bufs, i);
  fprintf(f, "<h3>Live at the peak (step %" PRIu64 "), by size</h3>\n", jbytes(p, "peak_time"));
  if (live)
    qsort(live, n, sizeof *live, by_bytes);
  peak_table(f, "peak-by-size", live, n);
  fputs("<h3>Live at the peak, by padding waste</h3>\n", f);
  if (live)
    qsort(live, n, sizeof *live, by_waste);
  peak_table(f, "peak-by-waste", live, n);
  free(live);
  fputs("</section>\n", f);
}

/* ---- documents -------------------------------------------------------------- */

/* A section of bars; `none` when there are none. Frees the bars. */
static void bars_section(FILE *f, const char *title, bar *bars, size_t n, size_t more, const char *none) {
  fprintf(f, "<section id=\"scoped\"><h2>%s</h2>\n", title);
  if (n)
    bars_svg(f, bars, n, more);
  else if (none)
    fprintf(f, "<p class=\"note\">%s</p>\n", none);
  fputs("</section>\n", f);
  free(bars);
}

static bar kernel_bar(const char *name, const json_t *k) {
  return (bar){name, "kernel, exact", jbytes(k, "scoped_bytes"), jbytes(k, "limit_bytes")};
}

/* The kernel objects of a document's items (HLO instructions, StableHLO
 * ops), each `kernel` that could be sized; malloc'd, NULL when none. */
static const json_t **kernels_of(const json_t **items, size_t n, size_t *nk) {
  const json_t **ks = malloc((n + 1) * sizeof *ks);
  *nk = 0;
  for (size_t i = 0; ks && i < n; i++) {
    const json_t *k = json_object_get(items[i], "kernel");
    if (k && json_object_get(k, "allocations"))
      ks[(*nk)++] = k;
  }
  return ks;
}

/* Every instruction of every computation, in order; malloc'd. */
static const json_t **instructions_of(const json_t *doc, size_t *n) {
  const json_t *comps = json_object_get(doc, "computations");
  size_t cap = 0;
  for (size_t c = 0; c < json_array_size(comps); c++)
    cap += json_array_size(json_object_get(json_array_get(comps, c), "instructions"));
  const json_t **all = malloc((cap + 1) * sizeof *all);
  *n = 0;
  for (size_t c = 0; all && c < json_array_size(comps); c++) {
    const json_t *ins = json_object_get(json_array_get(comps, c), "instructions");
    for (size_t i = 0; i < json_array_size(ins); i++)
      all[(*n)++] = json_array_get(ins, i);
  }
  return all;
}

/* An instruction's scoped figure: its kernel's (exact), the compiler's
 * used one, or the model's minimum when that is over the limit. */
static bool instruction_bar(const json_t *in, bar *out) {
  const json_t *k = json_object_get(in, "kernel"), *sm = json_object_get(in, "scoped_model");
  if (k && json_object_get(k, "scoped_bytes"))
    *out = kernel_bar(jstr(in, "name"), k);
  else if (json_is_integer(json_object_get(in, "used_scoped_bytes")) && jbytes(in, "vmem_limit_bytes"))
    *out = (bar){jstr(in, "name"), "the compiler's used figure", jbytes(in, "used_scoped_bytes"),
                 jbytes(in, "vmem_limit_bytes")};
  else if (jtrue(sm, "likely_compiler_oom"))
    *out = (bar){jstr(in, "name"), "modelled minimum", jbytes(sm, "min_bytes"), jbytes(sm, "limit_bytes")};
  else
    return false;
  return true;
}

/* Standard ops whose modelled minimum exceeds their limit. */
static void hlo_diagnostics(FILE *f, const json_t **ins, size_t n) {
  bool any = false;
  for (size_t i = 0; i < n; i++) {
    const json_t *sm = json_object_get(ins[i], "scoped_model");
    if (!jtrue(sm, "likely_compiler_oom"))
      continue;
    char a[32], b[32];
    if (!any)
      fputs("<section id=\"diagnostics\"><h2>Likely compiler-side OOM (modelled)</h2>\n<ul class=\"diag\">\n", f);
    any = true;
    fputs("<li><code>%", f);
    esc(f, jstr(ins[i], "name"));
    fputs("</code> (", f);
    esc(f, jstr(ins[i], "opcode"));
    fprintf(f, ", rule %s): needs at least %s of scoped VMEM against its limit %s</li>\n", jstr(sm, "rule"),
            human(a, sizeof a, jbytes(sm, "min_bytes")), human(b, sizeof b, jbytes(sm, "limit_bytes")));
  }
  if (any)
    fputs("</ul>\n<p>A standard op the compiler cannot fit is the compiler's to fix: report it with "
          "<code>vmemscope repro</code> and the compiler's error; a larger "
          "<code>--xla_tpu_scoped_vmem_limit_kib</code> may let it compile meanwhile.</p></section>\n",
          f);
}

static uint64_t likely_of(const json_t *in) { return jbytes(json_object_get(in, "scoped_model"), "likely_bytes"); }

/* A table row and its place in the document: ties keep document order, as
 * check's table does, whatever subset of the rows the document holds. */
typedef struct ranked {
  const json_t *in;
  uint64_t likely;
  size_t at;
} ranked;

static int by_likely(const void *a, const void *b) {
  const ranked *x = a, *y = b;
  if (x->likely != y->likely)
    return x->likely < y->likely ? 1 : -1;
  return (x->at > y->at) - (x->at < y->at);
}

static void bytes_cell(FILE *f, uint64_t v) {
  char b[32];
  fprintf(f, "<td class=\"n\" data-v=\"%" PRIu64 "\">%s</td>", v, human(b, sizeof b, v));
}

/* The standard ops that stream through scoped VMEM, by the model's choice:
 * the least, the choice, the whole, the limit, and the compiler's own
 * figure where the text has it (check prints the same, five rows). */
static void model_table(FILE *f, const json_t **ins, size_t n) {
  ranked *rows = malloc((n + 1) * sizeof *rows);
  size_t m = 0;
  for (size_t i = 0; rows && i < n; i++)
    if (jbytes(json_object_get(ins[i], "scoped_model"), "whole_bytes"))
      rows[m++] = (ranked){ins[i], likely_of(ins[i]), i};
  if (m) {
    qsort(rows, m, sizeof *rows, by_likely);
    fputs("<section id=\"models\"><h2>Standard ops, modelled</h2>\n<p>The least scoped VMEM each op needs and the "
          "choice above it, as vmemscope models the compiler (docs/program.md): a model, not the compiler's figure, "
          "which is shown where the dump carries it.</p>\n<table class=\"sortable\" id=\"model-table\"><thead><tr>"
          "<th>instruction</th><th>rule</th><th class=\"n\">least</th><th class=\"n\">likely</th>"
          "<th class=\"n\">whole</th><th class=\"n\">limit</th><th class=\"n\">compiler's</th></tr></thead><tbody>\n",
          f);
  }
  for (size_t i = 0; i < m && i < MAX_ROWS; i++) {
    const json_t *in = rows[i].in, *sm = json_object_get(in, "scoped_model");
    fputs("<tr><td>", f);
    esc(f, jstr(in, "name"));
    fputs("</td><td>", f);
    esc(f, jstr(sm, "rule"));
    fputs("</td>", f);
    bytes_cell(f, jbytes(sm, "min_bytes"));
    bytes_cell(f, jbytes(sm, "likely_bytes"));
    bytes_cell(f, jbytes(sm, "whole_bytes"));
    bytes_cell(f, jbytes(sm, "limit_bytes"));
    if (json_is_integer(json_object_get(in, "used_scoped_bytes")))
      bytes_cell(f, jbytes(in, "used_scoped_bytes"));
    else
      fputs("<td class=\"n\">-</td>", f);
    fputs("</tr>\n", f);
  }
  if (m)
    fputs("</tbody></table></section>\n", f);
  free(rows);
}

/* The bars of a list of kernels, then each kernel's section. */
/* The compiler's entry for a kernel (check --compile's "kernels", in the
 * module's order): the first not yet taken with its name. */
static const json_t *compiler_entry(const json_t *comp, const json_t *k, bool *taken) {
  const json_t *list = json_object_get(comp, "kernels");
  for (size_t j = 0; taken && j < json_array_size(list); j++)
    if (!taken[j] && !strcmp(jstr(json_array_get(list, j), "kernel"), jstr(k, "name"))) {
      taken[j] = true;
      return json_array_get(list, j);
    }
  return NULL;
}

/* What the compiler said of the whole module (check --compile). */
static void compiler_section(FILE *f, const json_t *comp) {
  fputs("<section class=\"compiler\"><h2>The compiler's answer</h2>\n<p>", f);
  esc(f, jstr(comp, "libtpu_version"));
  fputs(", compiled ahead of time for ", f);
  esc(f, jstr(comp, "topology"));
  fprintf(f, ": <b>%s</b> in %.2f s (the model: %.1f ms).", jstr(comp, "verdict"),
          json_number_value(json_object_get(comp, "seconds")),
          1e3 * json_number_value(json_object_get(comp, "model_seconds")));
  if (jbytes(comp, "disagreements"))
    fprintf(f, " <b class=\"verdict over\">%" PRIu64 " disagreement(s) with the model: the compiler's word stands.</b>",
            jbytes(comp, "disagreements"));
  fputs("</p>\n", f);
  if (json_is_string(json_object_get(comp, "error"))) {
    fputs("<pre class=\"compiler-error\">", f);
    esc(f, jstr(comp, "error"));
    fputs("</pre>\n", f);
  }
  fputs("</section>\n", f);
}

static void kernels_report(FILE *f, const char *title, const json_t **ks, size_t n, uint64_t physical,
                           const json_t *comp) {
  bar *bars = malloc((n + 1) * sizeof *bars);
  for (size_t i = 0; bars && i < n; i++)
    bars[i] = kernel_bar(jstr(ks[i], "name"), ks[i]);
  bars_section(f, title, bars, bars ? n : 0, 0, "No tpu_custom_call with a readable kernel.");
  if (comp)
    compiler_section(f, comp);
  bool *taken = comp ? calloc(json_array_size(json_object_get(comp, "kernels")) + 1, sizeof *taken) : NULL;
  for (size_t i = 0; i < n; i++)
    kernel_section(f, ks[i], physical, comp, comp ? compiler_entry(comp, ks[i], taken) : NULL);
  free(taken);
}

static void hlo_doc(FILE *f, const json_t *doc, uint64_t physical) {
  size_t n = 0, nb = 0, nk = 0;
  const json_t **ins = instructions_of(doc, &n), **ks = ins ? kernels_of(ins, n, &nk) : NULL;
  bar *bars = malloc((n + 1) * sizeof *bars);
  for (size_t i = 0; bars && ins && i < n; i++)
    nb += instruction_bar(ins[i], &bars[nb]);
  bars_section(f, "Scoped VMEM per instruction", bars, nb, (size_t)jbytes(doc, "omitted_bars"),
               "No instruction carries a Pallas kernel or a used scoped figure.");
  if (ins) {
    hlo_diagnostics(f, ins, n);
    model_table(f, ins, n);
  }
  for (size_t i = 0; ks && i < nk; i++)
    kernel_section(f, ks[i], physical, NULL, NULL);
  free(ks);
  free(ins);
  if (json_object_get(doc, "program"))
    program_section(f, json_object_get(doc, "program"));
}

/* An array's items as a C array, for the helpers above; malloc'd. */
static const json_t **items_of(const json_t *arr, size_t *n) {
  *n = json_array_size(arr);
  const json_t **out = malloc((*n + 1) * sizeof *out);
  for (size_t i = 0; out && i < *n; i++)
    out[i] = json_array_get(arr, i);
  return out;
}

/* A kernel document, StableHLO (each tpu_custom_call's kernel), or HLO. */
static void check_doc(FILE *f, const json_t *doc, uint64_t physical) {
  const json_t *ks = json_object_get(doc, "kernels"), *ops = json_object_get(doc, "ops");
  if (!ks && !ops) {
    hlo_doc(f, doc, physical);
    return;
  }
  size_t n = 0, nk = 0;
  const json_t **items = items_of(ks ? ks : ops, &n), **kernels = items && ops ? kernels_of(items, n, &nk) : NULL;
  const json_t *comp = json_object_get(doc, "compiler");
  if (ks)
    kernels_report(f, "Scoped VMEM per kernel", items, items ? n : 0, physical, NULL);
  else
    kernels_report(f, "Scoped VMEM per Pallas kernel", kernels, kernels ? nk : 0, physical, comp);
  free(kernels);
  free(items);
}

/* A figure of an explain error: its bytes, or "unknown" when the log does not say (never "0B"). */
static const char *figure(char *buf, size_t cap, const json_t *e, const char *key) {
  const json_t *v = json_object_get(e, key);
  return json_is_integer(v) ? human(buf, cap, (uint64_t)json_integer_value(v)) : "unknown";
}

static void explain_sizes(FILE *f, const json_t *e) {
  char a[32], b[32], c[32];
  if (json_is_integer(json_object_get(e, "limit_bytes")) || json_is_integer(json_object_get(e, "size_bytes")))
    fprintf(f, "%s of limit %s", figure(a, sizeof a, e, "size_bytes"), figure(b, sizeof b, e, "limit_bytes"));
  else
    fprintf(f, "used %s of %s", figure(a, sizeof a, e, "used_bytes"), figure(b, sizeof b, e, "capacity_bytes"));
  if (json_is_integer(json_object_get(e, "excess_bytes")))
    fprintf(f, "; excess %s", figure(c, sizeof c, e, "excess_bytes"));
  const json_t *d = json_object_get(e, "derived");
  for (size_t i = 0; i < json_array_size(d); i++) {
    fputs(i ? ", " : " (derived, the log lacks it: ", f);
    esc(f, json_string_value(json_array_get(d, i)));
    fputs(i + 1 == json_array_size(d) ? ")" : "", f);
  }
}

/* The listing the log printed, each entry's size checked against vmemscope's. */
static void explain_listing(FILE *f, const json_t *e) {
  const json_t *al = json_object_get(e, "allocations");
  if (!json_array_size(al))
    return;
  char a[32], b[32];
  fprintf(f, "<table class=\"listing\"><tr><th>#</th><th>size</th><th>shape</th><th>unpadded</th><th>recomputed</th>"
             "<th>type</th><th>label</th></tr>\n");
  for (size_t i = 0; i < json_array_size(al); i++) {
    const json_t *x = json_array_get(al, i);
    const json_t *ag = json_object_get(x, "agrees");
    fprintf(f, "<tr><td>%zu</td><td>%s</td><td><code>", i + 1, figure(a, sizeof a, x, "size_bytes"));
    esc(f, jstr(x, "shape"));
    fprintf(f, "</code></td><td>%s</td><td>%s</td><td>", figure(b, sizeof b, x, "unpadded_bytes"),
            json_is_true(ag)    ? "agrees"
            : json_is_false(ag) ? "DISAGREES"
                                : "-");
    esc(f, jstr(x, "allocation_type"));
    fputs("</td><td>", f);
    esc(f, jstr(x, "label"));
    fputs("</td></tr>\n", f);
  }
  fprintf(f, "</table>%s\n", jtrue(e, "listing_cut") ? "<p>The log is cut inside the last entry.</p>" : "");
}

/* The remedies explain gives: a scoped error's numbers, or the list a
 * program-wide error's text prints. */
static void explain_remedies(FILE *f, const json_t *e) {
  const json_t *rs = json_object_get(e, "remedies");
  fputs("<ul class=\"remedies\">\n", f);
  for (size_t i = 0; i < json_array_size(rs); i++) {
    const json_t *r = json_array_get(rs, i);
    if (json_is_string(json_object_get(r, "text"))) {
      fputs("<li>", f);
      esc(f, jstr(r, "text"));
      fputs("</li>\n", f);
    } else if (json_is_false(json_object_get(r, "limit_can_help"))) {
      fprintf(f,
              "<li>shrink blocks by %.2fx: no limit can help, the size exceeds every generation's physical "
              "VMEM</li>\n",
              json_number_value(json_object_get(r, "shrink_factor")));
    } else {
      fprintf(f,
              "<li>request <code>vmem_limit_bytes=%" PRIu64 "</code> or "
              "<code>--xla_tpu_scoped_vmem_limit_kib=%" PRIu64 "</code>; or shrink blocks by %.2fx%s</li>\n",
              jbytes(r, "vmem_limit_bytes"), jbytes(r, "xla_tpu_scoped_vmem_limit_kib"),
              json_number_value(json_object_get(r, "shrink_factor")),
              jtrue(r, "likely_compiler_bug") ? "; likely a compiler bug: report it with the HLO dump" : "");
    }
  }
  fputs("</ul>\n", f);
}

/* "read from quoted, html text; printed by 4 hosts: ..." */
static void explain_provenance(FILE *f, const json_t *e) {
  const json_t *forms = json_object_get(e, "source_form"), *hosts = json_object_get(e, "hosts");
  if (!json_array_size(forms) && !json_array_size(hosts))
    return;
  fputs("<p class=\"note\">", f);
  for (size_t i = 0; i < json_array_size(forms); i++) {
    fputs(i ? ", " : "Read from ", f);
    esc(f, json_string_value(json_array_get(forms, i)));
  }
  if (json_array_size(forms))
    fputs(" text. ", f);
  for (size_t i = 0; i < json_array_size(hosts); i++) {
    if (!i)
      fprintf(f, "Printed by %" PRIu64 " hosts: ", jbytes(e, "host_count"));
    fputs(i ? ", " : "", f);
    esc(f, json_string_value(json_array_get(hosts, i)));
  }
  fputs("</p>\n", f);
}

static void explain_error(FILE *f, const json_t *e) {
  fputs("<div class=\"diag\"><h3>", f);
  esc(f, jstr(e, "kind"));
  fputs(": ", f);
  esc(f, *jstr(e, "instruction") ? jstr(e, "instruction") : "(no instruction named)");
  fputs("</h3><p>", f);
  esc(f, jstr(e, "file"));
  fputs(": ", f);
  explain_sizes(f, e);
  fprintf(f, ". Custom kernel: %s",
          json_is_true(json_object_get(e, "custom_kernel"))    ? "yes"
          : json_is_false(json_object_get(e, "custom_kernel")) ? "no"
                                                               : "cannot tell");
  fputs(" (", f);
  esc(f, jstr(e, "evidence"));
  fputs(").</p>\n", f);
  explain_provenance(f, e);
  explain_listing(f, e);
  explain_remedies(f, e);
  fputs("</div>\n", f);
}

static void explain_doc(FILE *f, const json_t *doc) {
  const json_t *es = json_object_get(doc, "errors");
  bar *bars = malloc((json_array_size(es) + 1) * sizeof *bars);
  size_t n = 0;
  for (size_t i = 0; bars && i < json_array_size(es); i++) {
    const json_t *e = json_array_get(es, i);
    if (jbytes(e, "size_bytes") && jbytes(e, "limit_bytes"))
      bars[n++] = (bar){*jstr(e, "instruction") ? jstr(e, "instruction") : jstr(e, "kind"), "as the log prints it",
                        jbytes(e, "size_bytes"), jbytes(e, "limit_bytes")};
  }
  bars_section(f, "Scoped VMEM the log reports", bars, n, 0, NULL);
  fputs("<section id=\"diagnostics\"><h2>Diagnostics and remedies</h2>\n", f);
  for (size_t i = 0; i < json_array_size(es); i++)
    explain_error(f, json_array_get(es, i));
  if (!json_array_size(es))
    fputs("<p>No TPU compiler memory error found in the log.</p>\n", f);
  fputs("</section>\n", f);
}

/* ---- fit: the Pareto front of footprint against predicted time -------------- */

static void params_html(FILE *f, const json_t *c) {
  const char *key;
  json_t *v;
  json_object_foreach((json_t *)json_object_get(c, "params"), key, v) {
    esc(f, key);
    fprintf(f, "=%" PRId64 " ", (int64_t)json_integer_value(v));
  }
}

static void fit_row(FILE *f, const json_t *c) {
  char b[32], t[32];
  double s = json_number_value(json_object_get(c, "time_s"));
  fputs("<tr><td>", f);
  params_html(f, c);
  fprintf(f,
          "</td><td class=\"n\" data-v=\"%" PRIu64 "\">%s</td><td class=\"n\" data-v=\"%.9g\">%s</td>"
          "<td>%s</td></tr>\n",
          jbytes(c, "needed_bytes"), human(b, sizeof b, jbytes(c, "needed_bytes")), s, cli_seconds(t, sizeof t, s),
          jstr(c, "bound"));
}

/* The front as a plot: VMEM needed across (up to the limit, drawn as a
 * line), modelled time up a log scale, the best candidate marked; each
 * point names its parameters on hover (its <title>). */
static void fit_plot(FILE *f, json_t *const *front, size_t n, const json_t *best, uint64_t limit) {
  enum { W = 640, H = 300, PAD = 48 };
  double tmin = 1e300, tmax = 0, xmax = (double)limit;
  for (size_t i = 0; i < n; i++) {
    double t = json_number_value(json_object_get(front[i], "time_s"));
    tmin = t < tmin ? t : tmin;
    tmax = t > tmax ? t : tmax;
    xmax = (double)jbytes(front[i], "needed_bytes") > xmax ? (double)jbytes(front[i], "needed_bytes") : xmax;
  }
  if (!n || tmin <= 0 || xmax <= 0)
    return;
  double lo = log10(tmin), span = log10(tmax) - lo > 1e-9 ? log10(tmax) - lo : 1;
  char a[32], b[32];
  fprintf(f, "<svg id=\"pareto-plot\" width=\"%d\" height=\"%d\" role=\"img\">\n", W + PAD, H + PAD);
  fprintf(f,
          "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#5b6673\"/>"
          "<line x1=\"%d\" y1=\"0\" x2=\"%d\" y2=\"%d\" stroke=\"#5b6673\"/>\n",
          PAD, H, PAD + W, H, PAD, PAD, H);
  double lx = PAD + (double)limit / xmax * (W - 10);
  fprintf(f,
          "<line class=\"limit\" x1=\"%.1f\" y1=\"0\" x2=\"%.1f\" y2=\"%d\" stroke=\"#c0392b\" "
          "stroke-dasharray=\"4 3\"/><text x=\"%.1f\" y=\"12\" text-anchor=\"end\">limit %s</text>\n",
          lx, lx, H, lx - 4, human(a, sizeof a, limit));
  for (size_t i = 0; i < n; i++) {
    double t = json_number_value(json_object_get(front[i], "time_s"));
    double x = PAD + (double)jbytes(front[i], "needed_bytes") / xmax * (W - 10);
    double y = H - 8 - (log10(t) - lo) / span * (H - 24);
    bool is_best = best && json_equal(front[i], best); /* the front is its own array: equal, not the same object */
    fprintf(f, "<circle class=\"pt%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"%d\" fill=\"%s\" data-params=\"",
            is_best ? " best" : "", x, y, is_best ? 6 : 4, is_best ? "#1e8449" : "#2e86c1");
    params_html(f, front[i]);
    fputs("\"><title>", f);
    params_html(f, front[i]);
    fprintf(f, ": %s, %s</title></circle>\n", human(a, sizeof a, jbytes(front[i], "needed_bytes")),
            cli_seconds(b, sizeof b, t));
  }
  fprintf(f,
          "<text x=\"%d\" y=\"%d\">VMEM needed &rarr;</text><text x=\"4\" y=\"12\">time (log)</text>"
          "</svg>\n<p class=\"note\">Each point is a candidate on the front; the green one is the fastest that fits "
          "(the best); the dashed line is the limit. Hover a point for its parameters.</p>\n",
          PAD + W / 2, H + 30);
}

/* The front is fit's (its JSON's pareto_front: decided in the library,
 * the one fit's text prints), over every candidate that fits. */
static void fit_doc(FILE *f, const json_t *doc) {
  const json_t *cands = json_object_get(doc, "candidates"), *pf = json_object_get(doc, "pareto_front");
  size_t n = json_array_size(pf);
  json_t **front = malloc((n + 1) * sizeof *front);
  for (size_t i = 0; front && i < n; i++)
    front[i] = json_array_get(pf, i);
  n = front ? n : 0;
  fprintf(f,
          "<section id=\"fit\"><h2>Block sizes that fit: the Pareto front</h2>\n<p>%" PRIu64 " candidates "
          "considered, %" PRIu64 " fit; these %zu are not beaten on both footprint and "
          "<span class=\"model\">modelled</span> time by any that fits.</p>\n",
          jbytes(doc, "considered"), jbytes(doc, "fitting"), n);
  fit_plot(f, front, n, json_array_get(cands, 0), jbytes(doc, "limit_bytes"));
  fputs("<table class=\"sortable\" id=\"pareto\"><thead><tr><th>params</th><th class=\"n\">needed</th>"
        "<th class=\"n\">time (modelled)</th><th>bound</th></tr></thead><tbody>\n",
        f);
  for (size_t i = 0; i < n; i++)
    fit_row(f, front[i]);
  fputs("</tbody></table></section>\n", f);
  free(front);
}

/* ---- the page --------------------------------------------------------------- */

/* How many standard ops the model flags (check's warning, not its exit status). */
static size_t flagged(const json_t *doc) {
  size_t n = 0, k = 0;
  const json_t **ins = instructions_of(doc, &n);
  for (size_t i = 0; ins && i < n; i++)
    k += jtrue(json_object_get(ins[i], "scoped_model"), "likely_compiler_oom");
  free(ins);
  return k;
}

static void verdict_cards(FILE *f, const report_docs *d, int status) {
  const json_t *p = d->check ? json_object_get(d->check, "program") : NULL;
  size_t warn = d->check ? flagged(d->check) : 0;
  fputs("<div class=\"cards\" id=\"verdict\">", f);
  card(f,
       status == EXIT_OOM ? "over"
       : warn             ? "warn"
                          : "ok",
       "verdict",
       status == EXIT_OOM ? "out of VMEM"
       : d->explain       ? "log explained"
       : warn             ? "likely compiler-side OOM"
                          : "fits");
  if (p) {
    char b[32];
    card(f, jtrue(p, "fits") ? "ok" : "over", "program-scoped used", human(b, sizeof b, jbytes(p, "used_bytes")));
  }
  fputs("</div>\n", f);
}

void report_html(FILE *f, const report_docs *d, int status) {
  const char *name = d->check ? jstr(d->check, "module") : "";
  const json_t *ks = d->check ? json_object_get(d->check, "kernels") : NULL;
  if (!*name && ks)
    name = jstr(json_array_get(ks, 0), "name");
  char title[512], sub[512];
  snprintf(title, sizeof title, "VMEM report: %s", *name ? name : d->input);
  snprintf(sub, sizeof sub, "%s, target %s", d->input, d->target);
  page_open(f, title, sub);
  verdict_cards(f, d, status);
  if (d->check)
    check_doc(f, d->check, d->physical);
  if (d->explain)
    explain_doc(f, d->explain);
  if (d->fit)
    fit_doc(f, d->fit);
  page_close(f);
}
