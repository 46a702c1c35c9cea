/*
 * explain.c — TPU compiler memory errors read out of any log.
 *
 * A log may be hundreds of MB; the errors are a few lines. So the whole
 * buffer is searched only for the phrases that start a report (memmem);
 * the region after each hit is cleaned (logger prefixes, CRLF, a Python
 * repr's \n and \" escapes) into a small buffer and parsed there:
 *   scoped   ::= 'Ran out of memory in memory space vmem while allocating on stack for'
 *                instruction ... 'Scoped allocation with size' X 'and limit' Y
 *                'exceeded scoped vmem limit by' Z
 *   program  ::= 'Ran out of memory in memory space' space '.' 'Used' X 'of' Y space
 *                '.' 'Exceeded' space 'capacity by' Z listing?
 *   listing  ::= ('N.'? 'Size:' X ('Operator:' | 'Shape:' | 'Unpadded size:' |
 *                 'Extra memory due to padding:' | 'XLA label:' | 'Allocation type:') ...)*
 *   request  ::= 'Allocation (size=' N ') would exceed memory (size=' M ')' ... space ... tag
 * plus the older wordings, SMEM and HBM variants, and other tools' look-alikes.
 */
#define _GNU_SOURCE /* memmem */
#include <stdio.h>
#include <string.h>

#include "../shape/shape.h"

enum { REGION_MAX = 64 * 1024, MAX_ERRORS = 256, MAX_ALLOCS = 64 };

struct vmem_log_report {
  arena a;
  size_t count;
  vmem_log_error *errors;
};

typedef struct explainer {
  vmem_log_report *r;
  const vmem_target *t;
  const char *s;
  size_t len;
  vmem_error *err;
  bool at_end; /* the region reaches the end of the log */
} explainer;

/* ---- cleaning a region ------------------------------------------------- */

/* An ISO timestamp "2024-05-01T12:00:00.123Z" or "2024-05-01 12:00:00,123"
 * (Kubernetes, Python logging, torch_xla) and the space after it: its end,
 * or p when there is none. */
static const char *skip_timestamp(const char *p, const char *end) {
  const char *q = p;
  if (end - q < 19 || !ch_is_digit(q[0]) || !ch_is_digit(q[3]) || q[4] != '-' || q[7] != '-' ||
      (q[10] != 'T' && q[10] != ' ') || q[13] != ':' || q[16] != ':')
    return p;
  q += 19;
  while (q < end && !ch_is_space(*q))
    q++;
  return q < end && *q == ' ' ? q + 1 : p;
}

/* Python logging's "ERROR:absl:" / "WARNING:root:" before the message. */
static const char *skip_python_level(const char *p, const char *end) {
  static const char *const levels[] = {"ERROR:", "WARNING:", "INFO:", "CRITICAL:", "DEBUG:"};
  for (size_t i = 0; i < sizeof levels / sizeof *levels; i++) {
    size_t n = strlen(levels[i]);
    if ((size_t)(end - p) > n && !memcmp(p, levels[i], n)) {
      const char *c = memchr(p + n, ':', (size_t)(end - p - (ptrdiff_t)n) < 64 ? (size_t)(end - p) - n : 64);
      if (c && !memchr(p + n, ' ', (size_t)(c - p) - n))
        return c + 1 < end && c[1] == ' ' ? c + 2 : c + 1;
    }
  }
  return p;
}

/* Skips a logger prefix at the start of a line: vLLM's
 * "(EngineCore pid=106339) ERROR 06-03 07:41:11 [core.py:1184] ", glog's and
 * absl's "E1111 07:35:00.272763  1234 error_handling.py:81] ", kubectl's
 * "[pod/trainer-0/main] ", a timestamp, Python logging's "ERROR:absl:". */
static bool host_char(int c) {
  return ch_is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '.' || c == '_' || c == ':' ||
         c == '-';
}

/* A host named by a line's prefix: kubectl's "[pod/NAME/CONTAINER] " or a
 * bracketed "[worker-3] " / "[tpu-vm-1] " (a letter, then letters, digits
 * and ._:- only). Its length at *name, or 0. */
static size_t host_prefix(const char *p, const char *end, const char **name) {
  if (end - p < 4 || *p != '[')
    return 0;
  const char *b = p + 1;
  if (end - p > 5 && !memcmp(p, "[pod/", 5))
    b = p + 5;
  const char *q = b;
  bool letter = false;
  for (; q < end && host_char(*q); q++)
    letter = letter || ((*q | 0x20) >= 'a' && (*q | 0x20) <= 'z');
  if (q == b || !letter || q - b > 63 || q >= end || (*q != ']' && *q != '/'))
    return 0;
  *name = b;
  return (size_t)(q - b);
}

/* The end of a host prefix ("[...] "), or p. */
static const char *skip_host(const char *p, const char *end) {
  const char *name;
  if (!host_prefix(p, end, &name))
    return p;
  const char *c = memchr(p, ']', (size_t)(end - p) < 200 ? (size_t)(end - p) : 200);
  return c && c + 1 < end && c[1] == ' ' ? c + 2 : p;
}

static const char *skip_prefix(const char *p, const char *end) {
  for (int round = 0; round < 4; round++) {
    const char *q = p;
    if (skip_host(q, end) != q) {
      p = skip_host(q, end);
      continue;
    }
    if (q < end && *q == '{') { /* a JSON log line: its "message" string */
      const char *m = memmem(q, (size_t)(end - q) < 400 ? (size_t)(end - q) : 400, "\"message\": \"", 12);
      if (m) {
        p = m + 12;
        continue;
      }
    }
    if (skip_timestamp(q, end) != q || skip_python_level(q, end) != q) {
      p = skip_python_level(skip_timestamp(q, end), end);
      continue;
    }
    if (q < end && *q == '(') {
      const char *c = memchr(q, ')', (size_t)(end - q));
      if (c && c - q < 80 && memmem(q, (size_t)(c - q), "pid=", 4) && c + 1 < end && c[1] == ' ') {
        p = c + 2;
        continue;
      }
    }
    static const char *const levels[] = {"ERROR ", "WARNING ", "INFO ", "DEBUG ", "CRITICAL "};
    bool level = false;
    for (size_t i = 0; i < 5 && !level; i++)
      level = (size_t)(end - q) > strlen(levels[i]) && !memcmp(q, levels[i], strlen(levels[i]));
    bool glog = (end - q) > 6 && strchr("IWEF", *q) && ch_is_digit(q[1]) && ch_is_digit(q[4]) && q[5] == ' ';
    /* torch_xla's "E    1578 tensorflow/.../xla_util.cc:76] " after its timestamp */
    bool tfl = (end - q) > 6 && strchr("IWEF", *q) && q[1] == ' ';
    for (const char *d = q + 1; tfl && d < end && *d == ' ';)
      tfl = ++d < end && (*d == ' ' || ch_is_digit(*d));
    level = level || tfl;
    if (level || glog) {
      const char *b = memchr(q, ']', (size_t)(end - q) < 120 ? (size_t)(end - q) : 120);
      if (b && b + 1 < end && b[1] == ' ' && memchr(q, ':', (size_t)(b - q))) {
        p = b + 2;
        continue;
      }
    }
    break;
  }
  return p;
}

