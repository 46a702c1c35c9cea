/* explain through the library: kinds, printed sizes as intervals, the
 * custom-kernel judgement and its evidence, listings recomputed, folding. */
#include <stdio.h>

#include "test.h"

static vmem_log_report *explain(const char *log) {
  vmem_error err;
  vmem_log_report *r = vmem_explain(log, strlen(log), NULL, NULL, &err);
  assert_non_null(r);
  return r;
}

static void test_scoped_custom_kernel(void **state) {
  (void)state;
  vmem_log_report *r =
      explain("noise\nRESOURCE_EXHAUSTED: Ran out of memory in memory space vmem while allocating on stack for "
              "%mm_kernel.3 = f32[512,512]{1,0:T(8,128)} custom-call(%a), custom_call_target=\"tpu_custom_call\". "
              "Scoped allocation with size 20.50M and limit 16.00M exceeded scoped vmem limit by 4.50M.\n");
  assert_int_equal(vmem_log_error_count(r), 1);
  const vmem_log_error *e = vmem_log_error_at(r, 0);
  assert_int_equal(e->kind, VMEM_OOM_SCOPED_VMEM);
  assert_int_equal(e->custom_kernel, 1);
  assert_string_equal(e->instruction, "%mm_kernel.3");
  assert_string_equal(e->shape, "f32[512,512]{1,0:T(8,128)}");
  assert_string_equal(e->opcode, "custom-call");
  assert_string_equal(e->kernel, "mm_kernel");
  assert_string_equal(e->size.text, "20.50M");
  /* 20.50M: the KiB count / 1024 rounds to 20.50 */
  assert_true(e->size.lo <= 21495808 && 21495808 <= e->size.hi);
  assert_string_equal(e->limit.text, "16.00M");
  assert_int_equal(e->offset, 6);
  vmem_log_report_free(r);
}

static void test_standard_op_and_folding(void **state) {
  (void)state;
  const char *one = "Ran out of memory in memory space vmem while allocating on stack for %reduce-window.4 = "
                    "f32[128,6]{1,0} reduce-window(%x, %y). Scoped allocation with size 17.00M and limit 16.00M "
                    "exceeded scoped vmem limit by 1.00M.\n";
  char log[2048];
  snprintf(log, sizeof log, "E0101 12:00:00.000000 1 x.py:1] %sValueError: %s", one, one);
  vmem_log_report *r = explain(log);
  assert_int_equal(vmem_log_error_count(r), 1);
  const vmem_log_error *e = vmem_log_error_at(r, 0);
  assert_int_equal(e->count, 2);
  assert_int_equal(e->custom_kernel, 0);
  assert_string_equal(e->opcode, "reduce-window");
  vmem_log_report_free(r);
}

/* An issue as users paste it: the error's title in a heading, a sentence
 * quoting it, then the log. The figure-less mentions fold into the printed
 * report, whichever side of it they stand; two errors with figures stay two. */
static void test_mentions_fold(void **state) {
  (void)state;
  vmem_log_report *r = explain(
      "## Ran out of memory in memory space vmem\n"
      "My step fails with Ran out of memory in memory space vmem while allocating on stack after the upgrade.\n"
      "XlaRuntimeError: RESOURCE_EXHAUSTED: Ran out of memory in memory space vmem while allocating on stack for "
      "%attn.7 = bf16[8,128]{1,0} custom-call(%q), custom_call_target=\"tpu_custom_call\". "
      "Scoped allocation with size 18.00M and limit 16.00M exceeded scoped vmem limit by 2.00M.\n"
      "Same as #12: Ran out of memory in memory space smem.\n"
      "Ran out of memory in memory space smem. Used 1.00M of 1.00M smem. Exceeded smem capacity by 1.7K.\n"
      "Edit: also seen Ran out of memory in memory space hbm.\n");
  assert_int_equal(vmem_log_error_count(r), 3);
  const vmem_log_error *e = vmem_log_error_at(r, 0);
  assert_int_equal(e->kind, VMEM_OOM_SCOPED_VMEM);
  assert_int_equal(e->mentions, 2); /* the heading and the sentence */
  assert_int_equal(e->count, 1);
  assert_string_equal(e->instruction, "%attn.7");
  e = vmem_log_error_at(r, 1);
  assert_int_equal(e->kind, VMEM_OOM_SMEM);
  assert_int_equal(e->mentions, 1);
  assert_string_equal(e->used.text, "1.00M");
  e = vmem_log_error_at(r, 2); /* nothing with figures to stand for: kept */
  assert_int_equal(e->kind, VMEM_OOM_HBM);
  assert_int_equal(e->mentions, 0);
  vmem_log_report_free(r);
}

