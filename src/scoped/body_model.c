/*
 * body_model.c — the body model: what a Pallas kernel's body costs beyond
 * its windows and scratch (docs/kernels.md, "Body values"; modelled). The
 * walk of the body (src/mosaic/body.c) records the values it computes; this
 * file charges each on a target (its rule, keyed on the target's facts),
 * says where each rule holds (the domains it was measured on), sets each
 * value's ceiling, and finds the peak of what is live at once. The
 * footprint (footprint.c) and fit's template (src/tune/template.c) both ask
 * it, so that both charge a kernel the same way.
 */
#include <stdlib.h>
#include <string.h>

#include "scoped.h"

/* ---- the body model (docs/kernels.md, "Body values"; modelled) ----------
 *
 * What the body's values hold at once, at the line where that is most: the
 * values kept whole over their lines, plus what one op stages at its line —
 * a matmul's lhs, on every target; the f32 copy of a bf16 arithmetic result
 * where the VPU computes bf16 in f32 (v2, v3: the oracle's records show it
 * there and not on v4 and later). A value that fits the vector registers is
 * held there: 64 registers of sublanes x lanes x 4 bytes (the count of 64 is
 * an assumption, not a published figure). Each value is laid out as Mosaic
 * lays out its own buffers. The rules and the records behind them are in
 * docs/fidelity.md, "The body model". */
enum { VREG_COUNT = 64 };

static uint64_t vreg_file_bytes(const vmem_target *t) {
  return (uint64_t)VREG_COUNT * vmem_target_u64(t, VMEM_FACT_VREG_SUBLANES) * vmem_target_u64(t, VMEM_FACT_VREG_LANES) *
         4;
}

/* A row broadcast on v2-v4: its tile of rows (padded). Probes of
 * x + b[0:1, :] on libtpu 0.0.42.1 (f32, 128 to 4096 lanes, 8 to 1024 rows
 * of x; the same on v2 and v4): the compiler's extra is 32 bytes a lane (and
 * the relayout below past 128 lanes); a second broadcast adds its tile, a
 * third more than that (the rule is under there); bf16 rows add their tile
 * alone. None of it on v5e and later. */
static uint64_t row_broadcast_charge(const vmem_target *t, uint64_t padded) {
  return vmem_target_u64(t, VMEM_FACT_ROW_BROADCAST_TILE) ? padded : 0;
}

/* One-row tiles relaid out to native ones (src/mosaic/body.c, "one-row
 * tiles"): a fixed 36 KiB, once per kernel, up to the generation the body
 * recorded (v5p for reductions, matmuls, transposes and stores; v4 for row
 * broadcasts and narrowings to bf16). 36,864 bytes in every probe and
 * record, whatever the value's size. */
enum { RELAYOUT_FIXED = 36864 };

/* A 16-bit transpose's column strip (src/mosaic/body.c), less what the
 * registers keep of it: the least allowance over the probes of each
 * generation, so that the charge is at or above every probe's extra (v6e
 * and 7x: exact at 1024 to 4096 lanes, 24 KiB over at 896; v5e and v5p: up
 * to 84 KiB over; v4: up to 64 KiB over past 512 lanes). v2 and v3 hold the
 * whole transpose in f32 instead (VALUE_BF16_F32), with nothing beside it. */
static uint64_t transpose_charge(const vmem_target *t, uint64_t padded) {
  if (vmem_target_u64(t, VMEM_FACT_BF16_IN_F32))
    return 0;
  uint64_t kept = vmem_target_u64(t, VMEM_FACT_TRANSPOSE16_KEPT_BYTES);
  return padded > kept ? padded - kept : 0;
}

/* An 8-bit transpose (src/mosaic/body.c): v2 and v3 charge its result as
 * 32-bit less 52 KiB, v4 as 16-bit less 40 KiB, at least 4 KiB; later
 * generations nothing. Probes of o_ref[...] = x_ref[...].T (int8, 128x128
 * to 2048x256 and 1024x1024): v2/v3 exact on 5 of 9 shapes and up to 8 KiB
 * above; v4 exact on 7 of 9, 8 KiB under at 256x2048. */
