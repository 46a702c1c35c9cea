/* The HLO reader's two halves: a module read with its text cut at any line
 * (a second thread reads from the cut) is the module one pass reads — the
 * same printout, instruction ids, computation indexes, callers and fusion
 * marks — and a module one pass refuses is refused with the same error.
 * Cuts that are not computation boundaries must fall back to one pass.
 * Then a module's backend configs, decoded in two halves on two threads
 * (hlo_scoped_all): one pass's figures, and one pass's first error. */
#define _GNU_SOURCE /* RTLD_NEXT */
#include <dlfcn.h>
#include <pthread.h>

#include "test.h"
#include "../src/hlo/hlo.h"

/* Every thread the library starts passes here (the test's definition comes
 * before libc's in the link), so that a test can count them. Not under a
 * sanitizer that intercepts pthread_create itself: RTLD_NEXT would skip its
 * interceptor, and ThreadSanitizer then fails at pthread_join on a thread it
 * never saw start. There the counts are not checked (COUNTS_THREADS 0). */
#if defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define SANITIZED_THREADS 1
#endif
#endif
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define SANITIZED_THREADS 1
#endif
#ifdef SANITIZED_THREADS
#define COUNTS_THREADS 0
#else
#define COUNTS_THREADS 1
#endif
static int threads_started;
#if COUNTS_THREADS
int pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *), void *arg) {
  typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
  static create_fn real;
  if (!real)
    *(void **)&real = dlsym(RTLD_NEXT, "pthread_create");
  threads_started++;
  return real(th, attr, fn, arg);
}
#endif

/* Fixtures: callees in both halves, a call list, a while, a comment and a
 * '}' alone on a line inside a multi-line attribute (a false cut). */
static const char good[] =
    "HloModule halves, is_scheduled=true\n"
    "\n"
    "%add (x: f32[], y: f32[]) -> f32[] {\n"
    "  %x = f32[] parameter(0)\n"
    "  %y = f32[] parameter(1)\n"
    "  ROOT %s = f32[] add(%x, %y)\n"
    "}\n"
    "\n"
    "%fused.1 (p: f32[8]) -> f32[8] {\n"
    "  %p = f32[8]{0} parameter(0)\n"
    "  ROOT %n = f32[8]{0} negate(%p)\n"
    "}\n"
    "\n"
    "/* a comment between computations */\n"
    "%cond (c: s32[]) -> pred[] {\n"
    "  %c = s32[] parameter(0)\n"
    "  %k = s32[] constant(4)\n"
    "  ROOT %lt = pred[] compare(%c, %k), direction=LT\n"
    "}\n"
    "\n"
    "%body (b: s32[]) -> s32[] {\n"
    "  %b = s32[] parameter(0)\n"
    "  %one = s32[] constant(1)\n"
    "  ROOT %inc = s32[] add(%b, %one), frontend_attributes={x=\"1\",\n"
    "y={\n"
    "}\n"
    "}\n"
    "}\n"
    "\n"
    "%fused.2 (q: f32[8]) -> f32[8] {\n"
    "  %q = f32[8]{0} parameter(0)\n"
    "  %r = f32[] constant(0)\n"
    "  %red = f32[] reduce(%q, %r), dimensions={0}, to_apply=%add\n"
    "  ROOT %bc = f32[8]{0} broadcast(%red), dimensions={}\n"
    "}, execution_thread=\"main\"\n"
    "\n"
    "%branch.a (a: f32[8]) -> f32[8] {\n"
    "  ROOT %a = f32[8]{0} parameter(0)\n"
    "}\n"
    "\n"
    "%branch.b (bb: f32[8]) -> f32[8] {\n"
    "  %bb = f32[8]{0} parameter(0)\n"
    "  ROOT %f = f32[8]{0} fusion(%bb), kind=kLoop, calls=%fused.1\n"
    "}\n"
    "\n"
    "ENTRY %main (x0: f32[8], i0: s32[], j0: s32[]) -> f32[8] {\n"
    "  %x0 = f32[8]{0} parameter(0)\n"
    "  %i0 = s32[] parameter(1)\n"
    "  %j0 = s32[] parameter(2)\n"
    "  %w = s32[] while(%i0), condition=%cond, body=%body\n"
    "  %f1 = f32[8]{0} fusion(%x0), kind=kLoop, calls=%fused.1\n"
    "  %f2 = f32[8]{0} fusion(%f1), kind=kLoop, calls=%fused.2\n"
    "  ROOT %cnd = f32[8]{0} conditional(%j0, %f2, %f1), branch_computations={%branch.a, %branch.b}\n"
    "}\n";