static void test_program_listing(void **state) {
  (void)state;
  vmem_log_report *r = explain("Ran out of memory in memory space vmem. Used 20.00M of 16.00M vmem. Exceeded vmem "
                               "capacity by 4.00M.\n  1. Size: 64.0K\n     Shape: f32[128,6]{1,0}\n"
                               "     Unpadded size: 3.0K\n     Allocation type: scoped\n"
                               "  2. Size: 4.0K\n     Shape: f32[128,6]{1,0}\n     Unpadded size: 3.0K\n");
  const vmem_log_error *e = vmem_log_error_at(r, 0);
  assert_int_equal(e->kind, VMEM_OOM_PROGRAM_VMEM);
  assert_string_equal(e->used.text, "20.00M");
  assert_string_equal(e->capacity.text, "16.00M");
  assert_int_equal(e->nallocs, 2);
  assert_true(e->allocs[0].recomputed);
  assert_int_equal(e->allocs[0].recomputed_bytes, 65536);
  assert_true(e->allocs[0].size_agrees);
  assert_false(e->allocs[1].size_agrees); /* 4.0K is not what f32[128,6] takes */
  vmem_log_report_free(r);
}

/* libtpu's reduce-window CHECK at a global limit of 4 MiB or less: its own
 * kind, a standard op, and the limit derived from the emitter's budget
 * (the limit in KiB less 4096). A budget that names no positive limit
 * derives none. */
static void test_emitter_abort(void **state) {
  (void)state;
  vmem_log_report *r = explain("F1204 22:10:01.123456 7 reduce_window_emitter.cc:642] Check failed: "
                               "maximum_vmem_usage_kib > 0 (-2164 vs. 0) Reduce window emitter needs VMEM\n"
                               "*** Check failure stack trace: ***\n");
  assert_int_equal(vmem_log_error_count(r), 1);
  const vmem_log_error *e = vmem_log_error_at(r, 0);
  assert_int_equal(e->kind, VMEM_OOM_EMITTER_ABORT);
  assert_string_equal(vmem_oom_kind_name(e->kind), "emitter_abort");
  assert_int_equal(e->custom_kernel, 0);
  assert_true(e->limit.present && (e->derived & VMEM_DERIVED_LIMIT));
  assert_int_equal(e->limit.lo, 1932u * 1024);
  assert_int_equal(e->limit.hi, 1932u * 1024);
  vmem_log_report_free(r);
  r = explain("Check failed: maximum_vmem_usage_kib > 0 (-4096 vs. 0)\n");
  assert_int_equal(vmem_log_error_count(r), 1);
  assert_false(vmem_log_error_at(r, 0)->limit.present); /* a limit of 0 KiB is no limit */
  vmem_log_report_free(r);
  static const char *const bad[] = {"Check failed: maximum_vmem_usage_kib > 0 (4611686018427387000 vs. 0)\n",
                                    "Check failed: maximum_vmem_usage_kib > 0 (-99999999999999999999999 vs. 0)\n",
                                    "Check failed: maximum_vmem_usage_kib > 0 ("};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    r = explain(bad[i]);
    assert_int_equal(vmem_log_error_count(r), 1);
    assert_false(vmem_log_error_at(r, 0)->limit.present);
    vmem_log_report_free(r);
  }
  r = explain("Check failed: maximum_vmem_usage_kib > 0 (0 vs. 0)\n"); /* a limit of exactly 4096 KiB */
  assert_int_equal(vmem_log_error_at(r, 0)->limit.lo, 4096u * 1024);
  vmem_log_report_free(r);
}