/* The forms a pasted log comes in, undone by clean() (vmem_log_error.forms). */
static void mark(unsigned *forms, unsigned f) {
  if (forms)
    *forms |= f;
}

/* A line's markdown quote markers ("> ", ">> ", "> > ") and indentation. */
static const char *skip_quote(const char *p, const char *end, unsigned *forms) {
  const char *q = p;
  while (q < end && (*q == ' ' || *q == '\t'))
    q++;
  if (q >= end || *q != '>')
    return p;
  while (q < end && (*q == '>' || *q == ' ' || *q == '\t'))
    q++;
  mark(forms, VMEM_FORM_QUOTED);
  return q;
}

/* An HTML entity at q (&gt; &lt; &amp; &quot; &#39; &#x27; &#NN;): its
 * character in *c and its length, or 0. */
static size_t html_entity(const char *q, const char *end, char *c) {
  static const struct {
    const char *e;
    char c;
  } named[] = {{"&gt;", '>'}, {"&lt;", '<'}, {"&amp;", '&'}, {"&quot;", '"'}, {"&apos;", '\''}, {"&nbsp;", ' '}};
  for (size_t i = 0; i < sizeof named / sizeof *named; i++) {
    size_t n = strlen(named[i].e);
    if ((size_t)(end - q) >= n && !memcmp(q, named[i].e, n))
      return *c = named[i].c, n;
  }
  if (end - q < 4 || q[1] != '#')
    return 0;
  bool hex = q[2] == 'x' || q[2] == 'X';
  unsigned v = 0;
  const char *d = q + 2 + hex;
  for (; d < end && d - q < 8 && (ch_is_digit(*d) || (hex && strchr("abcdefABCDEF", *d))); d++)
    v = v * (hex ? 16 : 10) + (unsigned)(ch_is_digit(*d) ? *d - '0' : (*d | 0x20) - 'a' + 10);
  if (d >= end || *d != ';' || d == q + 2 + hex || v == 0 || v > 126)
    return 0;
  *c = (char)v;
  return (size_t)(d + 1 - q);
}

/* A backslash escape at q (a Python repr's or a JSON string's: \n \" \'
 * \\ \t \/ \uXXXX): its character in *c and its length, or 0. */
static size_t escape(const char *q, const char *end, char *c) {
  if (q + 1 >= end || *q != '\\')
    return 0;
  switch (q[1]) {
  case 'n':
    *c = '\n';
    return 2;
  case 't':
    *c = ' ';
    return 2;
  case '"':
  case '\'':
  case '/':
    *c = q[1];
    return 2;
  case '\\': /* a repr of a repr: "\\n" is still a line break */
    if (q + 2 < end && (q[2] == 'n' || q[2] == '"' || q[2] == '\''))
      return *c = q[2] == 'n' ? '\n' : q[2], 3;
    *c = '\\';
    return 2;
  case 'u': {
    unsigned v = 0;
    for (int i = 2; i < 6; i++) {
      if (q + i >= end || !strchr("0123456789abcdefABCDEF", q[i]))
        return 0;
      v = v * 16 + (unsigned)(ch_is_digit(q[i]) ? q[i] - '0' : (q[i] | 0x20) - 'a' + 10);
    }
    *c = v && v < 127 ? (char)v : '?';
    return 6;
  }
  default:
    return 0;
  }
}

/* An ANSI escape sequence (ESC '[' params letter) at q: its length, or 0. */
static size_t ansi(const char *q, const char *end) {
  if (end - q < 3 || q[0] != '\x1b' || q[1] != '[')
    return 0;
  const char *d = q + 2;
  while (d < end && (ch_is_digit(*d) || *d == ';'))
    d++;
  return d < end && ((*d >= 'A' && *d <= 'Z') || (*d >= 'a' && *d <= 'z')) ? (size_t)(d + 1 - q) : 0;
}

/* One line's text after its prefixes into out: escapes, entities and ANSI
 * codes undone, CR dropped, tabs as spaces. Returns the bytes written. */
static size_t clean_line(const char *q, const char *le, char *out, unsigned *forms) {
  size_t n = 0, k;
  char c;
  for (; q < le; q++) {
    if (*q == '\r')
      continue;
    if ((k = ansi(q, le))) {
      mark(forms, VMEM_FORM_ANSI);
      q += k - 1;
    } else if (*q == '&' && (k = html_entity(q, le, &c))) {
      mark(forms, VMEM_FORM_HTML);
      out[n++] = c, q += k - 1;
    } else if (*q == '\\' && (k = escape(q, le, &c))) {
      mark(forms, VMEM_FORM_ESCAPED);
      out[n++] = c, q += k - 1;
    } else {
      out[n++] = *q == '\t' ? ' ' : *q;
    }
  }
  return n;
}

/* Copies text[from, to) into the arena as clean lines: logger prefixes,
 * markdown quotes and code fences dropped, then each line as clean_line()
 * makes it. What was undone is marked in *forms. */
static char *clean(arena *a, const char *s, size_t from, size_t to, size_t *out_len, unsigned *forms, char *host,
                   size_t host_cap) {
  char *out = arena_alloc(a, 2 * (to - from) + 1);
  if (!out)
    return NULL;
  size_t n = 0;
  const char *p = s + from, *end = s + to;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *le = nl ? nl : end;
    /* The line cleaned first (a colour code may hide a logger prefix), then
     * its prefix dropped; a JSON line's escapes are undone after its
     * "message" is found, so the prefix is looked for in the raw line. */
    const char *q = skip_quote(p, le, forms), *json = q < le && *q == '{' ? skip_prefix(q, le) : q;
    if (json != q)
      mark(forms, VMEM_FORM_JSON), q = json;
    char *line = out + n;
    size_t m = clean_line(q, le, line, forms);
    const char *hn;
    size_t hl = p == s + from ? host_prefix(line, line + m, &hn) : 0; /* the report's first line names its host */
    if (hl && hl < host_cap)
      memcpy(host, hn, hl), host[hl] = '\0';
    const char *body = skip_prefix(line, line + m);
    if (body != line) {
      mark(forms, VMEM_FORM_PREFIXED);
      m -= (size_t)(body - line);
      memmove(line, body, m);
    }
    if (m >= 3 && !memcmp(line, "```", 3)) {
      mark(forms, VMEM_FORM_FENCED); /* a fence line: nothing of the log */
    } else {
      n += m;
      out[n++] = '\n';
    }
    p = le + 1;
  }
  out[n] = '\0';
  *out_len = n;
  return out;
}

/* ---- small parsers ------------------------------------------------------ */

