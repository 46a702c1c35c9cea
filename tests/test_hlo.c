#define _POSIX_C_SOURCE 200809L /* mkstemp, fdopen */
/* The HLO reader: one fixture per grammar feature, one per error, the
 * round trip through the printer, the call graph and backend configs. */
#include <stdio.h>
#include <stdlib.h>

#include "test.h"

static vmem_hlo_module *parse(const char *text) {
  vmem_error err;
  vmem_hlo_module *m = vmem_hlo_parse(text, strlen(text), NULL, &err);
  if (!m) {
    size_t line, col;
    vmem_locate(text, strlen(text), err.offset, &line, &col);
    fail_msg("parse failed at %zu:%zu: %s", line, col, err.message);
  }
  return m;
}

static bool str_is(vmem_str s, const char *want) { return s.len == strlen(want) && !memcmp(s.ptr, want, s.len); }

#define assert_str(s, want)                                         \
  do {                                                              \
    vmem_str s_ = (s);                                              \
    if (!str_is(s_, want))                                          \
      fail_msg("got '%.*s', want '%s'", (int)s_.len, s_.ptr, want); \
  } while (0)

static const vmem_hlo_instruction *find(const vmem_hlo_module *m, const char *comp, const char *name) {
  const vmem_hlo_computation *c = vmem_hlo_find_computation(m, comp, strlen(comp));
  assert_non_null(c);
  for (size_t i = 0; i < vmem_hlo_computation_instruction_count(c); i++) {
    const vmem_hlo_instruction *in = vmem_hlo_computation_instruction_at(c, i);
    if (str_is(vmem_hlo_instruction_name(in), name))
      return in;
  }
  fail_msg("no instruction %s in %s", name, comp);
  return NULL;
}

static char *print(const vmem_hlo_module *m) {
  size_t n = vmem_hlo_print(m, NULL, 0);
  char *buf = malloc(n + 1);
  assert_non_null(buf);
  assert_int_equal(vmem_hlo_print(m, buf, n + 1), n);
  return buf;
}

/* print(parse(x)) parses, and prints the same again. */
static void assert_round_trip(const vmem_hlo_module *m) {
  char *a = print(m);
  vmem_hlo_module *again = parse(a);
  char *b = print(again);
  assert_string_equal(a, b);
  assert_int_equal(vmem_hlo_instruction_total(m), vmem_hlo_instruction_total(again));
  free(a);
  free(b);
  vmem_hlo_free(again);
}

static const char basic[] =
    "HloModule jit_f, is_scheduled=true, entry_computation_layout={(f32[8,128]{1,0})->f32[8,128]{1,0}}\n"
    "\n"
    "%add.clone (x.1: f32[], y.1: f32[]) -> f32[] {\n"
    "  %x.1 = f32[] parameter(0)\n"
    "  %y.1 = f32[] parameter(1)\n"
    "  ROOT %add.2 = f32[] add(%x.1, %y.1)\n"
    "}\n"
    "\n"
    "%fused_computation (param_0: f32[8,128]) -> f32[8,128] {\n"
    "  %param_0 = f32[8,128]{1,0:T(8,128)} parameter(0)\n"
    "  ROOT %negate.1 = f32[8,128]{1,0:T(8,128)} negate(%param_0)\n"
    "}\n"
    "\n"
    "ENTRY %main.9 (Arg_0.1: f32[8,128]) -> f32[8,128] {\n"
    "  %Arg_0.1 = f32[8,128]{1,0:T(8,128)} parameter(0), metadata={op_name=\"x\"}\n"
    "  %constant.2 = f32[]{:T(128)} constant(0)\n"
    "  %reduce.3 = f32[8]{0:T(256)} reduce(%Arg_0.1, %constant.2), dimensions={1}, to_apply=%add.clone\n"
    "  %fusion = f32[8,128]{1,0:T(8,128)} fusion(%Arg_0.1), kind=kLoop, calls=%fused_computation,\n"
    "      metadata={op_type=\"neg\" op_name=\"jit(f)/neg\" source_file=\"f.py\" source_line=3}\n"
    "  ROOT %copy.4 = f32[8,128]{1,0:T(8,128)} copy(%fusion)\n"
    "}\n";