static void test_other_kinds(void **state) {
  (void)state;
  static const struct {
    const char *log;
    vmem_oom_kind kind;
  } cases[] = {
      {"Ran out of memory in memory space smem. Used 1.00M of 1.00M smem. Exceeded smem capacity by 1.7K.",
       VMEM_OOM_SMEM},
      {"Ran out of memory in memory space hbm. Used 21.95G of 15.48G hbm.", VMEM_OOM_HBM},
      {"Allocation (size=134217728) would exceed memory (size=67108864) :: #a [space=vmem, tag = 'scoped memory for k.1']",
       VMEM_OOM_VMEM_REQUEST},
      {"Ran out of memory in memory space vmem.\nEstimated 268.96MB exceeds 67.11MB vmem capacity.",
       VMEM_OOM_NOT_COMPILER},
      {"Aborting compilation early because it's unlikely to have enough memory. Requires 3.47E, has 14.49G available.",
       VMEM_OOM_HBM},
      {"  XLA label: fusion.1 = fusion(a)\n  Allocation type: scoped\n", VMEM_OOM_LISTING},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    vmem_log_report *r = explain(cases[i].log);
    if (vmem_log_error_count(r) != 1 || vmem_log_error_at(r, 0)->kind != cases[i].kind)
      fail_msg("case %zu: %zu errors, kind %s", i, vmem_log_error_count(r),
               vmem_log_error_count(r) ? vmem_oom_kind_name(vmem_log_error_at(r, 0)->kind) : "-");
    vmem_log_report_free(r);
  }
  vmem_log_report *r = explain("all good\nno errors here\n");
  assert_int_equal(vmem_log_error_count(r), 0);
  vmem_log_report_free(r);
  r = explain("");
  assert_int_equal(vmem_log_error_count(r), 0);
  vmem_log_report_free(r);
}

/* The same E1001 pasted in the forms people paste it in reads like the
 * clean log: the same kind, instruction, kernel and figures, and the forms
 * it was read from are named. */
static void test_pasted_forms_read_as_the_clean_log(void **state) {
  (void)state;
  static const char clean[] =
      "RESOURCE_EXHAUSTED: Ran out of memory in memory space vmem while allocating on stack for %run.1 = "
      "bf16[8,128]{1,0} custom-call(%x), custom_call_target=\"tpu_custom_call\". Scoped allocation with size "
      "21.50M and limit 16.00M exceeded scoped vmem limit by 5.50M.\n";
  static const struct {
    const char *log;
    unsigned forms;
  } pasted[] = {
      {"RESOURCE_EXHAUSTED: Ran out of memory in\n  memory space vmem while allocating on stack for\n  %run.1 = "
       "bf16[8,128]{1,0} custom-call(%x), custom_call_target=\"tpu_custom_call\". Scoped allocation with size\n"
       "  21.50M and limit 16.00M exceeded scoped vmem limit by 5.50M.\n",
       VMEM_FORM_WRAPPED},
      {"> RESOURCE_EXHAUSTED: Ran out of memory in memory space vmem while allocating on stack for %run.1 = "
       "bf16[8,128]{1,0} custom-call(%x), custom_call_target=&quot;tpu_custom_call&quot;. Scoped allocation with "
       "size\n> 21.50M and limit 16.00M exceeded scoped vmem limit by 5.50M.\n",
       VMEM_FORM_QUOTED | VMEM_FORM_HTML | VMEM_FORM_WRAPPED},
      {"XlaRuntimeError('RESOURCE_EXHAUSTED: Ran out of memory in memory space vmem while allocating on stack for "
       "%run.1 = bf16[8,128]{1,0} custom-call(%x), custom_call_target=\\\"tpu_custom_call\\\".\\nScoped "
       "allocation with size 21.50M and limit 16.00M exceeded scoped vmem limit by 5.50M.')\n",
       VMEM_FORM_ESCAPED},
      {"{\"severity\": \"ERROR\", \"message\": \"RESOURCE_EXHAUSTED: Ran out of memory in memory space vmem while "
       "allocating on stack for %run.1 = bf16[8,128]{1,0} custom-call(%x), custom_call_target=\\\"tpu_custom_call"
       "\\\". Scoped allocation with size 21.50M and limit 16.00M exceeded scoped vmem limit by 5.50M.\"}\r\n",
       VMEM_FORM_JSON | VMEM_FORM_ESCAPED},
      {"\x1b[31mE1130 08:00:01.000000  77 main.py:12]\x1b[0m RESOURCE_EXHAUSTED: Ran out of memory in memory space "
       "vmem while allocating on stack for %run.1 = bf16[8,128]{1,0} custom-call(%x), "
       "custom_call_target=\"tpu_custom_call\".\tScoped allocation with size 21.50M and limit 16.00M exceeded "
       "scoped vmem limit by 5.50M.\n",
       VMEM_FORM_ANSI | VMEM_FORM_PREFIXED},
  };
  vmem_log_report *c = explain(clean);
  const vmem_log_error *want = vmem_log_error_at(c, 0);
  assert_non_null(want);
  assert_int_equal(want->forms, 0);
  for (size_t i = 0; i < sizeof pasted / sizeof *pasted; i++) {
    vmem_log_report *r = explain(pasted[i].log);
    assert_int_equal(vmem_log_error_count(r), 1);
    const vmem_log_error *e = vmem_log_error_at(r, 0);
    assert_int_equal(e->kind, want->kind);
    assert_string_equal(e->instruction, want->instruction);
    assert_string_equal(e->kernel, want->kernel);
    assert_int_equal(e->custom_kernel, 1);
    assert_int_equal(e->size.lo, want->size.lo);
    assert_int_equal(e->limit.hi, want->limit.hi);
    assert_int_equal(e->excess.lo, want->excess.lo);
    if (e->forms != pasted[i].forms)
      fail_msg("paste %zu: forms %#x, expected %#x", i, e->forms, pasted[i].forms);
    vmem_log_report_free(r);
  }
  vmem_log_report_free(c);
}

