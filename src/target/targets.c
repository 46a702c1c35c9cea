/*
 * targets.c — the embedded table of TPU generations.
 *
 * Every value carries its source and whether it is documented, observed in
 * compiler output, or derived. Where public sources disagree, the choice is
 * made here, once, and the `note` names the value rejected and why; the
 * table in docs/targets.md is generated from this file by `vmemscope
 * targets`. Values are per TensorCore for memories and per chip for HBM,
 * bandwidth and FLOP/s.
 */
#include <string.h>

#include "../base/base.h"

#define KiB 1024.0
#define MiB (1024.0 * 1024.0)
#define GiB (1024.0 * 1024.0 * 1024.0)

/* Sources, named once. */
#define JAXTI "jax/_src/tpu_info.py (jax-ml/jax @ cec06d1)"
#define XLAPI "xla/benchmarks/core/platform_info.py (openxla/xla @ acb91cb)"
#define FLAGS "openxla/xla docs/flags_guidance.md: xla_tpu_scoped_vmem_limit_kib=16384"
#define GCP(page) "cloud.google.com/tpu/docs/" page
#define SB "jax-ml/scaling-book tpus.md"

#define DOC VMEM_PROV_DOCUMENTED
#define OBS VMEM_PROV_OBSERVED
#define DER VMEM_PROV_DERIVED

#define F(id, v, prov, src, note) [VMEM_FACT_##id] = {(v), (prov), (src), (note)}

/* Facts every generation from v4 on shares. */
#define SMEM_1MIB F(SMEM_BYTES, 1 * MiB, DOC, JAXTI, NULL)
#define VREG_8x128 \
  F(VREG_SUBLANES, 8, DOC, JAXTI " NUM_SUBLANES", NULL), F(VREG_LANES, 128, DOC, JAXTI " NUM_LANES", NULL)
/* Whether XLA copies kernel inputs into VMEM before the kernel, and the VMEM
 * it leaves free (tests/oracle records and probes, docs/fidelity.md "7x"). */
#define ORACLE "libtpu 0.0.42.1, tests/oracle records (docs/fidelity.md)"
#define KEEPS_WINDOWS F(PREFETCHES_INPUTS, 0, OBS, ORACLE ": no input is copied to S(1) before a kernel", NULL)
#define SCOPED_UNDER F(SCOPED_IN_HEAP, 0, OBS, ORACLE " (S(1) rows): the VMEM allocation holds the values alone", NULL)
#define SCRATCH_72K F(INTERNAL_SCRATCH_BYTES, 72 * KiB, DOC, XLAPI " default_internal_scratch_bytes", NULL)

/* ## The compiler's behaviour the model keys on (src/shape/tiling.c,
 * src/scoped/body_model.c), one block per generation. Each was measured on
 * libtpu 0.0.42.1 (probes and the oracle's records, docs/fidelity.md) or
 * read from Mosaic and JAX; 8i and 8t have no record and take 7x's,
 * derived. */
#define MOSAIC_TILING "Mosaic getTilingFactor; docs/layouts.md"
#define LARGE16 "jax tpu_info get_sublane_tiling: large x16 tiling from TPU7x"
#define SCRATCH16 "Mosaic infer_memref_layout.cc: a kernel's own 16-bit buffers, large tiling from v6"
#define BODY "libtpu 0.0.42.1 probes and records, docs/fidelity.md \"The body model\""
#define AS_7X "as 7x: no compiler output of this generation seen yet"
#define TILING_OLD                                                                    \
  F(TILE_MIN_TWO_PACKS, 1, DOC, MOSAIC_TILING " (min rows doubled before v4)", NULL), \
      F(LARGE_TILING_NARROW, 0, DOC, LARGE16, NULL), F(LARGE_TILING_SCRATCH16, 0, DOC, SCRATCH16, NULL)
#define TILING_V4V5                                                                                  \
  F(TILE_MIN_TWO_PACKS, 0, DOC, MOSAIC_TILING, NULL), F(LARGE_TILING_NARROW, 0, DOC, LARGE16, NULL), \
      F(LARGE_TILING_SCRATCH16, 0, DOC, SCRATCH16, NULL)
