/*
 * hlo_ops.c — the opcode table (hlo_ops.def) as data, and the lookup the
 * reader makes once per distinct opcode.
 */
#include "hlo.h"

#define A HLO_F_ALIAS
#define F HLO_F_FORWARD
#define I HLO_F_INLINES
#define E HLO_F_ELEMWISE
#define U HLO_F_UNSIZED
#define X HLO_F_EXTENT

const hlo_op_info hlo_op_table[HLO_OP_OTHER + 1] = {
#define HLO_OP(e, text, flags, rule) {text, sizeof text - 1, (flags), HLO_STD_##rule},
#include "hlo_ops.def"
#undef HLO_OP
    {"", 0, 0, HLO_STD_NONE},
};

#undef A
#undef F
#undef I
#undef E
#undef U
#undef X

/* A linear scan: a module has a few dozen distinct opcodes, each looked
 * up once (the reader interns them). */
hlo_op hlo_op_lookup(sv text) {
  for (int k = 0; k < HLO_OP_OTHER; k++)
    if (sv_eq(text, hlo_op_table[k].text, hlo_op_table[k].len))
      return (hlo_op)k;
  return HLO_OP_OTHER;
}