static bool blank(int c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* Whether needle matches at p, each of its spaces matching a run of blanks
 * and line breaks (a message wrapped or re-indented when pasted); where
 * the match ends in *stop. */
static bool match_at(const char *p, const char *end, const char *needle, const char **stop) {
  for (const char *n = needle; *n; n++) {
    if (*n == ' ') {
      if (p >= end || !blank(*p))
        return false;
      while (p < end && blank(*p))
        p++;
    } else if (p >= end || *p++ != *n) {
      return false;
    }
  }
  *stop = p;
  return true;
}

/* The first match of needle in [hay, end) (its first word found by memmem,
 * the rest by match_at), and where it ends in *stop when stop is given. */
static const char *find_to(const char *hay, const char *end, const char *needle, const char **stop) {
  size_t w = strcspn(needle, " ");
  for (const char *at = hay; end > at;) {
    const char *h = memmem(at, (size_t)(end - at), needle, w ? w : strlen(needle));
    const char *e;
    if (!h)
      return NULL;
    if (match_at(h, end, needle, &e)) {
      if (stop)
        *stop = e;
      return h;
    }
    at = h + 1;
  }
  return NULL;
}

static const char *find(const char *hay, const char *end, const char *needle) {
  return find_to(hay, end, needle, NULL);
}

/* Where the first match of needle ends, or NULL. */
static const char *after(const char *hay, const char *end, const char *needle) {
  const char *stop = NULL;
  const char *k = find_to(hay, end, needle, &stop);
  return k ? stop : NULL;
}

/* size ::= [0-9.]+ [BKMGTPE]    (the compiler's format) */
static bool read_printed(const char *p, const char *end, vmem_printed *out) {
  while (p < end && blank(*p))
    p++;
  const char *b = p;
  while (p < end && (ch_is_digit(*p) || *p == '.'))
    p++;
  if (p == b || p >= end || !strchr("BKMGTPE", *p) || (size_t)(p + 1 - b) >= sizeof out->text)
    return false;
  p++;
  memcpy(out->text, b, (size_t)(p - b));
  out->text[p - b] = '\0';
  vmem_error e;
  if (vmem_parse_human_bytes(out->text, (size_t)(p - b), &out->lo, &out->hi, &e) != VMEM_OK)
    return false;
  out->present = true;
  return true;
}

static bool printed_after(const char *hay, const char *end, const char *key, vmem_printed *out) {
  const char *k = after(hay, end, key);
  return k && read_printed(k, end, out);
}

/* used ::= 'Used' X 'of' Y */
static void read_used(const char *p, const char *end, vmem_printed *used, vmem_printed *cap) {
  const char *u = after(p, end, "Used ");
  if (!u || !read_printed(u, end, used))
    return;
  const char *q = u;
  while (q < end && blank(*q))
    q++;
  q += strlen(used->text); /* read_printed read exactly these bytes there */
  const char *of;
  if (match_at(q, end, " of ", &of) && of - u < 60)
    read_printed(of, end, cap);
}

static char *dup_until(arena *a, const char *p, const char *end, const char *stops) {
  const char *q = p;
  while (q < end && !strchr(stops, *q))
    q++;
  while (q > p && (q[-1] == ' ' || q[-1] == '.'))
    q--;
  return arena_strndup(a, p, (size_t)(q - p));
}

/* The rest of the line after `key`, trimmed; NULL when absent. */
static char *field(arena *a, const char *line, const char *le, const char *key) {
  const char *k = after(line, le, key);
  if (!k)
    return NULL;
  while (k < le && *k == ' ')
    k++;
  const char *e = le;
  while (e > k && (e[-1] == ' ' || e[-1] == ']'))
    e--;
  return arena_strndup(a, k, (size_t)(e - k));
}

/* ---- listing entries --------------------------------------------------- */

static void recompute(explainer *x, vmem_log_alloc *al) {
  if (!al->shape)
    return;
  vmem_error e;
  vmem_shape *s = vmem_shape_parse(al->shape, strlen(al->shape), &x->r->a.alloc, &e);
  if (!s)
    return;
  vmem_shape *laid = vmem_shape_with_tpu_layout(s, x->t, &x->r->a.alloc, &e);
  vmem_size z;
  if (laid && vmem_shape_size(laid, &z, &e) == VMEM_OK) {
    al->recomputed = true;
    al->recomputed_bytes = z.bytes;
    al->recomputed_unpadded = z.unpadded_bytes;
    al->size_agrees = !al->size.present || (z.bytes >= al->size.lo && z.bytes <= al->size.hi);
    al->unpadded_agrees =
        !al->unpadded.present || (z.unpadded_bytes >= al->unpadded.lo && z.unpadded_bytes <= al->unpadded.hi);
  }
  vmem_shape_free(laid);
  vmem_shape_free(s);
}

/* Reads listing entries from the cleaned region; each starts at "Size:"
 * (or, in old logs, at "XLA label:"). Unrelated lines in between (an
 * interleaved log) are skipped. */
/* The listing's entries; *cut when the entries end each with a "=====" line
 * and the last has none: the log stops inside it. */
static size_t read_listing(explainer *x, const char *p, const char *end, vmem_log_alloc *out, size_t cap, bool *cut) {
  arena *a = &x->r->a;
  size_t n = 0, closed = 0;
  vmem_log_alloc *cur = NULL;
  for (const char *line = p; line < end && n <= cap;) {
    const char *nl = memchr(line, '\n', (size_t)(end - line));
    const char *le = nl ? nl : end;
    bool size_line = find(line, le, "Size:") && !find(line, le, "Unpadded size:");
    bool starts = size_line || ((!cur || cur->label) && find(line, le, "XLA label:"));
    if (find(line, le, "Ran out of memory") && cur)
      break; /* the next report */
    if (starts && n < cap) {
      cur = &out[n++];
      memset(cur, 0, sizeof *cur);
    }
    if (cur && find(line, le, "=========="))
      closed = n;
    if (cur) {
      if (size_line)
        printed_after(line, le, "Size:", &cur->size);
      char *v;
      if ((v = field(a, line, le, "Shape:")))
        cur->shape = v;
      if (find(line, le, "Unpadded size:"))
        printed_after(line, le, "Unpadded size:", &cur->unpadded);
      if (find(line, le, "Extra memory due to padding:"))
        printed_after(line, le, "Extra memory due to padding:", &cur->extra);
      if ((v = field(a, line, le, "XLA label:"))) {
        cur->label = v;
        cur->spill = strstr(v, "spill slots") != NULL;
      }
      if ((v = field(a, line, le, "Operator:")))
        cur->op = v;
      if ((v = field(a, line, le, "Allocation type:")))
        cur->allocation_type = v;
    }
    line = le + 1;
  }
  for (size_t i = 0; i < n; i++)
    recompute(x, &out[i]);
  *cut = closed && closed < n;
  return n;
}

/* ---- one report -------------------------------------------------------- */

static bool is_op_char(int c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || ch_is_digit(c) || c == '-' || c == '_' || c == '.';
}

/* kernel name from op_name=".../NAME/pallas_call" */
static char *kernel_from_op_name(arena *a, const char *op) {
  const char *pc = op ? strstr(op, "/pallas_call") : NULL;
  if (!pc)
    return NULL;
  const char *b = pc;
  while (b > op && b[-1] != '/')
    b--;
  /* "jit(mlp)/pallas_call": the jit wrapper, not the kernel; the custom
   * call's own name says more */
  if (pc - b >= 4 && !memcmp(b, "jit(", 4))
    return NULL;
  return b < pc ? arena_strndup(a, b, (size_t)(pc - b)) : NULL;
}

/* The instruction after "allocating on stack for": %name = shape opcode(...) */
static void read_instruction(explainer *x, vmem_log_error *e, const char *p, const char *end) {
  arena *a = &x->r->a;
  const char *k = after(p, end, "allocating on stack for");
  if (!k)
    return;
  while (k < end && blank(*k))
    k++;
  const char *eq = find(k, end, " = ");
  const char *stop = find(k, end, "Scoped allocation");
  if (!stop)
    stop = end;
  if (eq && eq < stop && eq - k < 512 && k < end && (*k == '%' || ch_is_space(*k) == 0)) {
    e->instruction = dup_until(a, k, eq, " \n");
    const char *sh = eq + 3;
    size_t pos = (size_t)(sh - x->s), len = (size_t)(stop - x->s);
    vmem_error se;
    vmem_shape *s = shape_parse_at(a, x->s, len, &pos, &se);
    if (s) {
      e->shape = arena_strndup(a, sh, (size_t)(x->s + pos - sh));
      const char *op = x->s + pos;
      while (op < stop && *op == ' ')
        op++;
      const char *oe = op;
      while (oe < stop && (is_op_char(*oe)))
        oe++;
      if (oe > op)
        e->opcode = arena_strndup(a, op, (size_t)(oe - op));
    }
  }
  const char *t = find(k, stop, "custom_call_target=\"");
  if (t)
    e->custom_call_target = dup_until(a, t + 20, stop, "\"\n");
  const char *on = find(k, stop, "op_name=\"");
  if (on)
    e->op_name = dup_until(a, on + 9, stop, "\"\n");
}

/* A scoped error whose message elides the instruction ("allocating on
 * stack for [...]") still names it where its listing does: the scoped
 * allocations listed are that instruction's, each labelled "NAME =
 * custom-call(...), custom_call_target=..." with the call's op_name in its
 * Operator line (a flash-attention or ragged-attention call as vLLM's logs
 * print it). The first scoped entry's label and operator are taken. */
static void instruction_from_listing(explainer *x, vmem_log_error *e) {
  arena *a = &x->r->a;
  for (size_t i = 0; i < e->nallocs && !e->instruction; i++) {
    const vmem_log_alloc *al = &e->allocs[i];
    if (!al->label || (al->allocation_type && strcmp(al->allocation_type, "scoped") != 0))
      continue;
    const char *end = al->label + strlen(al->label), *eq = find(al->label, end, " = ");
    if (!eq || eq == al->label)
      continue;
    size_t n = (size_t)(eq - al->label);
    char *name = arena_alloc(a, n + 2);
    if (!name)
      return;
    name[0] = '%';
    memcpy(name + (al->label[0] == '%' ? 0 : 1), al->label, n);
    name[al->label[0] == '%' ? n : n + 1] = 0;
    e->instruction = name;
    const char *op = eq + 3;
    if (!strncmp(op, "custom-call(", 12))
      e->opcode = "custom-call";
    const char *t = find(eq, end, "custom_call_target=\"");
    if (t && !e->custom_call_target)
      e->custom_call_target = dup_until(a, t + 20, end, "\"\n");
  }
  for (size_t i = 0; i < e->nallocs && !e->op_name; i++) {
    const char *op = e->allocs[i].op, *on = op ? strstr(op, "op_name=\"") : NULL;
    if (on && e->instruction)
      e->op_name = dup_until(a, on + 9, op + strlen(op), "\"\n");
  }
}

/* Is this a custom kernel, and why do we think so? */
static void judge_kernel(explainer *x, vmem_log_error *e) {
  arena *a = &x->r->a;
  if (e->custom_call_target && !strcmp(e->custom_call_target, "tpu_custom_call")) {
    e->custom_kernel = 1;
    e->evidence = "custom_call_target=\"tpu_custom_call\"";
  } else if (e->op_name && strstr(e->op_name, "pallas_call")) {
    e->custom_kernel = 1;
    e->evidence = "op_name ends in pallas_call";
  } else if (e->opcode && strcmp(e->opcode, "custom-call") != 0) {
    e->custom_kernel = 0;
    e->evidence = arena_strndup(a, "the instruction is a standard HLO op", 36);
  } else if (e->tag && strstr(e->tag, "scoped memory for ")) {
    e->custom_kernel = strstr(e->tag, "kernel") ? 1 : -1;
    e->evidence = e->custom_kernel > 0 ? "the scoped memory is tagged for an instruction named like a kernel"
                                       : "the scoped memory's tag names the instruction only";
    e->instruction = arena_strndup(a, e->tag + 18, strlen(e->tag + 18));
  } else if (e->opcode && e->instruction && strstr(e->instruction, "kernel")) {
    e->custom_kernel = 1;
    e->evidence = "a custom call named like a Pallas kernel (its custom_call_target is not in the log)";
  } else {
    e->custom_kernel = -1;
    e->evidence =
        e->opcode ? "a custom call whose target the log does not show" : "the log does not show the instruction";
  }
  e->kernel = kernel_from_op_name(a, e->op_name);
  if (!e->kernel && e->custom_kernel == 1 && e->instruction) {
    const char *n = e->instruction[0] == '%' ? e->instruction + 1 : e->instruction;
    size_t len = strlen(n), k = len;
    while (k > 0 && ch_is_digit(n[k - 1]))
      k--;
    e->kernel = arena_strndup(a, n, k > 0 && k < len && n[k - 1] == '.' ? k - 1 : len);
  }
}

/* The decimal number at p, within end; -1 when there is none (or it is
 * past 2^62, which no memory size is). */
static long long number_at(const char *p, const char *end) {
  long long v = -1;
  for (; p < end && ch_is_digit(*p) && v < (1LL << 58); p++)
    v = (v < 0 ? 0 : v * 10) + (*p - '0');
  return v;
}

/* allocation ::= 'Allocation (size=' N ') would exceed memory (size=' M ')' ... */
static void read_request(explainer *x, vmem_log_error *e, const char *p, const char *end) {
  static const char size_key[] = "Allocation (size=", memory_key[] = "would exceed memory (size=";
  long long n = -1, m = -1;
  const char *k = find(p, end, size_key);
  if (k) {
    n = number_at(k + sizeof size_key - 1, end);
    const char *mk = find(k, end, memory_key);
    m = mk ? number_at(mk + sizeof memory_key - 1, end) : -1;
  }
  e->request_bytes = n;
  e->memory_bytes = m;
  const char *tag = find(p, end, "tag = '");
  if (tag)
    e->tag = dup_until(&x->r->a, tag + 7, end, "'\n");
  bool vmem = find(p, end, "space=vmem") != NULL;
  e->kind = vmem ? VMEM_OOM_VMEM_REQUEST : VMEM_OOM_HBM;
}

/* The message's first line, for the report. */
static void read_message(explainer *x, vmem_log_error *e, const char *p, const char *end) {
  const char *nl = memchr(p, '\n', (size_t)(end - p));
  size_t n = (size_t)((nl ? nl : end) - p);
  e->message = arena_strndup(&x->r->a, p, n > 600 ? 600 : n);
}

/* "Program vmem requirement X:" and the "scoped Y" line of the breakdown
 * below it (within its next few lines). */
static void read_requirement(const char *p, const char *end, vmem_log_error *e) {
  const char *k = find(p, end, "Program vmem requirement");
  if (!k)
    return;
  size_t at = (size_t)(k - p) + strlen("Program vmem requirement"), n = (size_t)(end - p);
  if (!read_printed(p + at, end, &e->requirement))
    return;
  while (at < n && p[at] != '\n') /* an index, not a pointer: gcc 12 takes a pointer here for a dangling one */
    at++;
  if (at < n)
    printed_after(p + at, p + (n - at > 400 ? at + 400 : n), "scoped", &e->requirement_scoped);
}

/* abort ::= ... 'Check failed: maximum_vmem_usage_kib > 0 (' N ' vs. 0)' ...
 * libtpu 0.0.42.1's reduce-window emitter takes the global scoped limit
 * less 4 MiB and aborts the process when that is not positive (probes of
 * jnp.cumsum on every generation: abort at 4096 KiB, compile at 4097; N is
 * the limit in KiB less 4096). The limit is derived back from N; a
 * positive N, which does not fail the CHECK, derives none. */
enum { EMITTER_RESERVE_KIB = 4096 };

static void read_emitter_abort(vmem_log_error *e, const char *p, const char *end) {
  e->kind = VMEM_OOM_EMITTER_ABORT;
  e->opcode = "reduce-window";
  const char *k = after(p, end, "maximum_vmem_usage_kib > 0 (");
  bool neg = k && k < end && *k == '-';
  long long n = k ? number_at(k + neg, end) : -1;
  if (n < 0 || (!neg && n != 0) || n >= EMITTER_RESERVE_KIB)
    return; /* the CHECK fails on a budget of 0 or less only: the limit is 1 to 4096 KiB */
  long long kib = EMITTER_RESERVE_KIB - n;
  int w = snprintf(e->limit.text, sizeof e->limit.text, "%lldK", kib);
  if (w <= 0 || (size_t)w >= sizeof e->limit.text)
    return;
  e->limit.lo = e->limit.hi = (uint64_t)kib * 1024;
  e->limit.present = true;
  e->derived |= VMEM_DERIVED_LIMIT;
}

/* A capacity report's excess as the compiler words it ("Exceeded smem
 * capacity by 1.7K"), or as people shorten it in a paste ("(+1.7K)"). */
static void excess_after(const char *p, const char *end, vmem_log_error *e) {
  if (!printed_after(p, end, "capacity by", &e->excess))
    printed_after(p, end, "(+", &e->excess);
}

/* Classifies and reads one report from a cleaned region that starts at
 * its trigger line. */
static void read_report(explainer *x, vmem_log_error *e, const char *p, const char *end) {
  const char *nl = memchr(p, '\n', (size_t)(end - p));
  const char *first_end = nl ? nl : end;
  const char *rend = end; /* explain_all ends the region before the next report */
  e->request_bytes = e->memory_bytes = -1;
  read_message(x, e, p, rend);
  if (find(p, first_end, "Estimated") || (find(p, rend, "Estimated") && find(p, rend, "MB exceeds"))) {
    e->kind = VMEM_OOM_NOT_COMPILER;
    return;
  }
  if (find(p, first_end, "maximum_vmem_usage_kib")) {
    read_emitter_abort(e, p, first_end);
  } else if (find(p, rend, "would exceed memory (size=")) {
    read_request(x, e, p, rend);
  } else if (find(p, rend, "allocating on stack for") || find(p, rend, "Scoped allocation with size")) {
    e->kind = VMEM_OOM_SCOPED_VMEM;
    read_instruction(x, e, p, rend);
    const char *sa = find(p, rend, "Scoped allocation with size");
    const char *from = sa ? sa : p; /* a paste may have cut the line's start out */
    if (sa)
      printed_after(sa, rend, "with size", &e->size);
    printed_after(from, rend, "and limit", &e->limit);
    /* the excess as the compiler words it, or as people shorten it */
    if (!printed_after(from, rend, "limit by", &e->excess) && !printed_after(from, rend, "exceeded by", &e->excess))
      printed_after(from, rend, "(+", &e->excess);
  } else if (!find(p, first_end, "memory space") && find(p, first_end, "Used ") && !find(p, rend, "allocations in")) {
    read_used(p, first_end, &e->used, &e->capacity); /* figures alone: the word after them names the space */
    printed_after(p, first_end, "(+", &e->excess);   /* "Used 1.01M of 1.00M smem (+13.5K)" */
    const char *u = after(p, first_end, "Used ");
    e->kind = u && find(u, first_end, " smem")  ? VMEM_OOM_SMEM
              : u && find(u, first_end, " hbm") ? VMEM_OOM_HBM
                                                : VMEM_OOM_PROGRAM_VMEM;
  } else if (find(p, rend, "memory space smem")) {
    e->kind = VMEM_OOM_SMEM;
    read_used(p, rend, &e->used, &e->capacity);
    excess_after(p, rend, e);
  } else if (find(p, rend, "memory space hbm") || find(p, rend, "Hbm usage") ||
             find(p, rend, "Aborting compilation early") || find(p, rend, "Attempting to") ||
             find(p, rend, "Total hbm usage >=") || find(p, rend, "allocations in hbm")) {
    e->kind = VMEM_OOM_HBM;
    read_used(p, rend, &e->used, &e->capacity);
    if (!e->used.present)
      printed_after(p, rend, "Total hbm usage >=", &e->used); /* the profile without its first line */
    printed_after(p, rend, "capacity by", &e->excess);
    if (printed_after(p, rend, "Requires", &e->size))
      printed_after(p, rend, "has", &e->capacity);
    if (printed_after(p, rend, "TensorCore Hbm usage:", &e->used))
      printed_after(p, rend, "available bytes:", &e->capacity);
    if (printed_after(p, rend, "Attempting to allocate", &e->size) ||
        printed_after(p, rend, "Attempting to reserve", &e->size))
      printed_after(p, rend, "There are", &e->capacity);
  } else if (find(p, rend, "memory space vmem") || find(p, rend, "allocations in vmem") ||
             find(p, rend, "Total vmem usage >=")) {
    e->kind = VMEM_OOM_PROGRAM_VMEM;
    read_used(p, rend, &e->used, &e->capacity);
    if (!e->used.present)
      printed_after(p, rend, "Total vmem usage >=", &e->used);
    read_requirement(p, rend, e);
    excess_after(p, rend, e);
  } else {
    e->kind = VMEM_OOM_LISTING;
  }
  vmem_log_alloc tmp[MAX_ALLOCS];
  bool cut = false;
  e->nallocs = e->kind == VMEM_OOM_NOT_COMPILER ? 0 : read_listing(x, p, rend, tmp, MAX_ALLOCS, &cut);
  e->listing_cut = cut && x->at_end; /* only the log's end cuts an entry; the next report's start does not */
  vmem_log_alloc *al = e->nallocs ? arena_alloc(&x->r->a, e->nallocs * sizeof *al) : NULL;
  if (al)
    memcpy(al, tmp, e->nallocs * sizeof *al);
  e->allocs = al;
  if (!al)
    e->nallocs = 0;
  if (e->kind == VMEM_OOM_SCOPED_VMEM && !e->instruction)
    instruction_from_listing(x, e);
  judge_kernel(x, e);
}

/* ---- the whole log ------------------------------------------------------ */

static const char *const triggers[] = {
    "Ran out of memory in", /* a log may break the line before "memory space" */
    "Scoped allocation with size",
    "would exceed memory (size=",
    "to have enough memory", /* "Aborting compilation early because it's unlikely ..." */
    "Hbm usage:",
    "Attempting to allocate",
    "at the bottom of memory", /* "Attempting to reserve X at the bottom of memory" */
    "Allocation type:",
    "Largest program allocations in", /* a listing's header, the older profile's too */
    "Used ",                  /* a report's figures on a line of their own, or quoted: "(Used 71.20M of 63.94M)" */
    "maximum_vmem_usage_kib", /* libtpu's reduce-window CHECK at a global limit of 4 MiB or less */
};
enum { TRIGGER_USED = 9 };
/* Triggers that belong to the report before them (a "Scoped allocation"
 * line, a listing) rather than start one of their own. */
static bool joins(size_t t) { return t == 1 || t == 7 || t == 8; }
enum { NTRIGGERS = sizeof triggers / sizeof *triggers };

/* The log is searched once per anchor, not once per trigger: each trigger
 * holds one of these short anchors, and a hit is then checked against the
 * triggers that hold it. Five passes instead of eleven keep explain within
 * a few times a plain newline scan on a 100 MB log. */
static const char *const anchors[] = {"memory", "llocat", "Hbm usage", "Used ", "vmem_usage_kib"};
enum { NANCHORS = sizeof anchors / sizeof *anchors };

/* The start of the line holding `p`. */
static size_t line_start(const char *s, size_t at) {
  while (at > 0 && s[at - 1] != '\n')
    at--;
  return at;
}

/* In the raw log, a trigger's space also matches a line break with the
 * next line's indentation and markdown quote markers: a message wrapped
 * when it was pasted. */
static bool raw_blank(int c) { return blank(c) || c == '>'; }

/* Does trigger t's text from its byte `from` on match s at `at`
 * (forward)? */
static bool raw_forward(const char *s, size_t len, size_t at, const char *t, size_t from) {
  for (const char *n = t + from; *n; n++) {
    if (*n == ' ') {
      if (at >= len || !blank(s[at]))
        return false;
      while (at < len && raw_blank(s[at]))
        at++;
    } else if (at >= len || s[at++] != *n) {
      return false;
    }
  }
  return true;
}

/* Does trigger t's text before its byte `upto` end just before s[at]
 * (backward)? Its start in *start. */
static bool raw_backward(const char *s, size_t at, const char *t, size_t upto, size_t *start) {
  for (size_t i = upto; i-- > 0;) {
    if (t[i] == ' ') {
      if (at == 0 || !raw_blank(s[at - 1]))
        return false;
      while (at > 0 && raw_blank(s[at - 1]))
        at--;
    } else if (at == 0 || s[--at] != t[i]) {
      return false;
    }
  }
  *start = at;
  return true;
}

/* A lone "Used X of Y" counts only as the compiler's figures, X and Y
 * printed sizes, and not inside a report's own first line (whose
 * "Ran out of memory in memory space" comes before it on the line). */
static bool used_figures(const char *s, size_t len, size_t at) {
  size_t ls = line_start(s, at);
  if (memmem(s + ls, at - ls, "memory", 6))
    return false;
  vmem_printed a, b;
  const char *end = s + (len - at > 64 ? at + 64 : len), *p = s + at + 5;
  if (!read_printed(p, end, &a))
    return false;
  const char *of = memmem(p, (size_t)(end - p), " of ", 4);
  return of && of - p < 24 && read_printed(of + 4, end, &b);
}

/* Each anchor's next hit in the whole log, remembered: hit[g] is the
 * first at or after from[g] (full when there is none). A report's search
 * and its region's probes ask again and again from nearby places; without
 * this an anchor that is absent was searched for to the log's end each time. */
typedef struct anchor_cache {
  const char *s;
  size_t full;
  size_t from[NANCHORS], hit[NANCHORS];
} anchor_cache;

static size_t anchor_hit(anchor_cache *c, int g, size_t at) {
  if (at >= c->from[g] && at <= c->hit[g])
    return c->hit[g];
  const char *h = at < c->full ? memmem(c->s + at, c->full - at, anchors[g], strlen(anchors[g])) : NULL;
  c->from[g] = at;
  c->hit[g] = h ? (size_t)(h - c->s) : c->full;
  return c->hit[g];
}

/* The earliest trigger at or after `from` and before len; its index in
 * *which. A trigger is found by its anchor, then matched around it. */
static size_t next_trigger(anchor_cache *c, size_t len, size_t from, size_t *which) {
  const char *s = c->s;
  size_t best = len;
  for (int g = 0; g < NANCHORS; g++) {
    for (size_t at = from; at < best;) {
      size_t hp = anchor_hit(c, g, at), start;
      if (hp >= best)
        break;
      /* Every trigger whose anchor starts this hit, at its own offset. */
      for (int t = 0; t < NTRIGGERS; t++) {
        const char *in = strstr(triggers[t], anchors[g]);
        size_t off = in ? (size_t)(in - triggers[t]) : 0;
        if (in && raw_backward(s, hp, triggers[t], off, &start) && start >= from && start < best &&
            raw_forward(s, len, hp, triggers[t], off) && (t != TRIGGER_USED || used_figures(s, len, hp))) {
          best = start;
          *which = (size_t)t;
        }
      }
      at = hp + 1;
    }
  }
  return best;
}

/* Did the message's keys or their figures cross a line break? (The cleaned
 * region's lines are the log's, so a key matched across one was wrapped.) */
static bool wrapped(const char *buf, const char *end) {
  static const char *const keys[] = {"Ran out of memory in memory space",
                                     "allocating on stack for",
                                     "Scoped allocation with size",
                                     "and limit",
                                     "exceeded scoped vmem limit by",
                                     "Used",
                                     "capacity by"};
  for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
    const char *stop, *k = find_to(buf, end, keys[i], &stop);
    if (!k)
      continue;
    while (stop < end && blank(*stop) && *stop != '\n')
      stop++;
    if (memchr(k, '\n', (size_t)(stop - k)) || (stop < end && *stop == '\n' && i >= 2))
      return true;
  }
  return false;
}