#define TILING_V6E                                                                                   \
  F(TILE_MIN_TWO_PACKS, 0, DOC, MOSAIC_TILING, NULL), F(LARGE_TILING_NARROW, 0, DOC, LARGE16, NULL), \
      F(LARGE_TILING_SCRATCH16, 1, DOC, SCRATCH16, NULL)
#define TILING_7X                                                                                    \
  F(TILE_MIN_TWO_PACKS, 0, DOC, MOSAIC_TILING, NULL), F(LARGE_TILING_NARROW, 1, DOC, LARGE16, NULL), \
      F(LARGE_TILING_SCRATCH16, 1, DOC, SCRATCH16, NULL)
#define TILING_8                                                                                                    \
  F(TILE_MIN_TWO_PACKS, 0, DOC, MOSAIC_TILING, NULL), F(LARGE_TILING_NARROW, 1, DOC, LARGE16 " (and later)", NULL), \
      F(LARGE_TILING_SCRATCH16, 1, DOC, SCRATCH16, NULL)
/* The body model's generation-dependent charges, in the order: bf16 in f32,
 * row broadcast tile, lane broadcast copy, 16-bit transpose kept, 8-bit
 * transpose widening and what it spares, one-row relayouts (ops, row
 * broadcasts), a kept value's spared bytes. */
#define BODY_FACTS(prov, src, f32, rowb, laneb, t16, t8w, t8s, rel, relb, kept)                        \
  F(BF16_IN_F32, f32, prov, src, NULL), F(ROW_BROADCAST_TILE, rowb, prov, src, NULL),                  \
      F(LANE_BROADCAST_COPY, laneb, prov, src, NULL), F(TRANSPOSE16_KEPT_BYTES, t16, prov, src, NULL), \
      F(TRANSPOSE8_WIDEN, t8w, prov, src, NULL), F(TRANSPOSE8_SPARED_BYTES, t8s, prov, src, NULL),     \
      F(RELAYOUT_ROW_TILES, rel, prov, src, NULL), F(RELAYOUT_ROW_BROADCAST, relb, prov, src, NULL),   \
      F(KEPT_SPARED_BYTES, kept, prov, src, NULL)
#define BODY_V2V3 BODY_FACTS(OBS, BODY, 1, 1, 1, 0, 4, 52 * KiB, 1, 1, 0)
#define BODY_V4 BODY_FACTS(OBS, BODY, 0, 1, 1, 40 * KiB, 2, 40 * KiB, 1, 1, 0)
#define BODY_V5 BODY_FACTS(OBS, BODY, 0, 0, 0, 144 * KiB, 0, 0, 1, 0, 0)
#define BODY_V6E_7X BODY_FACTS(OBS, BODY, 0, 0, 0, 200 * KiB, 0, 0, 0, 0, 204 * KiB)
#define BODY_8 BODY_FACTS(DER, AS_7X, 0, 0, 0, 200 * KiB, 0, 0, 0, 0, 204 * KiB)

/* v2-v4 have 16 MiB of VMEM per jax tpu_info, the same as the flags guide's
 * generic default, while the guide's own range for the flag ends 1 MiB
 * below physical VMEM. No public source gives these chips' real default. */
#define OLD_CHIP_SCOPED_NOTE                                                \
  "the generic default equals this chip's physical VMEM; no public source " \
  "gives a smaller per-op share, so treat it as an upper bound"

struct vmem_target {
  arena *owner; /* vmem_target_new's: the arena that holds it; NULL for the table's */
  const char *name;
  const char *aliases;     /* comma-separated, compared normalised */
  const char *device_kind; /* jax.Device.device_kind */
  /* The libtpu topology compiled for (src/compiler/, oracle/record.py): the
   * generation's smallest slice, one chip's name in libtpu's spelling. NULL
   * where no pinned libtpu offers one. */
  const char *topology;
  int generation;
  vmem_fact facts[VMEM_FACT_COUNT];
};