static void test_module_structure(void **state) {
  (void)state;
  vmem_hlo_module *m = parse(basic);
  assert_str(vmem_hlo_name(m), "jit_f");
  assert_true(vmem_hlo_is_scheduled(m));
  assert_str(vmem_hlo_attr(m, "entry_computation_layout"), "{(f32[8,128]{1,0})->f32[8,128]{1,0}}");
  assert_int_equal(vmem_hlo_attr(m, "nothing").len, 0);
  assert_int_equal(vmem_hlo_computation_count(m), 3);
  assert_int_equal(vmem_hlo_instruction_total(m), 10);
  const vmem_hlo_computation *e = vmem_hlo_entry(m);
  assert_str(vmem_hlo_computation_name(e), "main.9");
  assert_true(vmem_hlo_computation_is_entry(e));
  assert_str(vmem_hlo_instruction_name(vmem_hlo_computation_root(e)), "copy.4");
  assert_ptr_equal(vmem_hlo_find_computation(m, "%main.9", 7), e);
  assert_null(vmem_hlo_find_computation(m, "nope", 4));
  const vmem_hlo_instruction *r = find(m, "main.9", "reduce.3");
  assert_str(vmem_hlo_instruction_opcode(r), "reduce");
  assert_int_equal(vmem_hlo_instruction_operand_count(r), 2);
  assert_str(vmem_hlo_instruction_name(vmem_hlo_instruction_operand_at(r, 1)), "constant.2");
  assert_int_equal(vmem_hlo_instruction_called_count(r), 1);
  assert_str(vmem_hlo_computation_name(vmem_hlo_instruction_called_at(r, 0)), "add.clone");
  assert_str(vmem_hlo_instruction_attr(r, "dimensions"), "{1}");
  assert_false(vmem_hlo_instruction_is_root(r));
  const vmem_hlo_instruction *f = find(m, "main.9", "fusion");
  assert_str(vmem_hlo_instruction_attr(f, "kind"), "kLoop");
  assert_str(vmem_hlo_instruction_op_name(f), "jit(f)/neg");
  assert_int_equal(vmem_hlo_instruction_attr_count(f), 3);
  assert_str(vmem_hlo_instruction_attr_name(f, 2), "metadata");
  char buf[64];
  vmem_shape_print(vmem_hlo_instruction_shape(f), buf, sizeof buf);
  assert_string_equal(buf, "f32[8,128]{1,0:T(8,128)}");
  /* Line 18 of the text: the instruction's offset locates it. */
  size_t line;
  vmem_locate(basic, strlen(basic), vmem_hlo_instruction_offset(f), &line, NULL);
  assert_int_equal(line, 18);
  assert_round_trip(m);
  vmem_hlo_free(m);
}

static void test_call_graph(void **state) {
  (void)state;
  vmem_hlo_module *m = parse(basic);
  const vmem_hlo_computation *fc = vmem_hlo_find_computation(m, "fused_computation", 17);
  const vmem_hlo_computation *add = vmem_hlo_find_computation(m, "add.clone", 9);
  assert_true(vmem_hlo_computation_is_fusion(fc));
  assert_false(vmem_hlo_computation_is_fusion(add));
  assert_int_equal(vmem_hlo_computation_caller_count(fc), 1);
  assert_str(vmem_hlo_instruction_name(vmem_hlo_computation_caller_at(fc, 0)), "fusion");
  assert_int_equal(vmem_hlo_computation_caller_count(vmem_hlo_entry(m)), 0);
  assert_null(vmem_hlo_computation_caller_at(fc, 1));
  vmem_hlo_free(m);
}

/* Which instructions are buffers of their own: the one rule check and the
 * planner share. copy-done is copy-start's buffer (check counted it
 * twice once); an unknown opcode is an ordinary op, not an error. */
