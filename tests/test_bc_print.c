/* The bytecode decoder and printer (bc_print.c) on bytecode written here,
 * one encoding rule at a time: each builtin attribute and type code, the
 * textual entries, the IR forms of versions 0 to 6, and hostile input
 * (bad indices, unknown codes, cycles, exponential DAGs, unsupported
 * properties) — each a positioned error, never a crash or a hang. */
#include "test.h"
#include "bcwrite.h"

static mini M;
static uint64_t loc; /* UnknownLoc */

static void setup_mini(uint64_t version) {
  mini_init(&M, version);
  loc = MINI_ATTR(&M, 15);
}

/* An op's regions: inline before v2; from v2, an isolated op's regions sit
 * in a nested IR section. */
static void put_regions(wbuf *ir, const wbuf *regions, bool isolated) {
  put_varint(ir, 1 << 1 | (isolated ? 1 : 0));
  if (isolated && M.version >= 2)
    put_section(ir, 4, regions);
  else
    put_bytes(ir, regions->b, regions->n);
}

/* module attributes {dict} {} */
static void module_ir(uint64_t dict) {
  wbuf r = {.n = 0};
  put_varint(&r, 0); /* no blocks */
  M.ir.n = 0;
  put_varint(&M.ir, 1 << 1);
  put_varint(&M.ir, 0), put(&M.ir, 0x11), put_varint(&M.ir, loc), put_varint(&M.ir, dict);
  put_regions(&M.ir, &r, true);
}

/* The printed text (malloc'd), or NULL with *err set. */
static char *print_file(vmem_error *err) {
  static wbuf f;
  mini_file(&M, &f);
  size_t n = vmem_bytecode_text(f.b, f.n, NULL, 0, NULL, err);
  if (n == SIZE_MAX)
    return NULL;
  char *out = malloc(n + 1);
  assert_int_equal(vmem_bytecode_text(f.b, f.n, out, n + 1, NULL, err), n);
  return out;
}

/* Prints a module whose attributes are {k = a} and checks the text. */
static void expect_attr(uint64_t a, const char *want) {
  uint64_t dict = MINI_ATTR(&M, 1, 1, mini_str_attr(&M, "k"), a);
  module_ir(dict);
  vmem_error err;
  char *text = print_file(&err);
  if (!text)
    fail_msg("%s: %s", want, err.message);
  char line[512];
  snprintf(line, sizeof line, "module attributes {k = %s} {", want);
  if (!strstr(text, line))
    fail_msg("want %s\ngot  %s", line, text);
  free(text);
}

/* Expects an error whose message contains `what`, at an offset in the file. */
static void expect_error(vmem_status code, const char *what) {
  vmem_error err;
  char *text = print_file(&err);
  if (text)
    fail_msg("expected '%s', got text %s", what, text);
  if (!strstr(err.message, what))
    fail_msg("expected '%s', got '%s'", what, err.message);
  assert_int_equal(err.code, code);
}

static uint64_t raw_attr(const uint8_t *b, size_t n) { return mini_entry(&M, 0, 0, true, b, n); }