static uint64_t transpose8_charge(const vmem_target *t, uint64_t padded) {
  uint64_t widen = vmem_target_u64(t, VMEM_FACT_TRANSPOSE8_WIDEN), wide;
  if (!widen || !ck_mul(padded, widen, &wide))
    return 0;
  uint64_t spared = vmem_target_u64(t, VMEM_FACT_TRANSPOSE8_SPARED_BYTES);
  return wide > spared + 4096 ? wide - spared : 4096;
}

/* v2/v3's f32 copies of bf16 blocks: the compiler charges a copy less
 * 64 to 80 KiB (68 KiB, 17 vregs, on every record of one elementwise op:
 * rows_bf16 at five widths, prefetch_bf16; within 12 KiB on widenings,
 * transposes and two-operand ops), and 4 KiB for a copy smaller than that
 * (rows_bf16 bm24, squeezed_bf16). */
enum { F32_COPY_SPARED = 69632, F32_COPY_LEAST = 4096 };

/* A value kept whole on v6e and 7x: the compiler charges it less 204 KiB
 * (51 of the 64 vregs; the target fact kept_spared_bytes), not less
 * nothing once it passes the register file.
 * heads_bf16_h1: 256x256 f32 logits (256 KiB) cost 52 KiB on both targets,
 * exactly this; 512x512 ones (1 MiB) cost 804 to 812 KiB, this is 8 to 16 KiB
 * above; flash attention's kept blocks move 204 KiB closer to the records.
 * v4 and v5 records fit no such allowance (v5e charges the 256 KiB logits
 * nothing, v4 124 KiB of them), so there the register file is the rule. */

/* A value read across a reduction (src/mosaic/body.c): ACROSS_NUM/ACROSS_DEN
 * of its bytes. The compiler's extra over 17 records of layer and RMS norms
 * (v4-7x) runs 0.33-1.04 of the value, 0.99-1.04 on v6e and 7x. */
enum { ACROSS_NUM = 3, ACROSS_DEN = 4 };

static uint64_t across_charge(uint64_t padded) { return padded / ACROSS_DEN * ACROSS_NUM; }

/* The reduction's result beside a value read across it, at the ceiling: a
 * column of the value's rows, one vreg (4 KiB) a row tile of eight. The
 * held-out RMS norm of a residual sum charges the 4 MiB sum and 140-150 KiB
 * more on v6e and 7x, under the 256 KiB of its 512-row column. */
static uint64_t across_column(const kernel_modelled *m) {
  uint64_t rows = 1;
  size_t rank = vmem_shape_rank(m->shape);
  for (size_t d = 0; d + 1 < rank; d++)
    if (!ck_mul(rows, (uint64_t)vmem_shape_dim(m->shape, d), &rows))
      return UINT64_MAX;
  return rows > UINT64_MAX / 4096 - 1 ? UINT64_MAX : (rows + 7) / 8 * 4096;
}

/* Which values count on t: the f32 copies only where the VPU has no bf16;
 * a matmul's lhs only when its K exceeds twice the MXU's width (the records:
 * K = 512 costs nothing on the 256-wide MXUs of v6e and 7x, and costs about
 * the lhs on the 128-wide ones of v4 and v5). The staged lhs is charged at
 * 5/4 of its bytes: the records' ratios of the compiler's extra bytes to the
 * lhs run from 0.68 to 1.97 (docs/fidelity.md), and a figure below most of
 * them would call kernels fitting that fail. */