/* Each bad module is `good` with one edit, so that the error may fall in
 * either half or only show when the halves join. */
typedef struct edit {
  const char *from, *to;
} edit;

static const edit bad[] = {
    {"calls=%fused.1\n}", "calls=%later\n}\n\n%later (z: f32[8]) -> f32[8] {\n  ROOT %z = f32[8]{0} parameter(0)\n}"},
    {"%branch.a (", "%fused.1 ("}, /* a duplicate computation across the halves ... */
    {"%branch.a (", "%add (u: f32[]) -> f32[] {\n  ROOT %u = f32[] parameter(0)\n}\n\n%branch.a ("}, /* ... unused */
    {"%fused.1 (p", "ENTRY %fused.1 (p"},   /* two ENTRYs, far apart */
    {"calls=%fused.2", "calls=%nowhere"},   /* an unknown callee in the second half */
    {"to_apply=%add", "to_apply=%nothing"}, /* ... and in the middle */
    {"ROOT %a = f32[8]{0} parameter(0)", "ROOT %a = f32[8]{0} negate(%missing)"},
    {"ROOT %lt = pred[]", "ROOT %lt = pred["},         /* a syntax error early */
    {"ROOT %cnd = f32[8]{0}", "ROOT %cnd = f32[8]{0"}, /* ... and late */
    {"}, execution_thread=\"main\"", "}, execution_thread=main"},
    {"%cond (c: s32[]) -> pred[] {", "%cond (c: s32[]) -> pred[] "},
    /* Across a cut inside a computation: */
    {"  ROOT %cnd", "  %w = s32[] copy(%i0)\n  ROOT %cnd"}, /* a name defined before the cut */
    {"fusion(%x0), kind=kLoop, calls=%fused.1", "fusion(%f2), kind=kLoop, calls=%fused.1"}, /* used before */
    {"  %f1 = f32[8]{0} fusion", "  ROOT %f1 = f32[8]{0} fusion"},                          /* two ROOTs */
    {"to_apply=%add", "to_apply=%fused.2"}, /* a computation calling itself */
};

static char *apply(const edit *e) {
  const char *at = strstr(good, e->from);
  assert_non_null(at);
  size_t head = (size_t)(at - good), from = strlen(e->from), to = strlen(e->to);
  char *s = malloc(sizeof good + to);
  assert_non_null(s);
  memcpy(s, good, head);
  memcpy(s + head, e->to, to);
  strcpy(s + head + to, at + from);
  return s;
}

static char *print(const vmem_hlo_module *m) {
  size_t n = vmem_hlo_print(m, NULL, 0);
  char *buf = malloc(n + 1);
  assert_non_null(buf);
  vmem_hlo_print(m, buf, n + 1);
  return buf;
}

static size_t comp_index(const vmem_hlo_computation *c) { return c ? c->index : SIZE_MAX; }