static void test_integers(void **state) {
  (void)state;
  setup_mini(0);
  uint64_t i32 = MINI_TYPE(&M, 0, 32 << 2), i8 = MINI_TYPE(&M, 0, 8 << 2), i1 = MINI_TYPE(&M, 0, 1 << 2);
  uint64_t ui8 = MINI_TYPE(&M, 0, 8 << 2 | 2), si16 = MINI_TYPE(&M, 0, 16 << 2 | 1), idx = MINI_TYPE(&M, 1);
  uint64_t i64 = MINI_TYPE(&M, 0, 64 << 2);
  expect_attr(MINI_ATTR(&M, 8, i32, 84), "42 : i32");
  expect_attr(MINI_ATTR(&M, 8, i32, 9), "-5 : i32");
  /* A writer may zero-extend the 32-bit value first: the same -5. */
  expect_attr(MINI_ATTR(&M, 8, i32, (uint64_t)0xFFFFFFFB << 1), "-5 : i32");
  expect_attr(MINI_ATTR(&M, 8, idx, 14), "7 : index");
  expect_attr(MINI_ATTR(&M, 8, si16, 3), "-2 : si16");
  expect_attr(MINI_ATTR(&M, 8, i64, UINT64_MAX - 1), "9223372036854775807 : i64");
  /* Widths up to 8 bits are one raw byte. */
  uint8_t b8[] = {8 << 1 | 1, (uint8_t)(i8 << 1 | 1), 0xFF};
  expect_attr(raw_attr(b8, 3), "-1 : i8");
  uint8_t bu8[] = {8 << 1 | 1, (uint8_t)(ui8 << 1 | 1), 200};
  expect_attr(raw_attr(bu8, 3), "200 : ui8");
  uint8_t b1[] = {8 << 1 | 1, (uint8_t)(i1 << 1 | 1), 1};
  expect_attr(raw_attr(b1, 3), "true");
  /* An integer attribute whose type is a float is refused. */
  uint64_t f32 = MINI_TYPE(&M, 5);
  module_ir(MINI_ATTR(&M, 1, 1, mini_str_attr(&M, "k"), MINI_ATTR(&M, 8, f32, 2)));
  expect_error(VMEM_ERR_SYNTAX, "integer attribute of a non-integer type");
}

static void test_floats(void **state) {
  (void)state;
  setup_mini(0);
  uint64_t f32 = MINI_TYPE(&M, 5), bf16 = MINI_TYPE(&M, 3), f16 = MINI_TYPE(&M, 4), f64 = MINI_TYPE(&M, 6);
  expect_attr(MINI_ATTR(&M, 9, f32, (uint64_t)0x3FC00000 << 1), "1.500000e+00 : f32");
  expect_attr(MINI_ATTR(&M, 9, bf16, (uint64_t)0xC000 << 1), "-2.000000e+00 : bf16");
  expect_attr(MINI_ATTR(&M, 9, f16, (uint64_t)0x3C00 << 1), "1.000000e+00 : f16");
  expect_attr(MINI_ATTR(&M, 9, f16, (uint64_t)0x0001 << 1), "5.960464e-08 : f16"); /* subnormal */
  expect_attr(MINI_ATTR(&M, 9, f64, (uint64_t)0x3FD0000000000000 << 1), "2.500000e-01 : f64");
}

static void test_dense(void **state) {
  (void)state;
  setup_mini(0);
  uint64_t i64 = MINI_TYPE(&M, 0, 64 << 2), i32 = MINI_TYPE(&M, 0, 32 << 2), i1 = MINI_TYPE(&M, 0, 1 << 2);
  uint64_t f32 = MINI_TYPE(&M, 5);
  wbuf w = {.n = 0};
  put_varint(&w, 17), put_varint(&w, i64), put_varint(&w, 2), put_varint(&w, 16);
  int64_t v[2] = {1, -2};
  put_bytes(&w, v, 16); /* little-endian on every machine this runs on */
  expect_attr(raw_attr(w.b, w.n), "array<i64: 1, -2>");
  expect_attr(MINI_ATTR(&M, 17, i32, 0, 0), "array<i32>");
  uint8_t bools[] = {17 << 1 | 1, (uint8_t)(i1 << 1 | 1), 2 << 1 | 1, 2 << 1 | 1, 1, 0};
  expect_attr(raw_attr(bools, sizeof bools), "array<i1: true, false>");
  /* dense<...> : vector<4xf32>: a splat, then raw data as hex. */
  uint64_t v4 = MINI_TYPE(&M, 19, 1, 8, f32), v2 = MINI_TYPE(&M, 19, 1, 4, i32);
  uint64_t vb = MINI_TYPE(&M, 19, 2, 16, 256, i1);
  uint8_t one[] = {18 << 1 | 1, (uint8_t)(v4 << 1 | 1), 4 << 1 | 1, 0, 0, 0x80, 0x3F};
  expect_attr(raw_attr(one, sizeof one), "dense<1.000000e+00> : vector<4xf32>");
  uint8_t two[] = {18 << 1 | 1, (uint8_t)(v2 << 1 | 1), 8 << 1 | 1, 1, 0, 0, 0, 2, 0, 0, 0};
  expect_attr(raw_attr(two, sizeof two), "dense<\"0x0100000002000000\"> : vector<2xi32>");
  uint8_t yes[] = {18 << 1 | 1, (uint8_t)(vb << 1 | 1), 1 << 1 | 1, 0xFF};
  expect_attr(raw_attr(yes, sizeof yes), "dense<true> : vector<8x128xi1>");
  /* A count that does not match the data. */
  uint8_t short3[] = {17 << 1 | 1, (uint8_t)(i32 << 1 | 1), 3 << 1 | 1, 4 << 1 | 1, 0, 0, 0, 0};
  module_ir(MINI_ATTR(&M, 1, 1, mini_str_attr(&M, "k"), raw_attr(short3, sizeof short3)));
  expect_error(VMEM_ERR_SYNTAX, "dense array whose data does not match");
}

