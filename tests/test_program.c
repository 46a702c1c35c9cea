/* Program-scoped values joined into buffers (src/program/alias.c) and the
 * shape-index dataflow (live.c): each rule on a module small enough to
 * work out by hand. Every array is f32[8,128] (4 KiB) in S(1) unless said;
 * a step is one instruction of the flattened schedule. */
#include "test.h"

#define A "f32[8,128]{1,0:T(8,128)S(1)}"
#define H "f32[8,128]{1,0:T(8,128)}"

typedef struct plan {
  vmem_hlo_module *m;
  vmem_program p;
} plan;

static void plan_of(plan *pl, const char *text) {
  vmem_error err;
  pl->m = vmem_hlo_parse(text, strlen(text), NULL, &err);
  assert_non_null(pl->m);
  assert_int_equal(vmem_hlo_program_vmem(pl->m, vmem_target_find("v5e", 3), NULL, &pl->p, NULL, &err), VMEM_OK);
}

static void plan_free(plan *pl) {
  vmem_program_free(&pl->p);
  vmem_hlo_free(pl->m);
}

/* The buffer named by its first value's instruction and leaf. */
static const vmem_program_buffer *buffer(const plan *pl, const char *name, size_t leaf) {
  for (size_t i = 0; i < pl->p.count; i++) {
    vmem_str n = vmem_hlo_instruction_name(pl->p.buffers[i].instruction);
    if (n.len == strlen(name) && !memcmp(n.ptr, name, n.len) && pl->p.buffers[i].leaf == leaf)
      return &pl->p.buffers[i];
  }
  fail_msg("no buffer %s leaf %zu", name, leaf);
  return NULL;
}

static void expect(const plan *pl, const char *name, size_t leaf, int64_t start, int64_t end, uint32_t values) {
  const vmem_program_buffer *b = buffer(pl, name, leaf);
  assert_int_equal(b->start, start);
  assert_int_equal(b->end, end);
  assert_int_equal(b->values, values);
}

/* A while's state: init, the body's root and the while are one buffer.
 * Schedule: p0 init1 | cond: s2 go3 | body: st4 next5 | loop6 out7. */
static void test_while_state(void **state) {
  (void)state;
  plan pl;
  plan_of(&pl, "HloModule m, is_scheduled=true\n"
               "%c (s: f32[8,128]) -> pred[] {\n  %s = " A " parameter(0)\n  ROOT %go = pred[] constant(false)\n}\n"
               "%b (st: f32[8,128]) -> f32[8,128] {\n  %st = " A " parameter(0)\n"
               "  ROOT %next = " A " multiply(%st, %st)\n}\n"
               "ENTRY %e (p: f32[8,128]) -> f32[8,128] {\n  %p = " H " parameter(0)\n"
               "  %init = " A " negate(%p)\n  %loop = " A " while(%init), condition=%c, body=%b\n"
               "  ROOT %out = " H " copy(%loop)\n}\n");
  assert_int_equal(pl.p.count, 1);
  expect(&pl, "init", 0, 1, 7, 2);
  plan_free(&pl);
}

/* get-tuple-element uses one element: the tuple's other leaf ends at its
 * own last use. Schedule: p0 t1 a2 b3 x4 y5 r6. */
static void test_gte_narrows(void **state) {
  (void)state;
  plan pl;
  plan_of(&pl, "HloModule m, is_scheduled=true\n"
               "ENTRY %e (p: f32[8,128]) -> f32[8,128] {\n  %p = " H " parameter(0)\n"
               "  %t = (" A ", " A ") custom-call(%p), custom_call_target=\"two\"\n"
               "  %a = " A " get-tuple-element(%t), index=0\n  %b = " A " get-tuple-element(%t), index=1\n"
               "  %x = " H " copy(%b)\n  %y = " H " copy(%a)\n  ROOT %r = " H " add(%x, %y)\n}\n");
  expect(&pl, "t", 0, 1, 5, 1);
  expect(&pl, "t", 1, 1, 4, 1);
  plan_free(&pl);
}

/* copy-done is its copy-start's element {0}: one buffer, from the start
 * of the copy to the last use of the copy's result. */
static void test_copy_start_done(void **state) {
  (void)state;
  plan pl;
  plan_of(&pl, "HloModule m, is_scheduled=true\n"
               "ENTRY %e (h: f32[8,128]) -> f32[8,128] {\n  %h = " H " parameter(0)\n"
               "  %cs = (" A ", " H ", u32[]) copy-start(%h)\n  %n = " H " negate(%h)\n"
               "  %cd = " A " copy-done(%cs)\n  %u = " H " add(%cd, %n)\n  ROOT %r = " H " copy(%u)\n}\n");
  assert_int_equal(pl.p.count, 1);
  expect(&pl, "cs", 0, 1, 4, 1);
  plan_free(&pl);
}