/* The parts of the IR the printout does not show. */
static void same_structure(const vmem_hlo_module *a, const vmem_hlo_module *b) {
  assert_int_equal(a->ncomps, b->ncomps);
  assert_int_equal(a->total_instrs, b->total_instrs);
  assert_int_equal(a->entry->index, b->entry->index);
  for (uint32_t ci = 0; ci < a->ncomps; ci++) {
    const vmem_hlo_computation *x = a->comps[ci], *y = b->comps[ci];
    assert_ptr_equal(y->module, b);
    assert_ptr_equal(vmem_hlo_find_computation(b, y->name.ptr, y->name.len), y);
    assert_int_equal(x->index, ci);
    assert_int_equal(y->index, ci);
    assert_int_equal(x->is_fusion, y->is_fusion);
    assert_int_equal(x->is_entry, y->is_entry);
    assert_int_equal(x->ncallers, y->ncallers);
    assert_int_equal(x->root->id, y->root->id);
    for (uint32_t k = 0; k < x->ncallers; k++)
      assert_int_equal(x->callers[k]->id, y->callers[k]->id);
    for (uint32_t k = 0; k < x->ninstrs; k++) {
      const vmem_hlo_instruction *i = x->instrs[k], *j = y->instrs[k];
      assert_int_equal(i->id, j->id);
      assert_ptr_equal(j->parent, y);
      assert_int_equal(i->noperands, j->noperands);
      for (uint32_t o = 0; o < i->noperands; o++)
        assert_int_equal(i->operands[o]->id, j->operands[o]->id);
      assert_int_equal(i->ncalled, j->ncalled);
      for (uint16_t o = 0; i->kind == HLO_KIND_CALLS && o < i->ncalled; o++)
        assert_int_equal(comp_index(i->called[o]), comp_index(j->called[o]));
    }
  }
}

/* Every cut at a line start (and the byte after it) gives what one pass
 * gives; returns how many cuts were joined rather than dropped. */
static size_t check_every_cut(const char *text, size_t len, const char *what) {
  size_t joined = 0;
  vmem_error one, two;
  vmem_hlo_module *m = hlo_parse_cut(text, len, HLO_CUT_NONE, &one);
  char *want = m ? print(m) : NULL;
  size_t step = len > (64 << 10) ? len / 400 : 1; /* a large corpus file: about 400 cuts */
  for (size_t cut = 1; cut < len; cut += step) {
    if (step == 1 && text[cut - 1] != '\n' && (cut < 2 || text[cut - 2] != '\n'))
      continue;
    vmem_hlo_module *h = hlo_parse_cut(text, len, cut, &two);
    if (!m || !h) {
      if (m || h || one.code != two.code || one.offset != two.offset || strcmp(one.message, two.message))
        fail_msg("%s cut at %zu: one pass %s (%s at %zu), halves %s (%s at %zu)", what, cut, m ? "reads" : "fails",
                 one.message, one.offset, h ? "read" : "fail", two.message, two.offset);
      vmem_hlo_free(h);
      continue;
    }
    joined += h->halves;
    char *got = print(h);
    if (strcmp(want, got))
      fail_msg("%s cut at %zu: the printout differs", what, cut);
    same_structure(m, h);
    free(got);
    vmem_hlo_free(h);
  }
  free(want);
  vmem_hlo_free(m);
  return joined;
}

static void test_fixture_every_cut(void **state) {
  (void)state;
  /* A cut at the start of every computation but the first (7) and of every
   * instruction line (25), or one byte into its indent (25), joins; the rest
   * fall back: blank lines, the comment, a '}' line, the execution_thread
   * line, the lines of body's multi-line attribute ("y={" looks like an
   * instruction and is not one), one byte into a name. */
  assert_int_equal(check_every_cut(good, strlen(good), "good"), 57);
}

static void test_errors_every_cut(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    char *s = apply(&bad[i]);
    vmem_error err;
    vmem_hlo_module *m = hlo_parse_cut(s, strlen(s), HLO_CUT_NONE, &err);
    if (m)
      fail_msg("bad[%zu] parses", i); /* each edit must break the module */
    check_every_cut(s, strlen(s), "bad");
    free(s);
  }
}

/* s[0..n) read with the cut the reader picks and in one pass: the same
 * module. Returns the module read in halves (free it). */
static vmem_hlo_module *check_auto_cut(const char *s, size_t n) {
  vmem_error e1, e2;
  vmem_hlo_module *a = hlo_parse_cut(s, n, HLO_CUT_NONE, &e1);
  vmem_hlo_module *b = hlo_parse_cut(s, n, HLO_CUT_AUTO, &e2);
  assert_non_null(a);
  assert_non_null(b);
  assert_false(a->halves);
  if (sys_processors() >= 2)
    assert_true(b->halves);
  same_structure(a, b);
  char *x = print(a), *y = print(b);
  assert_string_equal(x, y);
  free(x);
  free(y);
  vmem_hlo_free(a);
  return b;
}