/* A figure cut out of a paste is derived from the other two, as an exact
 * interval, and said to be derived. */
static void test_a_missing_figure_is_derived(void **state) {
  (void)state;
  vmem_log_report *r = explain("Ran out of memory in memory space vmem while allocating on stack for %k.1 = "
                               "f32[8,128]{1,0} custom-call(%a) ... and limit 16.00M exceeded scoped vmem limit by "
                               "5.50M.\n");
  const vmem_log_error *e = vmem_log_error_at(r, 0);
  assert_non_null(e);
  assert_int_equal(e->derived, VMEM_DERIVED_SIZE);
  assert_true(e->size.present);
  assert_int_equal(e->size.lo, e->limit.lo + e->excess.lo);
  assert_int_equal(e->size.hi, e->limit.hi + e->excess.hi);
  vmem_log_report_free(r);
}

/* Figures people abbreviate or scatter: an excess as "(+X)" or "exceeded
 * by X", a report's "Used X of Y" on a line of its own or in parentheses. */
static void test_abbreviated_figures(void **state) {
  (void)state;
  vmem_log_report *r = explain("Scoped allocation with size 20.50M and limit 16.00M (+4.50M)\n");
  const vmem_log_error *e = vmem_log_error_at(r, 0);
  assert_non_null(e);
  assert_true(e->excess.present && !e->derived);
  assert_string_equal(e->excess.text, "4.50M");
  vmem_log_report_free(r);

  r = explain("step 3 failed\nUsed 1.40M of 1.00M smem\nnext: (Used 71.20M of 63.94M)\nUsed 3 GPUs of 8\n");
  assert_int_equal(vmem_log_error_count(r), 2); /* "Used 3 GPUs" has no printed sizes */
  e = vmem_log_error_at(r, 0);
  assert_int_equal(e->kind, VMEM_OOM_SMEM);
  assert_string_equal(e->capacity.text, "1.00M");
  e = vmem_log_error_at(r, 1);
  assert_int_equal(e->kind, VMEM_OOM_PROGRAM_VMEM);
  assert_string_equal(e->used.text, "71.20M");
  assert_int_equal(e->derived, VMEM_DERIVED_EXCESS); /* used - capacity */
  assert_int_equal(e->excess.lo, e->used.lo - e->capacity.hi);
  vmem_log_report_free(r);

  /* a report's own "Used X of Y" is no second report */
  r = explain(
      "Ran out of memory in memory space vmem. Used 29.95M of 16.00M vmem. Exceeded vmem capacity by 13.95M.\n");
  assert_int_equal(vmem_log_error_count(r), 1);
  vmem_log_report_free(r);
}