static const char buffers[] = "HloModule b, entry_computation_layout={(f32[8]{0})->f32[8]{0}}\n"
                              "%body (s: f32[8]) -> f32[8] {\n"
                              "  %s = f32[8]{0} parameter(0)\n"
                              "  ROOT %n = f32[8]{0} negate(%s)\n"
                              "}\n"
                              "%cond (c: f32[8]) -> pred[] {\n"
                              "  %c = f32[8]{0} parameter(0)\n"
                              "  ROOT %t = pred[] constant(true)\n"
                              "}\n"
                              "%fused (fp: f32[8]) -> f32[8] {\n"
                              "  %fp = f32[8]{0} parameter(0)\n"
                              "  ROOT %fe = f32[8]{0} exponential(%fp)\n"
                              "}\n"
                              "ENTRY %main (p: f32[8]) -> f32[8] {\n"
                              "  %p = f32[8]{0} parameter(0)\n"
                              "  %cs = (f32[8]{0}, f32[8]{0}, u32[]) copy-start(%p)\n"
                              "  %cd = f32[8]{0} copy-done(%cs)\n"
                              "  %w = f32[8]{0} while(%cd), condition=%cond, body=%body\n"
                              "  %tu = (f32[8]{0}) tuple(%w)\n"
                              "  %g = f32[8]{0} get-tuple-element(%tu), index=0\n"
                              "  %b = f32[8]{0} bitcast(%g)\n"
                              "  %f = f32[8]{0} fusion(%b), kind=kLoop, calls=%fused\n"
                              "  ROOT %x = f32[8]{0} frobnicate(%f)\n"
                              "}\n";

static void test_defines_buffer(void **state) {
  (void)state;
  vmem_hlo_module *m = parse(buffers);
  static const struct {
    const char *comp, *name;
    bool defines;
  } want[] = {{"main", "p", true},   {"main", "cs", true}, {"main", "cd", false}, {"main", "w", false},
              {"main", "tu", false}, {"main", "g", false}, {"main", "b", false},  {"main", "f", true},
              {"main", "x", true},   {"body", "s", false}, {"body", "n", true},   {"fused", "fe", false},
              {"fused", "fp", false}};
  for (size_t k = 0; k < sizeof want / sizeof *want; k++) {
    const vmem_hlo_instruction *in = find(m, want[k].comp, want[k].name);
    if (vmem_hlo_instruction_defines_buffer(in) != want[k].defines)
      fail_msg("%%%s in %s: defines_buffer should be %d", want[k].name, want[k].comp, want[k].defines);
  }
  assert_str(vmem_hlo_instruction_opcode(find(m, "main", "x")), "frobnicate");
  assert_false(vmem_hlo_instruction_defines_buffer(NULL));
  vmem_hlo_free(m);
}

/* The module's buffers, decided in the library: leaves of the instructions
 * that define buffers, the largest first with ties in module order. */
static void test_module_buffers(void **state) {
  (void)state;
  vmem_hlo_module *m = parse(buffers);
  vmem_module_buffers b;
  vmem_error err;
  assert_int_equal(vmem_hlo_module_buffers(m, vmem_target_find("v5e", 3), 3, &b, NULL, &err), VMEM_OK);
  assert_int_equal(b.nspaces, 1);
  assert_int_equal(b.spaces[0].memory_space, 0);
  assert_int_equal(b.spaces[0].buffers, 8); /* p, cs's three leaves, f, x, the body's n, the condition's t */
  assert_int_equal(b.unsized, 0);
  assert_int_equal(b.nlargest, 3);
  assert_str(vmem_hlo_instruction_name(b.largest[0].instruction), "cs");
  assert_true(b.largest[0].bytes > b.largest[1].bytes);
  assert_int_equal(b.largest[1].bytes, b.largest[2].bytes);
  assert_true(vmem_hlo_instruction_id(b.largest[1].instruction) < vmem_hlo_instruction_id(b.largest[2].instruction));
  uint64_t sum = 0;
  for (size_t i = 0; i < b.nlargest; i++)
    sum += b.largest[i].bytes;
  assert_true(sum <= b.spaces[0].bytes);
  vmem_module_buffers_free(&b);
  assert_int_equal(vmem_hlo_module_buffers(m, vmem_target_find("v5e", 3), 0, &b, NULL, &err), VMEM_OK);
  assert_int_equal(b.nlargest, 0);
  vmem_module_buffers_free(&b);
  assert_int_equal(vmem_hlo_module_buffers(NULL, NULL, 0, &b, NULL, &err), VMEM_ERR_ARGUMENT);
  vmem_hlo_free(m);
}

/* Everything a dump may hold, in one module: comments anywhere, names
 * without '%', inline operand shapes, multi-line operand lists, dim labels,
 * windows, JSON with braces in strings, quoted configs, stack frames,
 * execution threads, branch lists, elided and nested constants. */