/* Appends computations %f.0, %f.1, ... (a negate each, `first` after the
 * first's, `each` after every other's) to s[0..n) until n reaches `until`;
 * returns the new length. */
static size_t negates(char *s, size_t n, size_t until, const char *first, const char *each) {
  for (int k = 0; n < until; k++)
    n += (size_t)sprintf(s + n,
                         "%%f.%d (p: f32[8]) -> f32[8] {\n  %%p = f32[8]{0} parameter(0)\n"
                         "  ROOT %%n = f32[8]{0} negate(%%p)%s\n}\n\n",
                         k, k ? each : first);
  return n;
}

/* A buffer of cap bytes holding "HloModule name" and negates up to
 * `until`; its length in *n. */
static char *negates_module(const char *name, size_t cap, size_t until, const char *first, const char *each,
                            size_t *n) {
  char *s = malloc(cap);
  assert_non_null(s);
  *n = negates(s, (size_t)sprintf(s, "HloModule %s\n\n", name), until, first, each);
  return s;
}

/* A module of many computations, cut between two of them. */
static void test_large_module_is_cut(void **state) {
  (void)state;
  size_t cap = 6u << 20, n;
  char *s = negates_module("big", cap, cap - 4096, ", metadata={op_name=\"first\"}", "", &n);
  n += (size_t)sprintf(s + n, "ENTRY %%main (x: f32[8]) -> f32[8] {\n  %%x = f32[8]{0} parameter(0)\n"
                              "  ROOT %%c = f32[8]{0} fusion(%%x), kind=kLoop, calls=%%f.0\n}\n");
  vmem_hlo_module *b = check_auto_cut(s, n);
  assert_int_equal(b->comps[0]->ncallers, 1);
  assert_true(b->comps[0]->is_fusion);
  vmem_hlo_free(b);
  free(s);
}

/* threads = 1: a module that two threads read by default is read, its
 * configs decoded and its program planned on the calling thread alone,
 * to the same result. */
static void test_one_thread_option(void **state) {
  (void)state;
  size_t cap = 6u << 20, n;
  char *s = negates_module("big", cap, cap - 4096, ", metadata={op_name=\"first\"}", "", &n);
  n += (size_t)sprintf(s + n, "ENTRY %%main (x: f32[8]) -> f32[8] {\n  %%x = f32[8]{0} parameter(0)\n"
                              "  ROOT %%c = f32[8]{0} fusion(%%x), kind=kLoop, calls=%%f.0\n}\n");
  vmem_error err;
  threads_started = 0;
  vmem_hlo_module *two = vmem_hlo_parse_with(s, n, NULL, &err);
  assert_non_null(two);
  if (COUNTS_THREADS && sys_processors() >= 2)
    assert_true(threads_started > 0);
  vmem_parse_options one = {NULL, 1};
  threads_started = 0;
  vmem_hlo_module *m = vmem_hlo_parse_with(s, n, &one, &err);
  assert_non_null(m);
  vmem_hlo_scoped *sc = calloc(vmem_hlo_instruction_total(m), sizeof *sc);
  assert_non_null(sc);
  assert_int_equal(vmem_hlo_module_scoped(m, sc, &err), VMEM_OK);
  vmem_program pr;
  assert_int_equal(vmem_hlo_program_vmem(m, vmem_target_find("v5e", 3), NULL, &pr, NULL, &err), VMEM_OK);
  if (COUNTS_THREADS)
    assert_int_equal(threads_started, 0);
  assert_int_equal(vmem_hlo_instruction_total(m), vmem_hlo_instruction_total(two));
  vmem_program_free(&pr);
  free(sc);
  vmem_hlo_free(m);
  vmem_hlo_free(two);
  free(s);
}