/* One generation's facts per block, one fact per line. */
/* clang-format off */
static const vmem_target targets[] = {
    {NULL, "v2", "v2,tpuv2", "TPU v2", "v2:2x2", 2, {
        F(VMEM_BYTES, 16 * MiB, DOC, JAXTI, NULL),
        F(SMEM_BYTES, 16 * KiB, DOC, JAXTI, NULL),
        F(SCOPED_DEFAULT_BYTES, 16 * MiB, DOC, FLAGS, OLD_CHIP_SCOPED_NOTE),
        F(HBM_BYTES, 16e9, DOC, JAXTI, NULL),
        F(HBM_BYTES_PER_S, 716e9, DOC, JAXTI, NULL),
        F(BF16_FLOPS, 46e12, DOC, JAXTI, NULL),
        F(MXU_DIM, 128, DOC, JAXTI, NULL),
        F(MXUS_PER_CORE, 1, DOC, JAXTI, NULL),
        F(CORES_PER_CHIP, 2, DOC, JAXTI, NULL),
        F(MEGACORE, 0, DOC, JAXTI, NULL),
        KEEPS_WINDOWS,
        SCOPED_UNDER,
        VREG_8x128,
        TILING_OLD,
        BODY_V2V3}},
    {NULL, "v3", "v3,tpuv3", "TPU v3", "v3:2x2", 3, {
        F(VMEM_BYTES, 16 * MiB, DOC, JAXTI,
          "rejected: 32 MiB from third-party slides (unreliable)"),
        F(SMEM_BYTES, 16 * KiB, DOC, JAXTI, NULL),
        F(SCOPED_DEFAULT_BYTES, 16 * MiB, DOC, FLAGS, OLD_CHIP_SCOPED_NOTE),
        F(HBM_BYTES, 32 * GiB, DOC, GCP("v3"), NULL),
        F(HBM_BYTES_PER_S, 900e9, DOC, GCP("v3"),
          "rejected: 8.25e11 from jax tpu_info (the vendor page and the scaling book agree on 9.0e11)"),
        F(BF16_FLOPS, 123e12, DOC, GCP("v3"),
          "rejected: 1.40e14 from jax tpu_info and the scaling book (the vendor page wins)"),
        F(MXU_DIM, 128, DOC, JAXTI, NULL),
        F(MXUS_PER_CORE, 2, DOC, GCP("v3"), NULL),
        F(CORES_PER_CHIP, 2, DOC, JAXTI, NULL),
        F(MEGACORE, 0, DOC, JAXTI, NULL),
        KEEPS_WINDOWS,
        SCOPED_UNDER,
        VREG_8x128,
        TILING_OLD,
        BODY_V2V3}},
    {NULL, "v4", "v4,tpuv4,v4p", "TPU v4", "v4:2x2x1", 4, {
        F(VMEM_BYTES, 16 * MiB, OBS, JAXTI "; OOM reports print 'of 16.00M vmem' on v4",
          "rejected: 32 MiB from third-party slides (unreliable)"),
        SMEM_1MIB,
        F(SCOPED_DEFAULT_BYTES, 16 * MiB, DOC, FLAGS, OLD_CHIP_SCOPED_NOTE),
        F(HBM_BYTES, 32 * GiB, DOC, GCP("v4"), NULL),
        F(HBM_BYTES_PER_S, 1200e9, DOC, GCP("v4"), NULL),
        F(BF16_FLOPS, 275e12, DOC, GCP("v4") "; " JAXTI "; " SB, NULL),
        F(MXU_DIM, 128, DOC, JAXTI, NULL),
        F(MXUS_PER_CORE, 4, DOC, GCP("v4"), NULL),
        F(CORES_PER_CHIP, 2, DOC, JAXTI, NULL),
        F(MEGACORE, 1, DOC, JAXTI, NULL),
        KEEPS_WINDOWS,
        SCOPED_UNDER,
        VREG_8x128,
        TILING_V4V5,
        BODY_V4}},
    {NULL, "v5e", "v5e,v5litepod,v5lite,tpuv5e,tpuv5lite", "TPU v5 lite", "v5e:2x2", 5, {
        F(VMEM_BYTES, 128 * MiB, DOC, JAXTI,
          "rejected: 64 MiB from the MaxText tuning guide (contradicts jax tpu_info)"),
        F(SMEM_BYTES, 1 * MiB, OBS, JAXTI "; vllm#8318 'Used 1.00M of 1.00M smem'", NULL),
        F(SCOPED_DEFAULT_BYTES, 16 * MiB, OBS, "E1001 reports on v5e/v5p print 'limit 16.00M'",
          "rejected: 32 MiB from xla platform_info.py (not what the compiler prints)"),
        SCRATCH_72K,
        F(HBM_BYTES, 16 * GiB, DOC, GCP("v5e") " 16 GB; " JAXTI " 17.2e9", NULL),
        F(HBM_BYTES_PER_S, 819e9, DOC, GCP("v5e"),
          "rejected: 8.20e11 (jax tpu_info) and 8.1e11 (scaling book), rounder figures"),
        F(BF16_FLOPS, 197e12, DOC, GCP("v5e") "; " JAXTI "; " SB, NULL),
        F(INT8_OPS, 394e12, DOC, GCP("v5e"), "the vendor pages say 393 and 394 TOPs"),
        F(MXU_DIM, 128, DOC, JAXTI, NULL),
        F(MXUS_PER_CORE, 4, DOC, GCP("v5e"), NULL),
        F(CORES_PER_CHIP, 1, DOC, JAXTI, NULL),
        F(MEGACORE, 0, DOC, JAXTI, NULL),
        KEEPS_WINDOWS,
        SCOPED_UNDER,
        VREG_8x128,
        TILING_V4V5,
        BODY_V5}},
    {NULL, "v5p", "v5p,tpuv5p,tpuv5", "TPU v5", "v5p:2x2x1", 5, {
        F(VMEM_BYTES, 64 * MiB, DOC, JAXTI, NULL),
        SMEM_1MIB,
        F(SCOPED_DEFAULT_BYTES, 16 * MiB, OBS, "marin v5p log: 'v5p's default scoped limit at 16 MiB'",
          "rejected: 32 MiB from xla platform_info.py (not what the compiler prints)"),
        SCRATCH_72K,
        F(HBM_BYTES, 95 * GiB, DOC, GCP("tpu7x") " table: 95 GiB",
          "rejected: 103e9 (jax tpu_info) and 96 GB (scaling book)"),
        F(HBM_BYTES_PER_S, 2765e9, DOC, GCP("v5p-training"),
          "rejected: 2.46e12 (jax tpu_info)"),
        F(BF16_FLOPS, 459e12, DOC, GCP("v5p-training") "; " JAXTI "; " SB, NULL),
        F(FP8_FLOPS, 459e12, DOC, GCP("tpu7x") " table", "no native fp8: same as bf16"),
        F(MXU_DIM, 128, DOC, JAXTI, NULL),
        F(MXUS_PER_CORE, 4, DOC, GCP("v5p-training"), NULL),
        F(CORES_PER_CHIP, 2, DOC, JAXTI, NULL),
        F(MEGACORE, 1, DOC, JAXTI, NULL),
        KEEPS_WINDOWS,
        SCOPED_UNDER,
        VREG_8x128,
        TILING_V4V5,
        BODY_V5}},
    {NULL, "v6e", "v6e,trillium,v6lite,tpuv6e,tpuv6lite,v6", "TPU v6 lite", "v6e:2x2", 6, {
        F(VMEM_BYTES, 128 * MiB, DOC, JAXTI "; MaxText tuning guide '128M for v6e'", NULL),
        SMEM_1MIB,
        F(SCOPED_DEFAULT_BYTES, 32 * MiB, OBS, "E1001 reports on v6e print 'limit 32.00M'", NULL),
        SCRATCH_72K,
        F(HBM_BYTES, 32 * GiB, DOC, GCP("v6e") " 32 GB; " JAXTI " 34.4e9", NULL),
        F(HBM_BYTES_PER_S, 1638e9, DOC, GCP("v6e"), "rejected: 1.64e12 / 1.6e12, rounder figures"),
        F(BF16_FLOPS, 918e12, DOC, GCP("v6e"), "rejected: 9.20e14 (jax tpu_info, scaling book)"),
        F(FP8_FLOPS, 918e12, DOC, GCP("tpu7x") " table", NULL),
        F(MXU_DIM, 256, DOC, GCP("v6e") "; " JAXTI, NULL),
        F(MXUS_PER_CORE, 2, DOC, GCP("v6e"), NULL),
        F(CORES_PER_CHIP, 1, DOC, JAXTI, NULL),
        F(MEGACORE, 0, DOC, JAXTI, NULL),
        KEEPS_WINDOWS,
        SCOPED_UNDER,
        VREG_8x128,
        TILING_V6E,
        BODY_V6E_7X}},
    {NULL, "7x", "7x,v7x,tpu7x,ironwood,tpu7,v7", "TPU7x", "tpu7x:2x2x1", 7, {
        F(VMEM_BYTES, 64 * MiB, DOC, JAXTI "; OOM reports print 'of 64.00M vmem'",
          "rejected: 128 MiB claimed in jax#38988 (a request that compiled is no capacity)"),
        SMEM_1MIB,
        F(SCOPED_DEFAULT_BYTES, 32 * MiB, OBS, "compiler logs 2025-2026 print 'limit 32.00M' on v6e/7x", NULL),
        SCRATCH_72K,
        F(HBM_BYTES, 192 * GiB, DOC, GCP("tpu7x"), "rejected: 206e9 (jax tpu_info)"),
        F(HBM_BYTES_PER_S, 7.40e12, DOC, JAXTI, NULL),
        F(BF16_FLOPS, 2307e12, DOC, GCP("tpu7x"), "rejected: 2.31e15 (jax tpu_info), rounder"),
        F(FP8_FLOPS, 4614e12, DOC, GCP("tpu7x"), "rejected: 4.60e15 (jax tpu_info), rounder"),
        F(MXU_DIM, 256, DOC, JAXTI, NULL),
        F(MXUS_PER_CORE, 2, DOC, JAXTI, NULL),
        F(CORES_PER_CHIP, 2, DOC, GCP("tpu7x"), NULL),
        F(MEGACORE, 0, DOC, JAXTI " (each TensorCore is its own device)", NULL),
        F(PREFETCHES_INPUTS, 1, OBS, ORACLE ": copy-start to S(1) before the kernel", NULL),
        F(SCOPED_IN_HEAP, 1, OBS,
          ORACLE " (S(1) rows): the VMEM allocation packs each instruction's requested scoped VMEM beside the values",
          NULL),
        F(PREFETCH_RESERVE_BYTES, 10 * MiB, OBS,
          ORACLE ": with limits of 16, 32, 40 and 48 MiB, inputs of 38, 22, 14 and 6 MiB are prefetched, "
                 "40, 23, 16 and 10 MiB are not",
          NULL),
        VREG_8x128,
        TILING_7X,
        BODY_V6E_7X}},
    {NULL, "8i", "8i,v8i,tpu8i", "TPU8i", NULL, 8, {
        F(VMEM_BYTES, 192 * MiB, DOC, JAXTI, NULL),
        SMEM_1MIB,
        F(SCOPED_DEFAULT_BYTES, 96 * MiB, DOC, XLAPI " default_vmem_limit_kib", "no compiler output seen yet"),
        SCRATCH_72K,
        F(HBM_BYTES, 309e9, DOC, JAXTI, NULL),
        F(HBM_BYTES_PER_S, 8.60e12, DOC, JAXTI, NULL),
        F(BF16_FLOPS, 1.101e15, DOC, JAXTI, NULL),
        F(FP8_FLOPS, 8.808e15, DOC, JAXTI, NULL),
        F(MXU_DIM, 256, DOC, JAXTI, NULL),
        F(MXUS_PER_CORE, 2, DOC, JAXTI, NULL),
        F(CORES_PER_CHIP, 2, DOC, JAXTI, NULL),
        F(MEGACORE, 0, DOC, JAXTI, NULL),
        VREG_8x128,
        TILING_8,
        BODY_8}},
    {NULL, "8t", "8t,v8t,tpu8t", "TPU8t", NULL, 8, {
        F(VMEM_BYTES, 128 * MiB, DOC, JAXTI, NULL),
        SMEM_1MIB,
        F(SCOPED_DEFAULT_BYTES, 32 * MiB, DOC, XLAPI " default_vmem_limit_kib", "no compiler output seen yet"),
        F(INTERNAL_SCRATCH_BYTES, 272 * KiB, DOC, XLAPI " default_internal_scratch_bytes", NULL),
        F(HBM_BYTES, 231e9, DOC, JAXTI, NULL),
        F(HBM_BYTES_PER_S, 6.4e12, DOC, JAXTI, NULL),
        F(BF16_FLOPS, 0.9961e15, DOC, JAXTI, NULL),
        F(FP8_FLOPS, 5.9769e15, DOC, JAXTI, NULL),
        F(MXU_DIM, 256, DOC, JAXTI, NULL),
        F(MXUS_PER_CORE, 2, DOC, JAXTI, NULL),
        F(CORES_PER_CHIP, 1, DOC, JAXTI, NULL),
        F(MEGACORE, 0, DOC, JAXTI, NULL),
        F(VREG_SUBLANES, 16, DOC, JAXTI " (8t: num_sublanes=16)", NULL),
        F(VREG_LANES, 128, DOC, JAXTI, NULL),
        TILING_8,
        BODY_8}},
};
/* clang-format on */