static void test_strings_symbols(void **state) {
  (void)state;
  setup_mini(0);
  expect_attr(mini_str_attr(&M, "a\"b\\c\n"), "\"a\\22b\\\\c\\0A\"");
  expect_attr(MINI_ATTR(&M, 4, mini_str_attr(&M, "transform_0")), "@transform_0");
  expect_attr(MINI_ATTR(&M, 4, mini_str_attr(&M, "my kernel")), "@\"my kernel\"");
  uint64_t inner = MINI_ATTR(&M, 4, mini_str_attr(&M, "b"));
  expect_attr(MINI_ATTR(&M, 5, mini_str_attr(&M, "a"), 1, inner), "@a::@b");
  expect_attr(MINI_ATTR(&M, 3, mini_string(&M, "x"), MINI_TYPE(&M, 5)), "\"x\" : f32");
  expect_attr(MINI_ATTR(&M, 0, 1, MINI_ATTR(&M, 7)), "[unit]");
}

static void test_collections(void **state) {
  (void)state;
  setup_mini(0);
  uint64_t par = mini_entry(&M, 0, 1, false, "#tpu.dimension_semantics<parallel>", 34);
  uint64_t arb = mini_entry(&M, 0, 1, false, "#tpu.dimension_semantics<arbitrary>", 35);
  expect_attr(MINI_ATTR(&M, 0, 2, par, arb),
              "[#tpu.dimension_semantics<parallel>, #tpu.dimension_semantics<arbitrary>]");
  expect_attr(MINI_ATTR(&M, 0, 0), "[]");
  uint64_t unit = MINI_ATTR(&M, 7), i32 = MINI_TYPE(&M, 0, 32 << 2);
  uint64_t nested =
      MINI_ATTR(&M, 1, 2, mini_str_attr(&M, "flag"), unit, mini_str_attr(&M, "n"), MINI_ATTR(&M, 8, i32, 2));
  expect_attr(nested, "{flag, n = 1 : i32}");
  /* Another dialect's own encoding: said, not guessed. */
  uint8_t blob[] = {1, 2, 3};
  expect_attr(mini_entry(&M, 0, 1, true, blob, 3), "#tpu<\"undecoded\">");
}