/* The heap packer's threads option: one thread, the offsets two give. */
static void test_heap_one_thread(void **state) {
  (void)state;
  size_t n = 70000;
  vmem_heap_buffer *a = calloc(n, sizeof *a), *b = calloc(n, sizeof *b);
  assert_non_null(a);
  assert_non_null(b);
  uint64_t x = 12345;
  for (size_t i = 0; i < n; i++) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    int64_t start = (int64_t)(i / 4), len = (int64_t)((x >> 33) % 64);
    a[i] = (vmem_heap_buffer){.size = 512 + (x >> 40) % 8192, .start = start, .end = start + len};
    b[i] = a[i];
  }
  vmem_heap_result ra, rb;
  vmem_error err;
  vmem_heap_options two = {512, NULL, true, 0}, one = {512, NULL, true, 1};
  threads_started = 0;
  assert_int_equal(vmem_heap_pack_with(a, n, &two, &ra, &err), VMEM_OK);
  if (COUNTS_THREADS && sys_processors() >= 2)
    assert_true(threads_started > 0);
  threads_started = 0;
  assert_int_equal(vmem_heap_pack_with(b, n, &one, &rb, &err), VMEM_OK);
  if (COUNTS_THREADS)
    assert_int_equal(threads_started, 0);
  assert_int_equal(ra.heap_bytes, rb.heap_bytes);
  for (size_t i = 0; i < n; i++)
    assert_int_equal(a[i].offset, b[i].offset);
  free(a);
  free(b);
}

/* A module whose last computation is over three quarters of it, calling
 * the computations before it: cut inside it, at its middle instruction. */
static void test_skewed_module_is_cut(void **state) {
  (void)state;
  size_t cap = 3u << 20, n;
  char *s = negates_module("skewed", cap, cap / 100 * 23, "", "", &n);
  n += (size_t)sprintf(s + n, "ENTRY %%main (x: f32[8]) -> f32[8] {\n  %%x = f32[8]{0} parameter(0)\n"
                              "  %%a.0 = f32[8]{0} fusion(%%x), kind=kLoop, calls=%%f.0\n");
  int k = 1;
  for (; n < cap - 4096; k++)
    n += (size_t)sprintf(s + n, "  %%a.%d = f32[8]{0} fusion(%%a.%d), kind=kLoop, calls=%%f.%d\n", k, k - 1, k % 97);
  n += (size_t)sprintf(s + n, "  ROOT %%r = f32[8]{0} copy(%%a.%d)\n}\n", k - 1);
  vmem_hlo_free(check_auto_cut(s, n));
  free(s);
}

/* Where the cut goes: between computations nearest the middle, ahead or
 * behind; inside a computation when none is near; nowhere without either. */
static void test_where_the_cut_goes(void **state) {
  (void)state;
  char s[4096];
  const char *comp = "c (p: f32[]) -> f32[] {\n  ROOT p = f32[] parameter(0)\n}\n"; /* 56 bytes */
  size_t n = 0;
  for (int k = 0; k < 20; k++)
    n += (size_t)sprintf(s + n, "%s", comp);
  assert_int_equal(hlo_find_cut(s, 0, n), n / 2); /* boundaries every 56 bytes, one at the middle */
  n = (size_t)sprintf(s, "%s%s", comp, comp);
  n += (size_t)sprintf(s + n, "l (p: f32[]) -> f32[] {\n  q = f32[] parameter(0)\n  ROOT r = f32[] negate(q)\n}\n");
  n += (size_t)sprintf(s + n, "%s", comp); /* cuts at 56, 112 and 190 of 246: 112 is nearest the middle */
  assert_int_equal(n, 246);
  assert_int_equal(hlo_find_cut(s, 0, n), 112);
  n = (size_t)sprintf(s, "%se {\n  a0 = f32[] parameter(0)\n", comp); /* one cut, at 56, outside the middle */
  for (int k = 1; k < 12; k++)
    n += (size_t)sprintf(s + n, "  a%d = f32[] negate(a%d)\n", k, k - 1);
  n += (size_t)sprintf(s + n, "}\n");
  size_t cut = hlo_find_cut(s, 0, n); /* none within a tenth of the middle: an instruction after it */
  assert_true(cut > n / 2 && !strncmp(s + cut, "  ", 2));
  n = (size_t)sprintf(s, "e {\n  ROOT a = f32[] parameter(0) /* a long line with no cut or instruction in it */\n}\n");
  assert_int_equal(hlo_find_cut(s, 0, n), 0);
}