/* size = limit + excess: the one of the three a scoped report lacks (a
 * line cut out of a paste), as the exact interval of the other two. */
static void derive(vmem_log_error *e) {
  vmem_printed *s = &e->size, *l = &e->limit, *x = &e->excess;
  if (e->kind != VMEM_OOM_SCOPED_VMEM) { /* program-wide: excess = used - capacity */
    const vmem_printed *u = &e->used, *c = &e->capacity;
    if (u->present && c->present && !x->present && u->hi >= c->lo) {
      *x = (vmem_printed){true, "used-capacity", u->lo > c->hi ? u->lo - c->hi : 0, u->hi - c->lo};
      e->derived |= VMEM_DERIVED_EXCESS;
    }
    return;
  }
  if (!s->present && l->present && x->present) {
    *s = (vmem_printed){true, "limit+excess", l->lo + x->lo, l->hi + x->hi};
    e->derived |= VMEM_DERIVED_SIZE;
  } else if (s->present && !l->present && x->present && s->hi >= x->lo) {
    *l = (vmem_printed){true, "size-excess", s->lo > x->hi ? s->lo - x->hi : 0, s->hi - x->lo};
    e->derived |= VMEM_DERIVED_LIMIT;
  } else if (s->present && l->present && !x->present && s->hi >= l->lo) {
    *x = (vmem_printed){true, "size-limit", s->lo > l->hi ? s->lo - l->hi : 0, s->hi - l->lo};
    e->derived |= VMEM_DERIVED_EXCESS;
  }
}