uint64_t scoped_body_charge(const kernel_modelled *m, const vmem_target *t, int64_t contracted, int64_t columns,
                            uint64_t padded) {
  int64_t mxu = (int64_t)vmem_target_u64(t, VMEM_FACT_MXU_DIM);
  if (m->kind == VALUE_LIVE || m->kind == VALUE_SHARED || m->kind == VALUE_MXU_RHS || m->kind == VALUE_MXU_RHS32 ||
      m->kind == VALUE_WIDEN8) /* the ceiling's alone */
    return 0;
  if (m->kind == VALUE_ACROSS)
    return across_charge(padded);
  if (m->kind == VALUE_BF16_F32 && !vmem_target_u64(t, VMEM_FACT_BF16_IN_F32))
    return 0;
  if (m->kind == VALUE_ROW_BCAST)
    return row_broadcast_charge(t, padded);
  if (m->kind == VALUE_TRANSPOSE)
    return transpose_charge(t, padded);
  if (m->kind == VALUE_TRANSPOSE8)
    return transpose8_charge(t, padded);
  if (m->kind == VALUE_LANE_BCAST) /* src/mosaic/body.c, record_lane_store */
    return vmem_target_u64(t, VMEM_FACT_LANE_BROADCAST_COPY) ? padded : 0;
  if (m->kind == VALUE_RELAYOUT)
    return (m->relayout & RELAYOUT_OPS && vmem_target_u64(t, VMEM_FACT_RELAYOUT_ROW_TILES)) ||
                   (m->relayout & RELAYOUT_BROADCAST && vmem_target_u64(t, VMEM_FACT_RELAYOUT_ROW_BROADCAST))
               ? RELAYOUT_FIXED
               : 0;
  if (m->kind == VALUE_BF16_F32)
    return m->beside ? padded : padded > F32_COPY_SPARED ? padded - F32_COPY_SPARED : F32_COPY_LEAST;
  if (m->kind == VALUE_MXU_LHS && vmem_dtype_bits(m->shape->dtype) > 16)
    return 0; /* an f32 lhs: the records' staging is non-monotonic in the block; only the ceiling counts it */
  if (m->kind == VALUE_MXU_LHS && (contracted <= 2 * mxu || columns <= mxu))
    return 0; /* nor when N fits one MXU pass: a re-compile at bn = 256 on v6e showed no staging */
  uint64_t file = vreg_file_bytes(t);
  if (m->kind == VALUE_KEPT && m->repeats > 1) /* unrolled copies: the file holds part of them all */
    return padded > file / m->repeats ? padded - file / m->repeats : 0;
  uint64_t spared = vmem_target_u64(t, VMEM_FACT_KEPT_SPARED_BYTES);
  if (m->kind == VALUE_KEPT && spared) /* the registers spare part of one (kept_spared_bytes) */
    return padded > spared ? padded - spared : 0;
  if (padded <= file)
    return 0;
  return m->kind == VALUE_MXU_LHS ? padded / 4 * 5 : padded;
}

/* ---- where the rules hold ----------------------------------------------
 *
 * Each rule of the estimate with the values it was measured on: the op
 * that makes the value (for kept values), its element types, and the bytes
 * the rule charged them on the oracle's hand-written records (tests/oracle).
 * A value a rule sizes outside every entry of its own may make a kernel
 * "at risk" but never "likely E1001" by itself (src/scoped/verdict.c):
 * generated kernels (oracle/gen, the fitting split) showed the rules
 * missing by up to 3x outside the families they were fitted on — a
 * concatenation of 14 MiB charged whole that cost 1-5 MiB, a loaded lhs of
 * 704 rows charged 2.6 MiB that cost 0.2 MiB. Patterns — the lhs's 5/4,
 * unrolled copies' 3/8, the 3/4 of a value read across a reduction — are
 * fitted factors; inside their measured shapes the hand-written records
 * hold them, outside they are guesses. */
typedef enum rule_id {
  RULE_KEPT,
  RULE_UNROLLED,
  RULE_LHS,
  RULE_ACROSS,
  RULE_F32_COPY,
  RULE_ROW_BCAST,
  RULE_RELAYOUT,
  RULE_TRANSPOSE,
  RULE_TRANSPOSE8,
  RULE_LANE_BCAST,
  RULE_NONE
} rule_id;

typedef struct rule_domain {
  rule_id rule;
  const char *op;     /* the op that makes the value; NULL: any */
  unsigned dtypes;    /* bit per vmem_dtype of the values measured; 0: any */
  uint64_t lo, hi;    /* the bytes the rule charged the values measured */
  int64_t rows[2];    /* the range of their second-to-last dim; {0, 0}: any */
  int64_t cols[2];    /* ... and of their last */
  unsigned tile;      /* rows and columns multiples of it; 0: any */
  const char *source; /* the records behind it */
} rule_domain;