/* The project's own modules, and the corpus's when it is beside the checkout. */
static void check_file(const char *path) {
  size_t len = 0;
  char *s = test_read_file(path, &len);
  if (!s)
    return;
  check_every_cut(s, len, path);
  free(s);
}

/* A NUL byte in a large module is searched for in two halves too: the
 * error names the first, in either half. */
static void test_nul_in_either_half(void **state) {
  (void)state;
  size_t cap = 2u << 20, n;
  const char *md = ", metadata={op_name=\"x\"}"; /* strings, which the reader skips with memchr */
  char *s = negates_module("nul", cap, cap - 4096, md, md, &n);
  size_t late = n / 4 * 3, early = n / 4;
  while (s[late] != '"')
    late++;
  while (s[early] != '"')
    early++;
  vmem_error err;
  s[late + 1] = '\0'; /* inside a string, which the reader skips with memchr */
  assert_null(hlo_parse_cut(s, n, HLO_CUT_AUTO, &err));
  assert_int_equal(err.offset, late + 1);
  assert_non_null(strstr(err.message, "NUL"));
  s[early + 1] = '\0';
  assert_null(hlo_parse_cut(s, n, HLO_CUT_AUTO, &err));
  assert_int_equal(err.offset, early + 1);
  free(s);
}

/* ---- configs in two halves (hlo_scoped_all) --------------------------------- */

/* A module of n custom calls whose configs vary: raw JSON with scoped
 * figures, the same quoted, another backend's non-JSON text, none; a
 * malformed TPU config at each index in broken_at[0..nbad). */
static char *configs_module(int n, const int *broken_at, int nbad) {
  size_t cap = (size_t)n * 300 + 64, len = 0;
  char *s = malloc(cap);
  assert_non_null(s);
  len += (size_t)sprintf(s, "HloModule cfgs\nENTRY %%e {\n");
  for (int i = 0; i < n; i++) {
    bool broken = false;
    for (int k = 0; k < nbad; k++)
      broken |= broken_at[k] == i;
    len += (size_t)sprintf(s + len, "  %%c.%d = f32[8]{0} custom-call(), custom_call_target=\"%s\"", i,
                           broken ? "tpu_custom_call" : "x");
    if (broken)
      len += (size_t)sprintf(s + len, ", backend_config={\"a\" %d}", i);
    else if (i % 4 == 0)
      len += (size_t)sprintf(s + len,
                             ", backend_config={\"scoped_memory_configs\":[{\"memory_space\":\"1\",\"size\":\"%d\"}],"
                             "\"used_scoped_memory_configs\":[{\"memory_space\":1,\"size\":%d}]}",
                             1024 * (i + 1), 512 * i);
    else if (i % 4 == 1)
      len += (size_t)sprintf(s + len,
                             ", backend_config=\"{\\\"scoped_memory_configs\\\":[{\\\"memory_space\\\":1,"
                             "\\\"size\\\":%d}]}\"",
                             7 * i);
    else if (i % 4 == 2)
      len += (size_t)sprintf(s + len, ", backend_config=\"{bar = %d : i32}\"", i);
    len += (size_t)sprintf(s + len, "\n");
  }
  sprintf(s + len, "}\n");
  return s;
}

static void same_scoped(const vmem_hlo_scoped *a, const vmem_hlo_scoped *b, size_t n) {
  for (size_t i = 0; i < n; i++) {
    assert_int_equal(a[i].limit_bytes, b[i].limit_bytes);
    assert_int_equal(a[i].used_bytes, b[i].used_bytes);
    assert_int_equal(a[i].internal_scratch_bytes, b[i].internal_scratch_bytes);
    assert_int_equal(a[i].has_kernel_body, b[i].has_kernel_body);
    assert_int_equal(a[i].config_is_json, b[i].config_is_json);
  }
}

/* Every config decoded at once, on one thread or two, is what decoding
 * each instruction's gives. */