static const char features[] =
    "// RUN: hlo-opt %s\n"
    "HloModule features, entry_computation_layout={(f32[4]{0}, /*index=1*/s32[])->f32[4]{0}}\n"
    "\n"
    "FileNames\n1 \"model.py\"\nFunctionNames\n1 \"f\"\n"
    "FileLocations\n1 {file_name_id=1 function_name_id=1 line=3 end_line=3 column=1 end_column=9}\n"
    "StackFrames\n1 {file_location_id=1 parent_frame_id=1}\n"
    "\n"
    "branch_a { pa = f32[4] parameter(0)  ROOT na = f32[4] negate(pa) }\n"
    "branch_b { pb = f32[4] parameter(0)  ROOT ab = f32[4] abs(f32[4] pb) }\n"
    "%host.3 { %h = f32[4] parameter(0) ROOT %e = f32[4] exponential(%h) }, execution_thread=\"host\"\n"
    "ENTRY main {\n"
    "  p0 = f32[4]{0} parameter(0), sharding={devices=[2]0,1}\n"
    "  %p1 = s32[] parameter(1) /* a comment */\n"
    "  c.big = f32[1000]{0} constant({...})\n"
    "  c.nest = s32[2,2] constant({ {1, 2}, {3, 4} })\n"
    "  img = f32[1,4,4,1] parameter(2)\n"
    "  w = f32[3,3,1,1] parameter(3)\n"
    "  conv-1 = f32[1,4,4,1] convolution(f32[1,4,4,1] %img, f32[3,3,1,1] w),\n"
    "      window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f\n"
    "  sel = f32[4] conditional(s32[] %p1, /*index=1*/ p0,\n"
    "      f32[4]{0} p0), branch_computations={%branch_a, branch_b}\n"
    "  cc = (f32[4], s32[]) custom-call(sel, %p1), custom_call_target=\"tpu_custom_call\",\n"
    "      operand_layout_constraints={f32[4]{0}, s32[]}, output_to_operand_aliasing={{0}: (0, {})},\n"
    "      frontend_attributes={kernel_metadata={}},\n"
    "      backend_config={\"custom_call_config\": {\"body\": \"TUzv}{\\\"UgF=\", \"internal_scratch_in_bytes\": 4096},\n"
    "        \"scoped_memory_configs\": [{\"memory_space\": 1, \"offset\": 0, \"size\": 33554432}]}\n"
    "  q = f32[4] custom-call(p0), custom_call_target=\"other\",\n"
    "      backend_config=\"{\\\"scoped_memory_configs\\\":[{\\\"memory_space\\\":\\\"1\\\",\\\"offset\\\":\\\"0\\\",\\\"size\\\":\\\"16777216\\\"}],\\\"used_scoped_memory_configs\\\":[{\\\"memory_space\\\":\\\"1\\\",\\\"offset\\\":\\\"0\\\",\\\"size\\\":\\\"12288\\\"}]}\"\n"
    "  sb = f32[2,3] custom-call(q), custom_call_target=\"SetBound\", literal=s32[] 1\n"
    "  ROOT t = (f32[4], f32[4], f32[4]) tuple(sel, q, p0)\n"
    "}\n";