static bool same_text(const char *a, const char *b) { return !strcmp(a ? a : "", b ? b : ""); }

static bool same_printed(const vmem_printed *a, const vmem_printed *b) {
  return a->present == b->present && !strcmp(a->text, b->text);
}

/* The same error, whatever prefix each copy of it carries (a log often
 * prints it once per logger and once per traceback). */
bool vmem_log_error_same(const vmem_log_error *a, const vmem_log_error *b) {
  if (!a || !b)
    return false;
  return a->kind == b->kind && same_text(a->instruction, b->instruction) && same_text(a->shape, b->shape) &&
         same_printed(&a->size, &b->size) && same_printed(&a->limit, &b->limit) && same_printed(&a->used, &b->used) &&
         same_printed(&a->capacity, &b->capacity) && same_printed(&a->excess, &b->excess) && a->nallocs == b->nallocs &&
         a->request_bytes == b->request_bytes &&
         (a->instruction || a->size.present || a->used.present || a->nallocs || same_text(a->message, b->message));
}

/* A mention with no figures: the error's title quoted in prose (an issue's
 * heading, a comment above the log) or a wording that prints none. It
 * says nothing the printed report beside it does not. */
static bool bare(const vmem_log_error *e) {
  return !e->instruction && !e->tag && !e->size.present && !e->limit.present && !e->excess.present &&
         !e->used.present && !e->capacity.present && e->request_bytes < 0 && e->nallocs == 0;
}