#define DT(t) (1u << VMEM_##t)
enum { KIB = 1024, MIB_ = 1024 * 1024 };
static const rule_domain DOMAINS[] = {
    {RULE_KEPT,
     "tpu.matmul",
     DT(F32),
     52 * KIB,
     32 * MIB_,
     {256, 2048},
     {256, 4096},
     0,
     "logits: heads_*, ops_flash_*, held_flash_*"},
    {RULE_KEPT,
     "arith.extf",
     DT(F32),
     1844 * KIB,
     4 * MIB_,
     {256, 512},
     {2048, 2048},
     0,
     "widened rows: held_layernorm_*, held_softmax_*"},
    {RULE_KEPT,
     "arith.addf",
     DT(F32),
     820 * KIB,
     4 * MIB_,
     {256, 512},
     {512, 2048},
     0,
     "sums: held_resln_*, ops_flash_*"},
    {RULE_KEPT, "math.exp", DT(F32), 7988 * KIB, 8 * MIB_, {1024, 1024}, {2048, 2048}, 0, "held_softmax_*"},
    {RULE_KEPT,
     "tpu.concatenate",
     DT(F32),
     52 * KIB,
     4 * MIB_,
     {256, 1024},
     {256, 1024},
     0,
     "gathered heads: ops_flash_*, ops_splash_*"},
    {RULE_KEPT,
     "arith.select",
     DT(F32),
     52 * KIB,
     4 * MIB_,
     {256, 1024},
     {256, 1024},
     0,
     "masked logits: ops_splash_*"},
    {RULE_UNROLLED,
     "tpu.matmul",
     DT(F32),
     256 * KIB,
     8 * MIB_,
     {128, 1024},
     {256, 4096},
     0,
     "2-16 copies of per-head logits: heads_*, held_heads_*, held_gated_*, held_mqa_*, held_scaledk_*, ops_flash_*"},
    {RULE_UNROLLED,
     "arith.addf",
     DT(F32),
     16 * KIB,
     1 * MIB_,
     {4, 512},
     {64, 1024},
     0,
     "2-8 copies: ops_ragged_*, ops_paged_*, held_ragged_*"},
    {RULE_UNROLLED,
     "arith.select",
     DT(F32),
     512 * KIB,
     2 * MIB_,
     {256, 512},
     {512, 1024},
     0,
     "2-4 causal heads: held_causal_*"},
    {RULE_UNROLLED,
     "arith.mulf",
     DT(F32),
     256 * KIB,
     1 * MIB_,
     {256, 512},
     {256, 512},
     0,
     "2-4 soft-capped heads: held_softcap_*"},
    {RULE_LHS,
     NULL,
     DT(BF16),
     640 * KIB,
     5 * MIB_,
     {256, 2048},
     {512, 4096},
     256,
     "bf16 lhs: matmul_acc_*, ops_matmul_*, ops_gmm_*, held_* MLPs"},
    {RULE_ACROSS,
     NULL,
     DT(F32),
     3 * MIB_,
     6 * MIB_,
     {512, 1024},
     {2048, 2048},
     0,
     "17 norm records: held_rmsnorm_*, held_layernorm_*, held_resrms_*"},
    {RULE_F32_COPY, NULL, DT(F32), 4 * KIB, 32 * MIB_, {0, 0}, {0, 0}, 0, "v2 and v3: rows_*, widen_*, held_*"},
    {RULE_ROW_BCAST,
     NULL,
     DT(F32) | DT(BF16),
     4 * KIB,
     128 * KIB,
     {0, 0},
     {0, 0},
     0,
     "v2-v4 records and probes: bcast_*"},
    {RULE_RELAYOUT, NULL, 0, 0, UINT64_MAX, {0, 0}, {0, 0}, 0, "a fixed 36 KiB in each of 81 records, v2-v5p"},
    {RULE_TRANSPOSE, NULL, DT(BF16), 48 * KIB, 472 * KIB, {0, 0}, {0, 0}, 0, "transpose_* records and probes, v4-7x"},
    {RULE_TRANSPOSE8, NULL, DT(S8), 2008 * KIB, 4 * MIB_, {0, 0}, {0, 0}, 0, "3 records and 9 probes, v2-v4"},
    {RULE_LANE_BCAST, NULL, DT(F32), 8 * KIB, 64 * KIB, {0, 0}, {0, 0}, 0, "one_row_* records, v2-v4"},
};
#undef DT