static void test_grammar_features(void **state) {
  (void)state;
  vmem_hlo_module *m = parse(features);
  assert_int_equal(vmem_hlo_computation_count(m), 4);
  assert_str(vmem_hlo_computation_name(vmem_hlo_entry(m)), "main");
  const vmem_hlo_computation *host = vmem_hlo_find_computation(m, "host.3", 6);
  assert_str(vmem_hlo_computation_thread(host), "host");
  const vmem_hlo_instruction *sel = find(m, "main", "sel");
  assert_int_equal(vmem_hlo_instruction_operand_count(sel), 3);
  assert_int_equal(vmem_hlo_instruction_called_count(sel), 2);
  assert_str(vmem_hlo_computation_name(vmem_hlo_instruction_called_at(sel, 1)), "branch_b");
  assert_str(vmem_hlo_instruction_attr(find(m, "main", "conv-1"), "dim_labels"), "b01f_01io->b01f");
  assert_str(vmem_hlo_instruction_attr(find(m, "main", "conv-1"), "window"), "{size=3x3 pad=1_1x1_1}");
  assert_str(vmem_hlo_instruction_attr(find(m, "main", "sb"), "literal"), "s32[] 1");
  assert_str(vmem_hlo_instruction_attr(find(m, "main", "p0"), "sharding"), "{devices=[2]0,1}");
  const vmem_hlo_instruction *cc = find(m, "main", "cc");
  assert_str(vmem_hlo_instruction_custom_call_target(cc), "tpu_custom_call");
  assert_str(vmem_hlo_instruction_kernel_name(cc), "cc");
  assert_str(vmem_hlo_instruction_attr(cc, "output_to_operand_aliasing"), "{{0}: (0, {})}");
  vmem_hlo_scoped sc;
  vmem_error err;
  assert_int_equal(vmem_hlo_instruction_scoped(cc, &sc, &err), VMEM_OK);
  assert_int_equal(sc.limit_bytes, 33554432);
  assert_int_equal(sc.used_bytes, -1);
  assert_int_equal(sc.internal_scratch_bytes, 4096);
  assert_true(sc.has_kernel_body);
  /* A quoted, C-escaped config with numbers as strings. */
  assert_int_equal(vmem_hlo_instruction_scoped(find(m, "main", "q"), &sc, &err), VMEM_OK);
  assert_int_equal(sc.limit_bytes, 16777216);
  assert_int_equal(sc.used_bytes, 12288);
  assert_false(sc.has_kernel_body);
  assert_int_equal(vmem_hlo_instruction_kernel_name(find(m, "main", "q")).len, 0);
  /* No config at all. */
  assert_int_equal(vmem_hlo_instruction_scoped(sel, &sc, &err), VMEM_OK);
  assert_int_equal(sc.limit_bytes, -1);
  assert_round_trip(m);
  vmem_hlo_free(m);
}

static void test_headerless_and_defaults(void **state) {
  (void)state;
  /* No HloModule line, no ENTRY (the last computation is the entry), no
   * ROOT (the last instruction is the root), a spaced layout. */
  vmem_hlo_module *m = parse("first { a = f32[2] parameter(0) b = f32[2] negate(a) }\n"
                             "second { x = f32[8] {0} parameter(0) y = f32[8] abs(x) }\n");
  assert_int_equal(vmem_hlo_name(m).len, 0);
  assert_false(vmem_hlo_is_scheduled(m));
  assert_str(vmem_hlo_computation_name(vmem_hlo_entry(m)), "second");
  assert_str(vmem_hlo_instruction_name(vmem_hlo_computation_root(vmem_hlo_entry(m))), "y");
  char buf[32];
  vmem_shape_print(vmem_hlo_instruction_shape(find(m, "second", "x")), buf, sizeof buf);
  assert_string_equal(buf, "f32[8]{0}");
  assert_round_trip(m);
  vmem_hlo_free(m);
}

static void test_shapes_are_shared(void **state) {
  (void)state;
  vmem_hlo_module *m = parse("e { a = bf16[8,128]{1,0:T(8,128)(2,1)} parameter(0)\n"
                             "    b = bf16[8,128]{1,0:T(8,128)(2,1)} negate(a) }\n");
  assert_ptr_equal(vmem_hlo_instruction_shape(find(m, "e", "a")), vmem_hlo_instruction_shape(find(m, "e", "b")));
  vmem_hlo_free(m);
}

typedef struct error_case {
  const char *text;
  vmem_status code;
  size_t line, col;
  const char *words; /* a phrase the message must contain */
} error_case;