/* May the bare mention `m` stand for the error `e`? The same kind; a
 * listing with no entries stands for nothing of its own; "memory space
 * vmem" without figures also begins the scoped (E1001) message. */
static bool may_fold(const vmem_log_error *m, const vmem_log_error *e) {
  return m->kind == e->kind || m->kind == VMEM_OOM_LISTING ||
         (m->kind == VMEM_OOM_PROGRAM_VMEM && e->kind == VMEM_OOM_SCOPED_VMEM);
}

/* Folds each bare mention into an error it may stand for: the nearest one
 * with figures (after it first: prose comes before the log it quotes),
 * else a later bare mention it may stand for. The folded keep their place
 * and message; r->errors is compacted. */
static void fold_mentions(vmem_log_report *r) {
  size_t w = 0;
  for (size_t i = 0; i < r->count; i++) {
    vmem_log_error *m = &r->errors[i], *into = NULL;
    for (size_t j = i + 1; bare(m) && j < r->count && !into; j++)
      into = !bare(&r->errors[j]) && may_fold(m, &r->errors[j]) ? &r->errors[j] : NULL;
    for (size_t j = w; bare(m) && j-- > 0 && !into;) /* the kept ones before i */
      into = !bare(&r->errors[j]) && may_fold(m, &r->errors[j]) ? &r->errors[j] : NULL;
    for (size_t j = i + 1; bare(m) && j < r->count && !into; j++)
      into = may_fold(m, &r->errors[j]) ? &r->errors[j] : NULL;
    if (into) {
      into->mentions += m->count + m->mentions;
      continue;
    }
    r->errors[w++] = *m;
  }
  r->count = w;
}