/* Hosts: each once, 16 listed and the rest counted; the fold of one error
 * read in two parts of a log unites the lists by the same rule. */
static char *host_log(int first, int last, int again) {
  static const char msg[] =
      "RESOURCE_EXHAUSTED: Ran out of memory in memory space vmem while allocating on stack for "
      "%k.1 = f32[8,128]{1,0} custom-call(%a), custom_call_target=\"tpu_custom_call\". "
      "Scoped allocation with size 20.50M and limit 16.00M exceeded scoped vmem limit by 4.50M.\n";
  size_t cap = (size_t)(last - first + 2) * (sizeof msg + 16);
  char *s = malloc(cap);
  size_t n = 0;
  assert_non_null(s);
  for (int h = first; h <= last; h++)
    n += (size_t)snprintf(s + n, cap - n, "[worker-%d] %s", h, msg);
  n += (size_t)snprintf(s + n, cap - n, "[worker-%d] %s", again, msg);
  return s;
}

static void test_hosts_and_fold(void **state) {
  (void)state;
  char *a = host_log(0, 19, 3), *b = host_log(15, 24, 24);
  vmem_log_report *ra = explain(a), *rb = explain(b);
  assert_int_equal(vmem_log_error_count(ra), 1);
  const vmem_log_error *ea = vmem_log_error_at(ra, 0), *eb = vmem_log_error_at(rb, 0);
  assert_int_equal(ea->count, 21);
  assert_int_equal(ea->nhosts, 20); /* worker-3 twice, counted once */
  assert_non_null(strstr(ea->hosts, "worker-0, worker-1, "));
  assert_non_null(strstr(ea->hosts, ", worker-15"));
  assert_null(strstr(ea->hosts, "worker-16")); /* 16 listed */
  assert_int_equal(eb->nhosts, 10);
  vmem_log_error into = *ea;
  char buf[512];
  vmem_log_error_fold(&into, eb, buf, sizeof buf);
  assert_int_equal(into.count, 21 + 11);
  assert_ptr_equal(into.hosts, buf);
  assert_string_equal(into.hosts, ea->hosts); /* the list was full: b's new hosts are counted */
  assert_int_equal(into.nhosts, 20 + 9);      /* 16..24 are new to a's list: an upper bound past 16, since a's
                                                 unlisted 16..19 cannot be told from them */
  vmem_log_error small = *eb;
  small.hosts = "worker-24, worker-99", small.nhosts = 2;
  into = *eb;
  vmem_log_error_fold(&into, &small, buf, sizeof buf);
  assert_int_equal(into.nhosts, 11);
  assert_non_null(strstr(into.hosts, ", worker-99"));
  assert_string_equal(into.hosts + strlen(into.hosts) - 20, "worker-24, worker-99");
  vmem_log_error_fold(NULL, &small, buf, sizeof buf); /* the NULL rule */
  vmem_log_report_free(ra);
  vmem_log_report_free(rb);
  free(a);
  free(b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_scoped_custom_kernel),
      cmocka_unit_test(test_hosts_and_fold),
      cmocka_unit_test(test_standard_op_and_folding),
      cmocka_unit_test(test_mentions_fold),
      cmocka_unit_test(test_program_listing),
      cmocka_unit_test(test_other_kinds),
      cmocka_unit_test(test_emitter_abort),
      cmocka_unit_test(test_pasted_forms_read_as_the_clean_log),
      cmocka_unit_test(test_a_missing_figure_is_derived),
      cmocka_unit_test(test_abbreviated_figures),
  };
  return RUN(tests);
}