enum { UNROLLED_MOST = 16 }; /* the most copies a record unrolled */

static rule_id rule_of(const kernel_modelled *m) {
  switch (m->kind) {
  case VALUE_KEPT:
    return RULE_KEPT;
  case VALUE_MXU_LHS:
    return RULE_LHS;
  case VALUE_ACROSS:
    return RULE_ACROSS;
  case VALUE_BF16_F32:
    return RULE_F32_COPY;
  case VALUE_ROW_BCAST:
    return RULE_ROW_BCAST;
  case VALUE_RELAYOUT:
    return RULE_RELAYOUT;
  case VALUE_TRANSPOSE:
    return RULE_TRANSPOSE;
  case VALUE_TRANSPOSE8:
    return RULE_TRANSPOSE8;
  case VALUE_LANE_BCAST:
    return RULE_LANE_BCAST;
  default:
    return RULE_NONE;
  }
}

/* The value's last two dims (a vector's rows and columns) against the domain's. */
static bool shaped(const rule_domain *dm, const int64_t *dims, size_t rank) {
  int64_t rows = rank >= 2 ? dims[rank - 2] : 1, cols = rank ? dims[rank - 1] : 1;
  if (dm->rows[1] && (rows < dm->rows[0] || rows > dm->rows[1]))
    return false;
  if (dm->cols[1] && (cols < dm->cols[0] || cols > dm->cols[1]))
    return false;
  return !dm->tile || (rows % dm->tile == 0 && cols % dm->tile == 0);
}

static bool within(rule_id r, const char *op, vmem_dtype dt, const int64_t *dims, size_t rank, uint64_t bytes) {
  for (size_t i = 0; i < sizeof DOMAINS / sizeof *DOMAINS; i++) {
    const rule_domain *d = &DOMAINS[i];
    if (d->rule == r && (!d->op || (op && !strcmp(op, d->op))) && (!d->dtypes || (dt < 32 && (d->dtypes >> dt & 1u))) &&
        bytes >= d->lo && bytes <= d->hi && shaped(d, dims, rank))
      return true;
  }
  return false;
}

/* Whether the estimate's charge for m comes from a rule inside the shapes
 * it was measured on. An unrolled copy is judged as the copies' line
 * (unrolled_firm). */
bool scoped_rule_firm(const kernel_modelled *m, uint64_t charge) {
  rule_id r = rule_of(m);
  if (m->declared)
    return true;
  if (r == RULE_NONE || (m->kind == VALUE_KEPT && m->repeats > 1))
    return false;
  return within(r, m->kind == VALUE_KEPT ? m->op : NULL, m->shape->dtype, m->shape->dims, vmem_shape_rank(m->shape),
                charge);
}

/* The unrolled copies' line: its copies' op, type and size (one copy's
 * bytes, f32) measured. */
bool scoped_unrolled_firm(const kernel_body_facts *bf) {
  uint64_t bytes = 4;
  for (size_t d = 0; d < bf->unrolled_rank; d++)
    if (!ck_mul(bytes, (uint64_t)(bf->unrolled_dims[d] > 0 ? bf->unrolled_dims[d] : 0), &bytes))
      return false;
  return bf->unrolled <= UNROLLED_MOST &&
         within(RULE_UNROLLED, bf->unrolled_op, bf->unrolled_dt, bf->unrolled_dims, bf->unrolled_rank, bytes);
}