static void test_types(void **state) {
  (void)state;
  setup_mini(0);
  uint64_t f32 = MINI_TYPE(&M, 5), i32 = MINI_TYPE(&M, 0, 32 << 2), idx = MINI_TYPE(&M, 1);
  uint64_t smem = mini_entry(&M, 0, 1, false, "#tpu.memory_space<smem>", 23);
  uint64_t ident = mini_entry(&M, 0, 0, false, "affine_map<(d0, d1) -> (d0, d1)>", 32);
  uint64_t strided = mini_entry(&M, 0, 0, false, "strided<[8, 1]>", 15);
  struct {
    uint64_t type;
    const char *want;
  } cases[] = {
      {MINI_TYPE(&M, 11, smem, 2, 8, 16, f32, ident), "memref<4x8xf32, #tpu.memory_space<smem>>"},
      {MINI_TYPE(&M, 10, 2, 8, 16, f32, strided), "memref<4x8xf32, strided<[8, 1]>>"},
      {MINI_TYPE(&M, 10, 2, UINT64_MAX, 16, f32, ident), "memref<?x8xf32>"},
      {MINI_TYPE(&M, 2, 2, i32, idx, 1, f32), "(i32, index) -> (f32)"},
      {MINI_TYPE(&M, 13, 1, 6, i32), "tensor<3xi32>"},
      {MINI_TYPE(&M, 14, strided, 1, 6, i32), "tensor<3xi32, strided<[8, 1]>>"},
      {MINI_TYPE(&M, 19, 0, f32), "vector<f32>"},
      {MINI_TYPE(&M, 16, f32), "memref<*xf32>"},
      {MINI_TYPE(&M, 17, smem, f32), "memref<*xf32, #tpu.memory_space<smem>>"},
      {MINI_TYPE(&M, 18, i32), "tensor<*xi32>"},
      {MINI_TYPE(&M, 15, 2, i32, f32), "tuple<i32, f32>"},
      {MINI_TYPE(&M, 9, f32), "complex<f32>"},
      {MINI_TYPE(&M, 12), "none"},
      {MINI_TYPE(&M, 0, 4 << 2 | 2), "ui4"},
      {MINI_TYPE(&M, 7), "f80"},
      {mini_entry(&M, 1, 1, false, "!tpu.dma_semaphore", 18), "!tpu.dma_semaphore"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
    expect_attr(MINI_ATTR(&M, 6, cases[i].type), cases[i].want);
  module_ir(MINI_ATTR(&M, 1, 1, mini_str_attr(&M, "k"), MINI_ATTR(&M, 6, MINI_TYPE(&M, 20, 0))));
  expect_error(VMEM_ERR_UNSUPPORTED, "undecodable builtin type code");
}

static void test_hostile(void **state) {
  (void)state;
  setup_mini(0);
  /* An index past the attribute table. */
  module_ir(MINI_ATTR(&M, 1, 1, mini_str_attr(&M, "k"), 40));
  expect_error(VMEM_ERR_SYNTAX, "attribute index out of range");
  /* An unknown code. */
  module_ir(MINI_ATTR(&M, 1, 1, mini_str_attr(&M, "k"), MINI_ATTR(&M, 99)));
  expect_error(VMEM_ERR_UNSUPPORTED, "undecodable builtin attribute code");
  /* An array that holds itself: a cycle, caught by the depth cap. */
  uint64_t self = M.nentries[0];
  MINI_ATTR(&M, 0, 1, self);
  module_ir(MINI_ATTR(&M, 1, 1, mini_str_attr(&M, "k"), self));
  expect_error(VMEM_ERR_RANGE, "nested too deeply");
  /* 40 arrays, each holding the previous twice: 2^40 leaves. */
  setup_mini(0);
  uint64_t prev = MINI_ATTR(&M, 7);
  for (int i = 0; i < 40; i++)
    prev = MINI_ATTR(&M, 0, 2, prev, prev);
  module_ir(MINI_ATTR(&M, 1, 1, mini_str_attr(&M, "k"), prev));
  expect_error(VMEM_ERR_RANGE, "budget");
  /* A dictionary key that is not a string. */
  setup_mini(0);
  module_ir(MINI_ATTR(&M, 1, 1, MINI_ATTR(&M, 7), MINI_ATTR(&M, 7)));
  expect_error(VMEM_ERR_SYNTAX, "a name that is not a string attribute");
  /* A mask bit no version defines, and an op name past the table. */
  setup_mini(0);
  module_ir(MINI_ATTR(&M, 1, 0));
  M.ir.b[2] = 0x91;
  expect_error(VMEM_ERR_SYNTAX, "op encoding mask");
  M.ir.b[1] = 40 << 1 | 1;
  expect_error(VMEM_ERR_SYNTAX, "op name index out of range");
}

/* module { func.func @f(%arg0: i32) -> (i32) { %c = arith.constant 7;
 * return %arg0 } } in the given version's IR forms. */
static void func_ir(bool props, bool use_lists) {
  uint64_t i32 = MINI_TYPE(&M, 0, 32 << 2);
  uint64_t ftype = MINI_TYPE(&M, 2, 1, i32, 1, i32);
  uint64_t fattrs = MINI_ATTR(&M, 1, 2, mini_str_attr(&M, "sym_name"), mini_str_attr(&M, "f"),
                              mini_str_attr(&M, "function_type"), MINI_ATTR(&M, 6, ftype));
  uint64_t cattrs = MINI_ATTR(&M, 1, 1, mini_str_attr(&M, "value"), MINI_ATTR(&M, 8, i32, 14));
  wbuf body = {.n = 0}, mregion = {.n = 0}, func = {.n = 0};
  put_varint(&body, 1), put_varint(&body, 2);          /* 1 block, 2 values */
  put_varint(&body, 2 << 1 | 1), put_varint(&body, 1); /* 2 ops; 1 argument */
  if (M.version >= 4)
    put_varint(&body, i32 << 1 | 1), put_varint(&body, loc);
  else
    put_varint(&body, i32), put_varint(&body, loc);
  if (M.version >= 3)
    put(&body, 0); /* no use-list orders for the arguments */
  put_varint(&body, 3), put(&body, use_lists ? 0x23 : 0x03), put_varint(&body, loc), put_varint(&body, cattrs);
  put_varint(&body, 1), put_varint(&body, i32);
  if (use_lists)
    put_varint(&body, 1 << 1), put_varint(&body, 0); /* a permutation of one use */
  put_varint(&body, 2), put(&body, 0x04), put_varint(&body, loc), put_varint(&body, 1), put_varint(&body, 0);
  put_varint(&func, 1), put(&func, props ? 0x51 : 0x11), put_varint(&func, loc), put_varint(&func, fattrs);
  if (props)
    put_varint(&func, 0);
  put_regions(&func, &body, true);
  put_varint(&mregion, 1), put_varint(&mregion, 0), put_varint(&mregion, 1 << 1);
  put_bytes(&mregion, func.b, func.n);
  M.ir.n = 0;
  put_varint(&M.ir, 1 << 1);
  put_varint(&M.ir, 0), put(&M.ir, 0x10), put_varint(&M.ir, loc);
  put_regions(&M.ir, &mregion, true);
}

static void test_ir_versions(void **state) {
  (void)state;
  for (uint64_t v = 0; v <= 6; v++) {
    setup_mini(v);
    func_ir(false, v >= 3);
    vmem_error err;
    char *text = print_file(&err);
    if (!text)
      fail_msg("version %llu: %s", (unsigned long long)v, err.message);
    const char *want = "module {\n"
                       "  func.func @f(%arg0: i32) -> (i32) {\n"
                       "    %c0 = arith.constant 7 : i32\n"
                       "    return %arg0 : i32\n"
                       "  }\n"
                       "}\n";
    if (!strstr(text, want))
      fail_msg("version %llu:\n%s", (unsigned long long)v, text);
    free(text);
  }
  /* v5+: a registered func.func whose attributes are native properties. */
  setup_mini(5);
  func_ir(true, false);
  expect_error(VMEM_ERR_UNSUPPORTED, "native properties");
}

/* A body the kernel reader accepts, from base64, and one it refuses with
 * the position in the decoded text named. */
static void test_kernel_from_bytecode(void **state) {
  (void)state;
  setup_mini(0);
  func_ir(false, false);
  static wbuf f;
  mini_file(&M, &f);
  vmem_error err;
  vmem_kernel *k = vmem_kernel_from_bytecode(f.b, f.n, NULL, &err);
  assert_null(k);
  assert_non_null(strstr(err.message, "decoded MLIR"));
  assert_non_null(strstr(err.message, "not a Pallas kernel"));
  /* Base64 with an invalid character: its position. */
  assert_null(vmem_kernel_from_bytecode("TUzvUgF2*mVt", 12, NULL, &err));
  assert_int_equal(err.offset, 8);
  assert_null(vmem_kernel_from_bytecode("hello", 5, NULL, &err));
  assert_non_null(strstr(err.message, "not MLIR bytecode"));
  assert_null(vmem_kernel_from_bytecode(NULL, 0, NULL, &err));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_integers),
      cmocka_unit_test(test_floats),
      cmocka_unit_test(test_dense),
      cmocka_unit_test(test_strings_symbols),
      cmocka_unit_test(test_collections),
      cmocka_unit_test(test_types),
      cmocka_unit_test(test_hostile),
      cmocka_unit_test(test_ir_versions),
      cmocka_unit_test(test_kernel_from_bytecode),
  };
  return RUN(tests);
}