static void test_errors(void **state) {
  (void)state;
  static const error_case cases[] = {
      {"", VMEM_ERR_SYNTAX, 1, 1, "empty file"},
      {"  \n// only a comment\n", VMEM_ERR_SYNTAX, 3, 1, "no computation"},
      {"HloModule m\n", VMEM_ERR_SYNTAX, 2, 1, "no computation"},
      {"e {\n  a = f32[] parameter(0)\n  b = f32[] add(a, c)\n}\n", VMEM_ERR_UNKNOWN, 3, 20, "unknown operand %c"},
      {"e {\n  a = f32[] parameter(0)\n  a = f32[] negate(a)\n}\n", VMEM_ERR_SYNTAX, 3, 3,
       "duplicate instruction name %a (first defined on line 2)"},
      {"e { a = f32[] parameter(0) b = f32[] call(a), to_apply=%later }\nlater { x = f32[] parameter(0) }\n",
       VMEM_ERR_UNKNOWN, 1, 57, "used before it is defined"},
      {"e { a = f32[] custom-call(), custom_call_target=\"oops }\n", VMEM_ERR_SYNTAX, 1, 49, "unterminated string"},
      {"e { a = f32[] custom-call(), backend_config={\"x\": [1, 2}\n}\n", VMEM_ERR_SYNTAX, 1, 56, "closes the '['"},
      {"e { a = f32[] custom-call(), frontend_attributes={x=\"1\"\n", VMEM_ERR_SYNTAX, 1, 50, "unterminated '{'"},
      {"e {\n  a = f32[] parameter(0)\n", VMEM_ERR_SYNTAX, 1, 3, "unterminated '{'"},
      {"e { a f32[] parameter(0) }", VMEM_ERR_SYNTAX, 1, 7, "expected '=' after the instruction name"},
      {"e { a = f31[] parameter(0) }", VMEM_ERR_UNKNOWN, 1, 9, "unknown element type 'f31'"},
      {"e { a = f32[] parameter(0), sharding {replicated} }", VMEM_ERR_SYNTAX, 1, 29, "'=' right after"},
      {"e { ROOT a = f32[] parameter(0)\n ROOT b = f32[] negate(a) }", VMEM_ERR_SYNTAX, 2, 7, "two ROOT"},
      {"ENTRY e { a = f32[] parameter(0) }\nENTRY f { b = f32[] parameter(0) }", VMEM_ERR_SYNTAX, 2, 7, "second ENTRY"},
      {"e { a = f32[] parameter(0) }\ne { b = f32[] parameter(0) }", VMEM_ERR_SYNTAX, 2, 1,
       "duplicate computation name %e"},
      {"e { a = f32[] parameter(0) /* open\n }", VMEM_ERR_SYNTAX, 1, 28, "unterminated /* comment"},
      {"e { }", VMEM_ERR_SYNTAX, 1, 3, "has no instructions"},
      {"e { a = f32[] parameter(0) b = f32[] negate(add(a)) }", VMEM_ERR_UNKNOWN, 1, 45, "unknown operand %add"},
      {"e { a = f32[] parameter(0) }, threads=\"x\"", VMEM_ERR_SYNTAX, 1, 31, "execution_thread"},
      {"e { a = f32[99999999999999999999] parameter(0) }", VMEM_ERR_OVERFLOW, 1, 13, "64 bits"},
      {"e { a = f32[] parameter(0) b = f32[] negate(a)) }", VMEM_ERR_SYNTAX, 1, 47, "expected"},
      /* found by fuzz_hlo: an operand before any instruction exists */
      {"l{x=()s(l{x=()s()})}", VMEM_ERR_UNKNOWN, 1, 9, "unknown operand %l"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    const error_case *c = &cases[i];
    vmem_error err;
    vmem_hlo_module *m = vmem_hlo_parse(c->text, strlen(c->text), NULL, &err);
    if (m)
      fail_msg("case %zu parsed; expected: %s", i, c->words);
    size_t line, col;
    vmem_locate(c->text, strlen(c->text), err.offset, &line, &col);
    if (err.code != c->code || line != c->line || col != c->col || !strstr(err.message, c->words))
      fail_msg("case %zu: got %s at %zu:%zu '%s'; want %s at %zu:%zu containing '%s'", i, vmem_status_name(err.code),
               line, col, err.message, vmem_status_name(c->code), c->line, c->col, c->words);
  }
}

static void test_binary_input(void **state) {
  (void)state;
  const char text[] = "e { a = f32[] parameter(0)\0 }";
  vmem_error err;
  assert_null(vmem_hlo_parse(text, sizeof text - 1, NULL, &err));
  assert_int_equal(err.code, VMEM_ERR_SYNTAX);
  assert_int_equal(err.offset, 26);
  assert_non_null(strstr(err.message, "binary"));
}

/* Attribute and called-computation counts are kept in 16 bits: past
 * 65,535 the parser says so at the instruction, it does not wrap. */
static void test_too_many_attributes(void **state) {
  (void)state;
  const char head[] = "e { a = f32[] parameter(0)", tail[] = " }";
  size_t n = 65536, len = sizeof head - 1 + n * 6 + sizeof tail;
  char *text = malloc(len + 16), *w = text;
  assert_non_null(text);
  w += sprintf(w, "%s", head);
  for (size_t i = 0; i < n; i++)
    w += sprintf(w, ", x=%02zu", i % 100);
  w += sprintf(w, "%s", tail);
  vmem_error err;
  assert_null(vmem_hlo_parse(text, (size_t)(w - text), NULL, &err));
  assert_int_equal(err.code, VMEM_ERR_RANGE);
  assert_int_equal(err.offset, 4);
  assert_non_null(strstr(err.message, "more than 65535 attributes"));
  w = text + sizeof head - 1 + 65535 * 6; /* one fewer parses */
  w += sprintf(w, "%s", tail);
  vmem_hlo_module *m = vmem_hlo_parse(text, (size_t)(w - text), NULL, &err);
  assert_non_null(m);
  vmem_hlo_free(m);
  free(text);
}

static void test_malformed_tpu_config(void **state) {
  (void)state;
  const char *text = "e { a = f32[] custom-call(), custom_call_target=\"tpu_custom_call\", backend_config={\"a\" 1} }";
  vmem_hlo_module *m = parse(text);
  vmem_hlo_scoped sc;
  vmem_error err;
  assert_int_equal(vmem_hlo_instruction_scoped(find(m, "e", "a"), &sc, &err), VMEM_ERR_SYNTAX);
  assert_true(err.offset > 80 && err.offset < strlen(text));
  vmem_hlo_free(m);
  /* Another backend's non-JSON config is not an error. */
  m = parse("e { a = f32[] custom-call(), custom_call_target=\"foo\", backend_config=\"{bar = 42 : i32}\" }");
  assert_int_equal(vmem_hlo_instruction_scoped(find(m, "e", "a"), &sc, &err), VMEM_OK);
  assert_false(sc.config_is_json);
  vmem_hlo_free(m);
}

static void test_open_files(void **state) {
  (void)state;
  vmem_error err;
  assert_null(vmem_hlo_open("/nonexistent/x.hlo", NULL, &err));
  assert_int_equal(err.code, VMEM_ERR_ARGUMENT);
  assert_null(vmem_hlo_open("/", NULL, &err));
  assert_int_equal(err.code, VMEM_ERR_ARGUMENT);
  char path[] = "/tmp/vmemscope-test-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  FILE *f = fdopen(fd, "w");
  fputs(basic, f);
  fclose(f);
  vmem_hlo_module *m = vmem_hlo_open(path, NULL, &err);
  assert_non_null(m);
  assert_int_equal(vmem_hlo_text(m).len, strlen(basic));
  vmem_hlo_free(m);
  f = fopen(path, "w"); /* now empty */
  fclose(f);
  assert_null(vmem_hlo_open(path, NULL, &err));
  assert_non_null(strstr(err.message, "empty file"));
  remove(path);
}

static void test_allocator(void **state) {
  (void)state;
  counting c = {0, 0, -1};
  vmem_allocator a = {c_alloc, c_free, &c};
  vmem_error err;
  vmem_hlo_module *m = vmem_hlo_parse(basic, strlen(basic), &a, &err);
  assert_non_null(m);
  long needed = c.calls;
  vmem_hlo_free(m);
  assert_int_equal(c.live, 0);
  for (long k = 0; k < needed; k++) {
    counting f = {0, 0, k};
    vmem_allocator fa = {c_alloc, c_free, &f};
    m = vmem_hlo_parse(basic, strlen(basic), &fa, &err);
    assert_null(m);
    assert_int_equal(err.code, VMEM_ERR_NOMEM);
    assert_int_equal(f.live, 0);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_module_structure),
      cmocka_unit_test(test_call_graph),
      cmocka_unit_test(test_defines_buffer),
      cmocka_unit_test(test_module_buffers),
      cmocka_unit_test(test_grammar_features),
      cmocka_unit_test(test_headerless_and_defaults),
      cmocka_unit_test(test_shapes_are_shared),
      cmocka_unit_test(test_errors),
      cmocka_unit_test(test_binary_input),
      cmocka_unit_test(test_too_many_attributes),
      cmocka_unit_test(test_malformed_tpu_config),
      cmocka_unit_test(test_open_files),
      cmocka_unit_test(test_allocator),
  };
  return RUN(tests);
}
