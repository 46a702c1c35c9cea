/* The opcode table (src/hlo/hlo_ops.def): each opcode once, each text
 * looked up to its own enum, the flags the planners rely on consistent. */
#include "test.h"

#include "../src/hlo/hlo.h"

static void test_each_opcode_once(void **state) {
  (void)state;
  for (int k = 0; k < HLO_OP_OTHER; k++) {
    const hlo_op_info *o = &hlo_op_table[k];
    assert_int_equal(o->len, strlen(o->text));
    sv t = {o->text, o->len};
    if (hlo_op_lookup(t) != (hlo_op)k)
      fail_msg("'%s' looks up to another entry", o->text);
    if (k && strcmp(hlo_op_table[k - 1].text, o->text) >= 0)
      fail_msg("'%s' out of order: the table is kept sorted so that a duplicate shows", o->text);
  }
  sv none = {"frobnicate", 10}, prefix = {"add-", 4}, empty = {"", 0};
  assert_int_equal(hlo_op_lookup(none), HLO_OP_OTHER);
  assert_int_equal(hlo_op_lookup(prefix), HLO_OP_OTHER);
  assert_int_equal(hlo_op_lookup(empty), HLO_OP_OTHER);
  assert_int_equal(hlo_op_table[HLO_OP_OTHER].flags, 0);
}

/* What the planners assume of the flags: a forwarding op and a control-flow
 * op define no buffer; the standard-op model skips every op that defines
 * none; an elementwise op is sized by the default rule. */
static void test_flags_agree(void **state) {
  (void)state;
  for (int k = 0; k < HLO_OP_OTHER; k++) {
    const hlo_op_info *o = &hlo_op_table[k];
    if (o->flags & (HLO_F_FORWARD | HLO_F_INLINES))
      assert_true(o->flags & HLO_F_ALIAS);
    if (o->flags & HLO_F_ALIAS)
      assert_true(o->flags & HLO_F_UNSIZED);
    if (o->flags & HLO_F_ELEMWISE)
      assert_int_equal(o->rule, HLO_STD_NONE);
    assert_true(o->rule < HLO_STD_COUNT);
  }
  assert_int_equal(hlo_op_table[HLO_OP_COPY_DONE].flags & HLO_F_ALIAS, HLO_F_ALIAS);
  assert_int_equal(hlo_op_table[HLO_OP_COPY_START].flags & HLO_F_ALIAS, 0);
  assert_int_equal(hlo_op_table[HLO_OP_DOT].rule, HLO_STD_DOT);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_each_opcode_once),
      cmocka_unit_test(test_flags_agree),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