/* The older TPU memory profile (2019-2022) heads its listing with totals:
 * "Total hbm usage >= X:" (reserved, program, arguments), "Output size",
 * "Program hbm requirement X:" (reserved, global, HLO temp). A listing
 * whose "Ran out of memory" line was cut off starts at the first of those
 * within a few KB above it (not before `from`, the end of the last report). */
static size_t profile_start(const char *s, size_t from, size_t at) {
  size_t lo = at > from + 4096 ? at - 4096 : from, best = at;
  static const char *const heads[] = {"Total hbm usage >=", "Total vmem usage >=", "Program hbm requirement",
                                      "Program vmem requirement"};
  for (size_t h = 0; h < sizeof heads / sizeof *heads; h++) {
    const char *k = find(s + lo, s + at, heads[h]);
    if (k && (size_t)(k - s) < best)
      best = line_start(s, (size_t)(k - s));
  }
  return best < from ? from : best;
}

enum { LOG_MAX_HOSTS = 16 }; /* hosts listed per error; nhosts counts past them */

/* Whether the ", "-separated list holds host h (l bytes). */
static bool hosts_have(const char *list, const char *h, size_t l) {
  for (const char *k = list; k && *k;) {
    const char *c = strstr(k, ", ");
    size_t kl = c ? (size_t)(c - k) : strlen(k);
    if (kl == l && !memcmp(k, h, l))
      return true;
    k = c ? c + 2 : k + kl;
  }
  return false;
}

static size_t hosts_listed(const char *list) {
  size_t n = 0;
  for (const char *k = list; k && *k; n++) {
    const char *c = strstr(k, ", ");
    k = c ? c + 2 : k + strlen(k);
  }
  return n;
}

/* The one rule for a list of hosts: a's hosts, then b's not in a, each
 * once, at most LOG_MAX_HOSTS listed. Written to buf (cap bytes: strlen(a)
 * + strlen(b) + 3 holds it whole; less cuts at a host); returns how many of
 * b's were new (listed or not). */