/* output_to_operand_aliasing and input_output_alias join; an add takes
 * over an operand that dies at it, not one that lives on. Schedule:
 * p0 q1 k2 w3 s4 r5. k writes into q (aliasing), so w = add(k, k) cannot
 * overwrite k: q is an entry parameter and lives to the end; s = add(w, p)
 * overwrites w, which dies there; r's {1} is p (input_output_alias). */
static void test_aliasing_and_in_place(void **state) {
  (void)state;
  plan pl;
  plan_of(&pl, "HloModule m, is_scheduled=true, input_output_alias={ {1}: (0, {}, may-alias) }\n"
               "ENTRY %e (p: f32[8,128], q: f32[8,128]) -> (f32[8,128], f32[8,128]) {\n"
               "  %p = " A " parameter(0)\n  %q = " A " parameter(1)\n"
               "  %k = " A " custom-call(%q), custom_call_target=\"scale\", output_to_operand_aliasing={{}: (0, {})}\n"
               "  %w = " A " add(%k, %k)\n  %s = " A " add(%w, %p)\n"
               "  ROOT %r = (" A ", " A ") tuple(%s, %p)\n}\n");
  expect(&pl, "p", 0, 0, 6, 1);
  expect(&pl, "q", 0, 0, 6, 2); /* q and k */
  expect(&pl, "w", 0, 3, 6, 2); /* w and s, live out */
  assert_int_equal(pl.p.count, 3);
  plan_free(&pl);
}

/* In place needs the same size: a convert to a wider type does not reuse. */
static void test_in_place_needs_same_size(void **state) {
  (void)state;
  plan pl;
  plan_of(&pl, "HloModule m, is_scheduled=true\n"
               "ENTRY %e (p: f32[8,128]) -> f32[8,128] {\n  %p = " H " parameter(0)\n"
               "  %x = " A " negate(%p)\n  %y = f32[16,128]{1,0:T(8,128)S(1)} concatenate(%x, %x), dimensions={0}\n"
               "  %z = f32[16,128]{1,0:T(8,128)S(1)} negate(%y)\n  %h = bf16[16,128]{1,0:T(16,128)(2,1)S(1)} convert(%z)\n"
               "  ROOT %r = " H " slice(%h), slice={[0:8], [0:128]}\n}\n");
  expect(&pl, "y", 0, 2, 4, 2); /* z overwrites y */
  expect(&pl, "h", 0, 4, 5, 1); /* a convert is not in place, and sizes differ */
  plan_free(&pl);
}

/* input_output_alias: the output is written into the parameter's buffer. */
static void test_input_output_alias(void **state) {
  (void)state;
  plan pl;
  plan_of(&pl, "HloModule m, is_scheduled=true, input_output_alias={ {0}: (0, {}) }\n"
               "ENTRY %e (p: f32[8,128]) -> (f32[8,128]) {\n  %p = " A " parameter(0)\n"
               "  %n = " A " negate(%p)\n  ROOT %r = (" A ") tuple(%n)\n}\n");
  assert_int_equal(pl.p.count, 1);
  expect(&pl, "p", 0, 0, 3, 2);
  plan_free(&pl);
}

/* An alias attribute vmemscope cannot read is left out, not an error. */
static void test_unreadable_alias(void **state) {
  (void)state;
  plan pl;
  plan_of(&pl, "HloModule m, is_scheduled=true, input_output_alias={ {0}: oops }\n"
               "ENTRY %e (p: f32[8,128]) -> f32[8,128] {\n  %p = " A " parameter(0)\n"
               "  ROOT %k = " A " custom-call(%p), custom_call_target=\"x\", output_to_operand_aliasing={{9}: (7, {})}\n}\n");
  assert_int_equal(pl.p.count, 2);
  plan_free(&pl);
}

/* ---- the scoped model of standard ops (src/scoped/standard.c) ------------ */

static vmem_std_scoped model_of(const char *text, const char *name) {
  vmem_error err;
  vmem_hlo_module *m = vmem_hlo_parse(text, strlen(text), NULL, &err);
  assert_non_null(m);
  vmem_std_scoped out = {0};
  const vmem_hlo_computation *e = vmem_hlo_entry(m);
  for (size_t i = 0; i < vmem_hlo_computation_instruction_count(e); i++) {
    const vmem_hlo_instruction *in = vmem_hlo_computation_instruction_at(e, i);
    vmem_str n = vmem_hlo_instruction_name(in);
    if (n.len == strlen(name) && !memcmp(n.ptr, name, n.len))
      assert_int_equal(vmem_hlo_instruction_min_scoped(in, vmem_target_find("v5e", 3), &out, &err), VMEM_OK);
  }
  vmem_hlo_free(m);
  return out;
}

/* An add streams one (8,128) f32 tile (4 KiB) of each operand and of the
 * result, double-buffered: 6 x 4 KiB. */
static void test_model_elementwise(void **state) {
  (void)state;
  vmem_std_scoped s = model_of("HloModule m\nENTRY %e (a: f32[1024,1024]) -> f32[1024,1024] {\n"
                               "  %a = f32[1024,1024]{1,0} parameter(0)\n"
                               "  ROOT %x = f32[1024,1024]{1,0} add(%a, %a)\n}\n", "x");
  assert_true(s.applies);
  assert_int_equal(s.min_bytes, 6 * 4096);
  assert_string_equal(s.rule, "elementwise or data movement");
}