/* ---- the ceiling: the rules at their worst on the oracle's records -------
 *
 * Beside its estimate, the model states the most the body's values can
 * take by its own record: each rule charged at the largest error any
 * record or probe showed for it, and what the estimate leaves at nothing
 * charged at what the records saw. A verdict is "fits" only when the
 * kernel fits at the ceiling; between the estimate and the ceiling it is
 * "at risk" (src/scoped/verdict.c). Per value, on the generations where its
 * rule charges (docs/fidelity.md, "The ceiling"):
 *   a matmul's lhs      2x its bytes, 16-bit or narrower, whatever K and N
 *                       (the records' staging runs 0.68-1.97x; small tiles
 *                       stage what the estimate leaves out), 1x for f32
 *                       (its staging, 0.1-0.85x, is not estimated at all)
 *   a kept value        its bytes whole: no register file held any of it
 *   an f32 copy         its bytes whole: the registers spared none (v2, v3)
 *   a row broadcast     2x its tile (three broadcasts charge 36-76 KiB more)
 *   the others          their estimate, which was exact or above each record
 * and, for a body that unrolls n alike copies, n times what one copy's
 * computed values hold at once as if none streamed (the VALUE_LIVE values):
 * the compiler interleaves the copies (ragged paged attention holds 2.4-3.7
 * of its 64 KiB logits a kv head where the estimate keeps one). On v2 and
 * v3, whose VPU computes bf16 in f32, a body with any such value has those
 * live bytes added to the peak (v2's f32 matmuls stage up to 1.3x their lhs):
 * megablox gmm there holds its widened operands, the product and the sum
 * at once (4 MiB less 80 KiB at 512-wide tiles, where the rules see 1). */
uint64_t scoped_body_ceiling(const kernel_modelled *m, const vmem_target *t, uint64_t padded, uint64_t charge) {
  switch (m->kind) {
  case VALUE_MXU_LHS:
    return vmem_dtype_bits(m->shape->dtype) > 16 ? padded : padded > UINT64_MAX / 2 ? UINT64_MAX : 2 * padded;
  case VALUE_KEPT:
  case VALUE_SHARED:
  case VALUE_MXU_RHS:
    return padded;
  case VALUE_ACROSS: {
    uint64_t c = across_column(m);
    return padded > UINT64_MAX - c ? UINT64_MAX : padded + c;
  }
  case VALUE_BF16_F32:
    return vmem_target_u64(t, VMEM_FACT_BF16_IN_F32) ? padded : 0;
  case VALUE_MXU_RHS32:
    return padded / 2;
  case VALUE_WIDEN8:
    return padded;
  case VALUE_ROW_BCAST: /* its tile on every generation: generated 8192-lane biases held 152-240 KiB on v5e-7x */
    return charge > UINT64_MAX / 2 ? UINT64_MAX : 2 * charge > padded ? 2 * charge : padded;
  default:
    return charge;
  }
}

/* Kept values, row broadcasts and relayouts live over their lines; the others at their own. */
static bool spans(const kernel_modelled *m) {
  return m->kind != VALUE_MXU_LHS && m->kind != VALUE_MXU_RHS && m->kind != VALUE_MXU_RHS32 &&
         m->kind != VALUE_WIDEN8 && m->kind != VALUE_BF16_F32 && m->kind != VALUE_TRANSPOSE &&
         m->kind != VALUE_TRANSPOSE8 && m->kind != VALUE_LANE_BCAST;
}

static bool live_at(const kernel_modelled *m, size_t line) {
  return spans(m) ? m->start <= line && line <= m->end : m->start == line;
}

/* A charge as two 32-bit halves summed apart, so that adding and removing
 * values over a sweep stays exact; total() saturates as ck_add would. */
typedef struct live_sum {
  uint64_t hi, lo;
} live_sum;

static void live_add(live_sum *s, uint64_t v, bool remove) {
  if (remove)
    s->hi -= v >> 32, s->lo -= v & 0xffffffffu;
  else
    s->hi += v >> 32, s->lo += v & 0xffffffffu;
}

static uint64_t live_total(const live_sum *s) {
  uint64_t hi = s->hi + (s->lo >> 32);
  return hi >> 32 ? UINT64_MAX : hi << 32 | (s->lo & 0xffffffffu);
}