static void test_configs_in_halves(void **state) {
  (void)state;
  enum { N = 1000 };
  char *s = configs_module(N, NULL, 0);
  vmem_error err;
  vmem_hlo_module *m = vmem_hlo_parse(s, strlen(s), NULL, &err);
  assert_non_null(m);
  static vmem_hlo_scoped each[N], one[N], two[N], pub[N];
  for (size_t i = 0; i < N; i++)
    assert_int_equal(vmem_hlo_instruction_scoped(m->comps[0]->instrs[i], &each[i], &err), VMEM_OK);
  assert_int_equal(hlo_scoped_all(m, one, SIZE_MAX, &err), VMEM_OK);
  assert_int_equal(hlo_scoped_all(m, two, 0, &err), VMEM_OK);
  assert_int_equal(vmem_hlo_module_scoped(m, pub, &err), VMEM_OK);
  assert_int_equal(vmem_hlo_module_scoped(m, NULL, &err), VMEM_ERR_ARGUMENT);
  assert_int_equal(vmem_hlo_module_scoped(NULL, pub, &err), VMEM_ERR_ARGUMENT);
  same_scoped(each, one, N);
  same_scoped(each, two, N);
  same_scoped(each, pub, N);
  assert_int_equal(two[8].limit_bytes, 9 * 1024); /* the fixture says what it means */
  assert_int_equal(two[8].used_bytes, 8 * 512);
  assert_int_equal(two[9].limit_bytes, 63);
  assert_false(two[10].config_is_json);
  assert_int_equal(two[11].limit_bytes, -1);
  vmem_hlo_free(m);
  free(s);
}

/* Malformed configs in both halves: the error is the first one's, as one
 * pass gives, however the threads run. */
static void test_configs_first_error(void **state) {
  (void)state;
  enum { N = 1000 };
  const int broken_at[] = {300, 800};
  char *s = configs_module(N, broken_at, 2);
  vmem_error err, e1, e2;
  vmem_hlo_module *m = vmem_hlo_parse(s, strlen(s), NULL, &err);
  assert_non_null(m);
  static vmem_hlo_scoped out[N];
  assert_int_equal(vmem_hlo_instruction_scoped(m->comps[0]->instrs[300], out, &err), VMEM_ERR_SYNTAX);
  for (int round = 0; round < 20; round++) {
    assert_int_equal(hlo_scoped_all(m, out, SIZE_MAX, &e1), VMEM_ERR_SYNTAX);
    assert_int_equal(hlo_scoped_all(m, out, 0, &e2), VMEM_ERR_SYNTAX);
    assert_int_equal(e1.offset, err.offset);
    assert_int_equal(e2.offset, err.offset);
    assert_string_equal(e2.message, err.message);
  }
  vmem_hlo_free(m);
  free(s);
}

static void test_files_every_cut(void **state) {
  (void)state;
  static const char *const files[] = {"/examples/attention.hlo",         "/tests/golden/std_ops.hlo",
                                      "/tests/golden/program_joins.hlo", "/tests/golden/preopt.hlo",
                                      "/tests/golden/two_kernels.hlo",   "/tests/golden/unbalanced.hlo",
                                      "/tests/golden/truncated.hlo",     "/tests/golden/unknown_operand.hlo"};
  char path[4096];
  for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
    snprintf(path, sizeof path, "%s%s", PROJECT_DIR, files[i]);
    check_file(path);
  }
  static const char *const corpus[] = {"gpu_large_loop_fusion_1.8MB.hlo", "dynamic_dims_while_conditional.hlo",
                                       "host_offload_async_execution_thread.hlo"};
  for (size_t i = 0; i < sizeof corpus / sizeof *corpus; i++) {
    snprintf(path, sizeof path, "%s/../shared/corpus/hlo/%s", PROJECT_DIR, corpus[i]);
    check_file(path); /* absent: nothing to compare */
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fixture_every_cut),   cmocka_unit_test(test_errors_every_cut),
      cmocka_unit_test(test_large_module_is_cut), cmocka_unit_test(test_one_thread_option),
      cmocka_unit_test(test_heap_one_thread),     cmocka_unit_test(test_skewed_module_is_cut),
      cmocka_unit_test(test_where_the_cut_goes),  cmocka_unit_test(test_files_every_cut),
      cmocka_unit_test(test_nul_in_either_half),  cmocka_unit_test(test_configs_in_halves),
      cmocka_unit_test(test_configs_first_error),
  };
  return RUN(tests);
}