enum { NTARGETS = sizeof targets / sizeof *targets };

static const struct {
  const char *name, *unit;
} fact_info[VMEM_FACT_COUNT] = {
    [VMEM_FACT_VMEM_BYTES] = {"vmem_bytes", "bytes"},
    [VMEM_FACT_SMEM_BYTES] = {"smem_bytes", "bytes"},
    [VMEM_FACT_SCOPED_DEFAULT_BYTES] = {"scoped_vmem_default_bytes", "bytes"},
    [VMEM_FACT_INTERNAL_SCRATCH_BYTES] = {"internal_scratch_bytes", "bytes"},
    [VMEM_FACT_HBM_BYTES] = {"hbm_bytes", "bytes"},
    [VMEM_FACT_HBM_BYTES_PER_S] = {"hbm_bytes_per_second", "bytes/s"},
    [VMEM_FACT_BF16_FLOPS] = {"bf16_flops", "flop/s"},
    [VMEM_FACT_INT8_OPS] = {"int8_ops", "op/s"},
    [VMEM_FACT_FP8_FLOPS] = {"fp8_flops", "flop/s"},
    [VMEM_FACT_MXU_DIM] = {"mxu_dim", "count"},
    [VMEM_FACT_MXUS_PER_CORE] = {"mxus_per_core", "count"},
    [VMEM_FACT_CORES_PER_CHIP] = {"cores_per_chip", "count"},
    [VMEM_FACT_MEGACORE] = {"megacore", "bool"},
    [VMEM_FACT_VREG_SUBLANES] = {"vreg_sublanes", "count"},
    [VMEM_FACT_VREG_LANES] = {"vreg_lanes", "count"},
    [VMEM_FACT_PREFETCHES_INPUTS] = {"prefetches_inputs", "bool"},
    [VMEM_FACT_PREFETCH_RESERVE_BYTES] = {"prefetch_reserve_bytes", "bytes"},
    [VMEM_FACT_SCOPED_IN_HEAP] = {"scoped_in_heap", "bool"},
    [VMEM_FACT_TILE_MIN_TWO_PACKS] = {"tile_min_two_packs", "bool"},
    [VMEM_FACT_LARGE_TILING_NARROW] = {"large_tiling_narrow", "bool"},
    [VMEM_FACT_LARGE_TILING_SCRATCH16] = {"large_tiling_scratch16", "bool"},
    [VMEM_FACT_BF16_IN_F32] = {"bf16_in_f32", "bool"},
    [VMEM_FACT_ROW_BROADCAST_TILE] = {"row_broadcast_tile", "bool"},
    [VMEM_FACT_LANE_BROADCAST_COPY] = {"lane_broadcast_copy", "bool"},
    [VMEM_FACT_TRANSPOSE16_KEPT_BYTES] = {"transpose16_kept_bytes", "bytes"},
    [VMEM_FACT_TRANSPOSE8_WIDEN] = {"transpose8_widen", "count"},
    [VMEM_FACT_TRANSPOSE8_SPARED_BYTES] = {"transpose8_spared_bytes", "bytes"},
    [VMEM_FACT_RELAYOUT_ROW_TILES] = {"relayout_row_tiles", "bool"},
    [VMEM_FACT_RELAYOUT_ROW_BROADCAST] = {"relayout_row_broadcast", "bool"},
    [VMEM_FACT_KEPT_SPARED_BYTES] = {"kept_spared_bytes", "bytes"},
};