typedef struct peak_event {
  size_t line, value;
  bool remove; /* the value stops being live at line */
} peak_event;

static int by_line(const void *a, const void *b) {
  const peak_event *x = a, *y = b;
  return x->line < y->line ? -1 : x->line > y->line;
}

/* What is live at `line`: the sum after the last of the sorted events at or
 * before it (lines[i], totals[i] for each distinct event line). */
static uint64_t live_at_line(const size_t *lines, const uint64_t *totals, size_t n, size_t line) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (lines[mid] <= line)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo ? totals[lo - 1] : 0;
}

/* The alike kept values (the copies of one value that a Python loop
 * unrolls, one per head) charged as held all at once: the group with the
 * most, its number in *group; the ceiling's (the estimate takes the
 * unrolled copies' live values instead, scoped_unrolled_estimate). `sums`
 * is room for k->nmodelled sums. */
static uint64_t alike_peak(const vmem_kernel *k, const uint64_t *charge, uint64_t *sums, size_t *group) {
  uint64_t best = 0;
  memset(sums, 0, k->nmodelled * sizeof *sums);
  for (size_t j = 0; j < k->nmodelled; j++) {
    size_t g = k->modelled[j].group;
    if (g && g <= k->nmodelled && !ck_add(sums[g - 1], charge[j], &sums[g - 1]))
      sums[g - 1] = UINT64_MAX;
    if (g && g <= k->nmodelled && sums[g - 1] > best)
      best = sums[g - 1], *group = g;
  }
  return best;
}

/* One sweep over the values' start and end lines (kept values live over
 * their lines, the others at their own line), then the first value, in
 * order, whose start line has the most live. O(n log n): a body of
 * thousands of values is swept, not compared pairwise. */
bool scoped_body_peak(const vmem_kernel *k, const uint64_t *charge, bool groups, size_t *members, size_t cap,
                      size_t *count) {
  size_t n = k->nmodelled, ne = 0, nl = 0;
  *count = 0;
  if (!n)
    return true;
  peak_event *ev = vmem__alloc(&k->a.alloc, 2 * n * sizeof *ev);
  size_t *lines = vmem__alloc(&k->a.alloc, 2 * n * sizeof *lines);
  uint64_t *totals = vmem__alloc(&k->a.alloc, 2 * n * sizeof *totals);
  bool ok = ev && lines && totals;
  for (size_t j = 0; ok && j < n; j++)
    if (charge[j]) {
      const kernel_modelled *m = &k->modelled[j];
      ev[ne++] = (peak_event){m->start, j, false};
      ev[ne++] = (peak_event){(spans(m) ? m->end : m->start) + 1, j, true};
    }
  if (ok)
    qsort(ev, ne, sizeof *ev, by_line);
  live_sum live = {0, 0};
  for (size_t e = 0; ok && e < ne; e++) {
    live_add(&live, charge[ev[e].value], ev[e].remove);
    if (e + 1 == ne || ev[e + 1].line != ev[e].line)
      lines[nl] = ev[e].line, totals[nl++] = live_total(&live);
  }
  size_t peak_line = 0;
  uint64_t peak = 0;
  for (size_t m = 0; ok && m < n; m++) { /* the most is reached where some value starts */
    uint64_t at = live_at_line(lines, totals, nl, k->modelled[m].start);
    if (at > peak)
      peak = at, peak_line = k->modelled[m].start;
  }
  size_t group = 0;
  uint64_t held = ok && groups ? alike_peak(k, charge, totals, &group) : 0;
  for (size_t j = 0; ok && peak && j < n && *count < cap; j++)
    if (charge[j] && (held > peak ? k->modelled[j].group == group : live_at(&k->modelled[j], peak_line)))
      members[(*count)++] = j;
  vmem__free(&k->a.alloc, ev);
  vmem__free(&k->a.alloc, lines);
  vmem__free(&k->a.alloc, totals);
  return ok;
}