static size_t hosts_union(const char *a, const char *b, char *buf, size_t cap) {
  if (!cap)
    return 0;
  size_t n = (size_t)snprintf(buf, cap, "%s", a ? a : ""), listed = hosts_listed(a), added = 0;
  n = n < cap ? n : cap - 1;
  for (const char *h = b; h && *h;) {
    const char *c = strstr(h, ", ");
    size_t l = c ? (size_t)(c - h) : strlen(h);
    if (!hosts_have(a, h, l)) {
      added++;
      if (listed < LOG_MAX_HOSTS && n + l + 2 < cap) {
        n += (size_t)snprintf(buf + n, cap - n, "%s%.*s", n ? ", " : "", (int)l, h);
        listed++;
      }
    }
    h = c ? c + 2 : h + l;
  }
  return added;
}

/* Adds host (when the line named one) to the hosts that printed e, once.
 * False when out of memory. */
static bool add_host(arena *a, vmem_log_error *e, const char *host) {
  if (!host[0] || hosts_have(e->hosts, host, strlen(host)))
    return true;
  if (hosts_listed(e->hosts) >= LOG_MAX_HOSTS) { /* the list is full: counted, not listed */
    e->nhosts++;
    return true;
  }
  size_t cap = (e->hosts ? strlen(e->hosts) : 0) + strlen(host) + 3;
  char *n = arena_alloc(a, cap);
  if (!n)
    return false;
  e->nhosts += hosts_union(e->hosts, host, n, cap);
  e->hosts = n;
  return true;
}

void vmem_log_error_fold(vmem_log_error *into, const vmem_log_error *e, char *buf, size_t cap) {
  if (!into || !e)
    return;
  into->count += e->count, into->mentions += e->mentions, into->forms |= e->forms;
  if (!e->hosts || !buf || !cap)
    return;
  size_t beyond = e->nhosts > hosts_listed(e->hosts) ? e->nhosts - hosts_listed(e->hosts) : 0;
  into->nhosts += hosts_union(into->hosts, e->hosts, buf, cap) + beyond;
  into->hosts = buf;
}

/* A "Scoped allocation" line or a listing right after a report belongs to
 * it: the region of a report reaches REGION_MAX bytes past its start. */
static bool explain_all(explainer *x) {
  vmem_log_report *r = x->r;
  const char *s = x->s;
  size_t len = x->len, from = 0, which = 0;
  if (!(r->errors = arena_calloc(&r->a, MAX_ERRORS, sizeof *r->errors)))
    return false;
  anchor_cache cache = {.s = s, .full = len};
  for (int g = 0; g < NANCHORS; g++)
    cache.from[g] = SIZE_MAX; /* nothing remembered yet */
  while (r->count < MAX_ERRORS) {
    size_t hit = next_trigger(&cache, len, from, &which);
    if (hit >= len)
      break;
    /* A report starts at its line, or where the report before it on the
     * same line ended: two reports run together in one paste are two. */
    size_t start = line_start(s, hit);
    start = start < from ? from : start;
    if (which == 8) /* the older profile's totals stand above its listing */
      start = profile_start(s, from, start);
    size_t stop = start + REGION_MAX < len ? start + REGION_MAX : len;
    /* The region ends before the next report; a "Scoped allocation" line or
     * a listing entry after this report's start belongs to it. */
    for (size_t probe = hit + strlen(triggers[which]), w2 = 0; probe < stop;) {
      size_t after = next_trigger(&cache, stop, probe, &w2);
      if (after >= stop)
        break;
      if (!joins(w2)) {
        size_t ls = line_start(s, after);
        stop = ls > start ? ls : after;
        break;
      }
      probe = after + 1;
    }
    size_t n;
    unsigned forms = 0;
    char host[64] = "";
    char *buf = clean(&r->a, s, start, stop, &n, &forms, host, sizeof host);
    if (!buf)
      return false;
    vmem_log_error *e = &r->errors[r->count];
    *e = (vmem_log_error){0}; /* the slot of a report folded just before holds its fields */
    explainer sub = {r, x->t, buf, n, x->err, stop == len};
    const char *t = find(buf, buf + n, triggers[which]);
    const char *begin = t && which != 8 ? buf + line_start(buf, (size_t)(t - buf)) : buf;
    if (buf + n - begin > 11 &&
        !memcmp(begin, "predicted: ", 11)) { /* vmemscope check's own forecast, not the compiler's */
      from = stop > hit ? stop : hit + 1;
      continue;
    }
    read_report(&sub, e, begin, buf + n);
    e->forms = forms | (wrapped(buf, buf + n) ? VMEM_FORM_WRAPPED : 0);
    derive(e);
    e->offset = start; /* the line the report starts on */
    e->count = 1;
    bool folded = false;
    for (size_t i = 0; i < r->count && !folded; i++)
      if (vmem_log_error_same(&r->errors[i], e)) {
        r->errors[i].count++;
        folded = true;
        if (!add_host(&r->a, &r->errors[i], host))
          return false;
      }
    e->hosts = NULL, e->nhosts = 0;
    if (!folded && !add_host(&r->a, e, host))
      return false;
    if (!folded)
      r->count++;
    from = stop > hit ? stop : hit + 1;
  }
  fold_mentions(r);
  return true;
}

vmem_log_report *vmem_explain(const char *text, size_t len, const vmem_target *t, const vmem_allocator *alloc,
                              vmem_error *err) {
  err_clear(err);
  arena a;
  arena_init(&a, alloc);
  vmem_log_report *r = arena_calloc(&a, 1, sizeof *r);
  if (!r) {
    arena_destroy(&a);
    err_set(err, VMEM_ERR_NOMEM, 0, "out of memory");
    return NULL;
  }
  r->a = a;
  vmem_error local;
  err_clear(&local);
  explainer x = {r, t ? t : vmem_target_find("v5e", 3), text ? text : "", text ? len : 0, &local, true};
  if (!explain_all(&x)) {
    vmem_log_report_free(r);
    err_set(err, VMEM_ERR_NOMEM, 0, "out of memory");
    return NULL;
  }
  return r;
}

size_t vmem_log_error_count(const vmem_log_report *r) { return r ? r->count : 0; }
const vmem_log_error *vmem_log_error_at(const vmem_log_report *r, size_t i) {
  return r && i < r->count ? &r->errors[i] : NULL;
}

void vmem_log_report_free(vmem_log_report *r) {
  if (!r)
    return;
  arena a = r->a;
  arena_destroy(&a);
}

const char *vmem_oom_kind_name(vmem_oom_kind kind) {
  static const char *const names[] = {"scoped_vmem", "program_vmem", "vmem_request_exceeds_memory",
                                      "smem",        "hbm",          "not_compiler",
                                      "listing",     "emitter_abort"};
  return (unsigned)kind < sizeof names / sizeof *names ? names[kind] : "invalid";
}

const char *vmem_log_form_name(unsigned i) {
  static const char *const names[VMEM_FORM_COUNT] = {"wrapped", "quoted", "fenced",   "html",
                                                     "escaped", "ansi",   "prefixed", "json"};
  return i < VMEM_FORM_COUNT ? names[i] : "invalid";
}