size_t vmem_target_count(void) { return NTARGETS; }

const vmem_target *vmem_target_at(size_t i) { return i < NTARGETS ? &targets[i] : NULL; }

/* Names compare case-insensitively, ignoring ' ', '-' and '_', so that
 * "TPU v5 lite", "tpu-v5-lite" and "v5lite" all match. */
static size_t normalise(const char *s, size_t len, char *out, size_t cap) {
  size_t n = 0;
  for (size_t i = 0; i < len && n + 1 < cap; i++)
    if (s[i] != ' ' && s[i] != '-' && s[i] != '_')
      out[n++] = (char)ch_lower((unsigned char)s[i]);
  out[n] = '\0';
  return n;
}

static bool alias_matches(const vmem_target *t, const char *key, size_t n) {
  char dk[32];
  size_t dn = normalise(t->device_kind, strlen(t->device_kind), dk, sizeof dk);
  if (dn == n && memcmp(dk, key, n) == 0)
    return true;
  for (const char *a = t->aliases; *a;) {
    const char *end = strchr(a, ',');
    size_t alen = end ? (size_t)(end - a) : strlen(a);
    if (alen == n && memcmp(a, key, n) == 0)
      return true;
    a += alen + (end != NULL);
  }
  return false;
}

const vmem_target *vmem_target_find(const char *name, size_t len) {
  char key[64];
  if (!name || len == 0 || len >= sizeof key)
    return NULL;
  size_t n = normalise(name, len, key, sizeof key);
  for (size_t i = 0; i < NTARGETS; i++)
    if (alias_matches(&targets[i], key, n))
      return &targets[i];
  return NULL;
}