/* The sum of the values scoped_body_peak picks for a charge: the most
 * held at once; UINT64_MAX when out of memory (then over any limit). */
uint64_t scoped_peak_of(const vmem_kernel *k, const uint64_t *charge, size_t *members) {
  size_t n;
  uint64_t sum = 0;
  if (!scoped_body_peak(k, charge, true, members, k->nmodelled, &n))
    return UINT64_MAX;
  for (size_t i = 0; i < n; i++)
    if (!ck_add(sum, charge[members[i]], &sum))
      return UINT64_MAX;
  return sum;
}

/* An unrolled body's copies (n kept values alike, n >= 2), as the estimate
 * charges them: 3/8 of each copy's live values (its computed values live at
 * once, VALUE_LIVE), all copies at once, less the register file. The
 * compiler interleaves the copies and holds part of each: over the 98
 * records of bodies with alike copies (oracle heads_*, ops_ragged_*,
 * ops_paged_*, ops_flash_*, and the held-out held_heads_*, held_ragged_*)
 * its charge runs 0.03-0.86 of n x the live bytes. 3/8 less the register
 * file fits the 63 records made before the held-out ones best (a median
 * error of 280 KiB, where the sum of the alike values less the register
 * file gave 804 KiB), and on the 35 held out it gives 363 KiB (880 KiB
 * before; docs/fidelity.md, "The body model"). The register file keeps
 * paged attention's small copies (138 KiB live at 16 pages a block), which
 * the compiler charges nothing. */
uint64_t scoped_unrolled_estimate(size_t copies, uint64_t live, const vmem_target *t) {
  uint64_t all, file = vreg_file_bytes(t);
  if (copies < 2)
    return 0;
  if (!ck_mul(live, copies, &all))
    return UINT64_MAX;
  all = all / 8 * 3;
  return all > file ? all - file : 0;
}

enum { SPILL_MARGIN = 16384 }; /* four vregs (scoped_ceiling_total) */

/* The ceiling of the body's values (above): the peak of the values'
 * ceilings, or an unrolled body's copies at their live bytes, whichever is
 * more; on v2 and v3, for a body where some rule records a value, the live
 * bytes beside that peak (an f32 elementwise body there streams: rows_f32 is
 * exact on both); never under the estimate. */
uint64_t scoped_ceiling_total(const kernel_body_facts *bf, const vmem_target *t, uint64_t peak_high, uint64_t live,
                              uint64_t estimate) {
  return scoped_ceiling_of(bf, t, peak_high, live, estimate, true);
}

uint64_t scoped_ceiling_of(const kernel_body_facts *bf, const vmem_target *t, uint64_t peak_high, uint64_t live,
                           uint64_t estimate, bool floor) {
  uint64_t c = peak_high, unrolled = 0;
  if (bf->copies > 1 && !ck_mul(live, bf->copies, &unrolled))
    unrolled = UINT64_MAX;
  c = unrolled > c ? unrolled : c;
  /* A body with a value that cannot stream (facts.holds: read twice, or
   * needing or made by a whole op) may hold every computed value live at
   * once, whole: generated kernels showed the compiler holding what no rule
   * names (oracle/gen, the fitting split: the rules' own ceilings held
   * 92.6% of the figures, with this floor 99.5%). A chain of single reads
   * streams, as the records of elementwise kernels show: no floor. */
  c = floor && bf->holds && live > c ? live : c;
  if (vmem_target_u64(t, VMEM_FACT_BF16_IN_F32) && bf->rules && !ck_add(c, live, &c))
    c = UINT64_MAX;
  /* A body that reduces a vector spills a few vregs no rule sees: the held-out
   * RMS norm, whose windows filled the limit exactly, was refused for 4 KiB
   * (v6e) and 16 KiB (7x) more. The ceiling keeps that much above the
   * estimate; sized on those two records, it is a margin, not a rule. */
  uint64_t margin = estimate > UINT64_MAX - SPILL_MARGIN ? UINT64_MAX : estimate + SPILL_MARGIN;
  if (bf->reduces && c < margin)
    c = margin;
  return c > estimate ? c : estimate;
}