/* A sort holds the sorted dimension whole: f32[1,65536] pads to 8 rows,
 * 2 MiB, twice. */
static void test_model_sort(void **state) {
  (void)state;
  vmem_std_scoped s = model_of("HloModule m\n%lt (p: f32[], q: f32[]) -> pred[] {\n  %p = f32[] parameter(0)\n"
                               "  %q = f32[] parameter(1)\n  ROOT %c = pred[] compare(%p, %q), direction=LT\n}\n"
                               "ENTRY %e (a: f32[8,65536]) -> f32[8,65536] {\n  %a = f32[8,65536]{1,0} parameter(0)\n"
                               "  ROOT %s = f32[8,65536]{1,0} sort(%a), dimensions={1}, to_apply=%lt\n}\n", "s");
  assert_int_equal(s.min_bytes, 4 << 20);
  assert_int_equal(s.dominant, 0);
  assert_string_equal(s.rule, "sort");
}

/* A dot on v5e (128-wide MXU): lhs [1,128] pads to a 4 KiB tile, rhs
 * [128,128] is 64 KiB, the result a tile, each twice; one f32
 * accumulator tile. */
static void test_model_dot(void **state) {
  (void)state;
  vmem_std_scoped s = model_of("HloModule m\nENTRY %e (a: f32[1024,1024], b: f32[1024,1024]) -> f32[1024,1024] {\n"
                               "  %a = f32[1024,1024]{1,0} parameter(0)\n  %b = f32[1024,1024]{1,0} parameter(1)\n"
                               "  ROOT %d = f32[1024,1024]{1,0} dot(%a, %b), lhs_contracting_dims={1}, "
                               "rhs_contracting_dims={0}\n}\n", "d");
  assert_int_equal(s.min_bytes, 2 * 4096 + 2 * 65536 + 2 * 4096 + 4096);
  assert_int_equal(s.dominant, 1);
}

/* A cumulative sum as reduce-window spans its window: s32[8,4096] with a
 * 1x4096 window holds [1,4096] (8 rows padded: 128 KiB) twice. */
static void test_model_reduce_window(void **state) {
  (void)state;
  vmem_std_scoped s = model_of("HloModule m\n%add (p: s32[], q: s32[]) -> s32[] {\n  %p = s32[] parameter(0)\n"
                               "  %q = s32[] parameter(1)\n  ROOT %c = s32[] add(%p, %q)\n}\n"
                               "ENTRY %e (a: s32[8,4096]) -> s32[8,4096] {\n  %a = s32[8,4096]{1,0} parameter(0)\n"
                               "  %z = s32[] constant(0)\n  ROOT %w = s32[8,4096]{1,0} reduce-window(%a, %z), "
                               "window={size=1x4096 pad=0_0x4095_0}, to_apply=%add\n}\n", "w");
  assert_int_equal(s.dominant, 0);
  assert_int_equal(s.dominant_bytes, 2 * 131072);
  assert_string_equal(s.rule, "reduce-window");
}

/* A fusion takes its body's heaviest rule; parameters are not modelled. */
static void test_model_fusion(void **state) {
  (void)state;
  const char *text = "HloModule m\n%lt (p: f32[], q: f32[]) -> pred[] {\n  %p = f32[] parameter(0)\n"
                     "  %q = f32[] parameter(1)\n  ROOT %c = pred[] compare(%p, %q), direction=LT\n}\n"
                     "%f (x: f32[8,65536]) -> f32[8,65536] {\n  %x = f32[8,65536]{1,0} parameter(0)\n"
                     "  ROOT %s = f32[8,65536]{1,0} sort(%x), dimensions={1}, to_apply=%lt\n}\n"
                     "ENTRY %e (a: f32[8,65536]) -> f32[8,65536] {\n  %a = f32[8,65536]{1,0} parameter(0)\n"
                     "  ROOT %g = f32[8,65536]{1,0} fusion(%a), kind=kLoop, calls=%f\n}\n";
  vmem_std_scoped s = model_of(text, "g");
  assert_string_equal(s.rule, "sort");
  assert_int_equal(s.min_bytes, (4 << 20) + 4 * 4096);
  assert_false(model_of(text, "a").applies);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_while_state),        cmocka_unit_test(test_gte_narrows),
      cmocka_unit_test(test_copy_start_done),    cmocka_unit_test(test_aliasing_and_in_place),
      cmocka_unit_test(test_in_place_needs_same_size), cmocka_unit_test(test_unreadable_alias),
      cmocka_unit_test(test_input_output_alias),
      cmocka_unit_test(test_model_elementwise), cmocka_unit_test(test_model_sort),
      cmocka_unit_test(test_model_dot),         cmocka_unit_test(test_model_reduce_window),
      cmocka_unit_test(test_model_fusion),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