const char *vmem_target_name(const vmem_target *t) { return t ? t->name : NULL; }
const char *vmem_target_aliases(const vmem_target *t) { return t ? t->aliases : NULL; }
const char *vmem_target_device_kind(const vmem_target *t) { return t ? t->device_kind : NULL; }
int vmem_target_generation(const vmem_target *t) { return t ? t->generation : 0; }
const char *vmem_target_topology(const vmem_target *t) { return t ? t->topology : NULL; }

vmem_target *vmem_target_new(const char *name, const vmem_fact *facts, size_t nfacts, const vmem_allocator *alloc,
                             vmem_error *err) {
  if (!name || !*name || (!facts && nfacts))
    return err_set(err, VMEM_ERR_ARGUMENT, 0, "vmem_target_new: a name and its facts are needed"), NULL;
  if (nfacts > VMEM_FACT_COUNT)
    return err_set(err, VMEM_ERR_RANGE, 0, "vmem_target_new: %zu facts, at most %d", nfacts, VMEM_FACT_COUNT), NULL;
  arena a;
  arena_init(&a, alloc);
  arena *owner = arena_calloc(&a, 1, sizeof *owner);
  vmem_target *t = arena_calloc(&a, 1, sizeof *t);
  char *n = arena_strndup(&a, name, strlen(name));
  bool ok = owner && t && n;
  for (size_t i = 0; ok && i < nfacts; i++) {
    t->facts[i] = facts[i];
    if (facts[i].source && !(t->facts[i].source = arena_strndup(&a, facts[i].source, strlen(facts[i].source))))
      ok = false;
    if (facts[i].note && !(t->facts[i].note = arena_strndup(&a, facts[i].note, strlen(facts[i].note))))
      ok = false;
  }
  if (!ok) {
    arena_destroy(&a);
    return err_set(err, VMEM_ERR_NOMEM, 0, "out of memory"), NULL;
  }
  *owner = a;
  t->owner = owner;
  t->name = t->aliases = t->device_kind = n;
  err_clear(err);
  return t;
}

void vmem_target_free(vmem_target *t) {
  if (t && t->owner) {
    arena a = *t->owner;
    arena_destroy(&a);
  }
}

const vmem_fact *vmem_target_fact(const vmem_target *t, vmem_fact_id id) {
  if (!t || (unsigned)id >= VMEM_FACT_COUNT || !t->facts[id].source)
    return NULL;
  return &t->facts[id];
}

uint64_t vmem_target_u64(const vmem_target *t, vmem_fact_id id) {
  const vmem_fact *f = vmem_target_fact(t, id);
  return f ? (uint64_t)f->value : 0;
}

const char *vmem_fact_name(vmem_fact_id id) { return (unsigned)id < VMEM_FACT_COUNT ? fact_info[id].name : "invalid"; }

const char *vmem_fact_unit(vmem_fact_id id) { return (unsigned)id < VMEM_FACT_COUNT ? fact_info[id].unit : ""; }

const char *vmem_provenance_name(vmem_provenance p) {
  switch (p) {
  case VMEM_PROV_DOCUMENTED:
    return "documented";
  case VMEM_PROV_OBSERVED:
    return "observed";
  default:
    return "derived";
  }
}
