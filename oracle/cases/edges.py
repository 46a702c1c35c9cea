"""Kernels compiled at the edge of the scoped limit, on one target each.

A case here is another module's case compiled with the global scoped limit
(--xla_tpu_scoped_vmem_limit_kib) set to the figure the compiler charges it
on that target, where it must compile (`_at`), and 4 KiB under it, where it
must fail with E1001 (`_under`). vmemscope's verdict on the pair says on
which side of the limit its own figure falls: both right when it is exact or
its error is under 4 KiB; where the body model is over, it calls the `_at`
case over; where it is under, it calls the `_under` case fitting. The
defaults are far from most figures, so these are the records that test the
verdicts where they matter.

Each figure is the compiler's for that case and target with libtpu 0.0.42.1
(its record under tests/oracle/records/). A later libtpu may charge another
figure; the pair then tests the verdict at two arbitrary limits, which is
still a test, and compare.py's note says the edge moved.
"""
from cases import jaxops, own

# (target, case, the compiler's figure in bytes): an exact kernel, and
# kernels the body model puts over and under the compiler on each target;
# last, kernels the later body rules make exact, on the targets they fit.
EDGES = (
    ("v5e", "rows_f32_8192x1024_bm512", 8388608),
    ("v5e", "one_row_matmul_f32_g2_d128", 73728),
    ("v5e", "ops_paged_bf16_b8_h32_kv8_p16_ppcb16", 307200),
    ("v5e", "matmul_acc_bf16_4096_512x512x512", 4550656),
    ("v5e", "fixed_weight_bf16_8192x1024x1024_bm512", 7708672),
    ("v5e", "transpose_bf16_4096x4096_1024x1024", 8503296),
    ("v5e", "heads_bf16_h4_q256_k256", 2097152),
    ("v5e", "ops_flash_bf16_1x2x4096x128_q512_km512_k512", 2895872),
    ("v5e", "ops_gmm_bf16_8192x4096x4096_g8_256x512x256", 1978368),
    ("v5e", "ops_ragged_bf16_t1024_h32_p4096x16_kv8_q32", 4907008),
    ("v6e", "rows_f32_8192x1024_bm512", 8388608),
    ("v6e", "ops_paged_bf16_b8_h32_kv8_p16_ppcb16", 270336),
    ("v6e", "heads_bf16_h1_q256_k256", 446464),
    ("v6e", "matmul_acc_bf16_4096_512x1024x1024", 11894784),
    ("v6e", "fixed_weight_f32_4096x512x2048_bm256", 9699328),
    ("v6e", "ops_flash_bf16_1x2x4096x128_q512_km512_k512", 2826240),
    # the transpose and kept-value rules of 2026-12-05, held at the limit
    ("v6e", "transpose_bf16_2048x4096_256x2048", 4513792),
    ("v5p", "transpose_bf16_2048x3072_512x768", 3194880),
    ("v4", "transpose_i8_4096x4096_1024x1024", 6250496),
    ("7x", "heads_bf16_h1_q256_k256", 184320),
    # held-out kernels (own.py, jaxops.py held_*) at the edge, recorded after the body model's ceiling: where
    # the estimate is under the compiler (unrolled heads, f32 and small-K matmul staging) or over it
    ("v5e", "held_ragged_bf16_t1024_h32_p4096x16_kv16_q32", 7307264),
    ("7x", "held_ragged_bf16_t1024_h32_p4096x16_kv4_q16", 2473984),
    ("v6e", "held_weight_f32_8192x1024x512_bm1024", 15532032),
    ("v6e", "held_matmul_f32_2048_128x1024x512", 6094848),
    ("v4", "held_matmul_bf16_4096_1024x256x1024", 10985472),
    ("v5p", "held_heads_bf16_h3_q384_k384", 3026944),
    # the third held-out round at the edge, recorded after the shared-value rule
    ("v4", "held_swiglu_bf16_e2_m512_f512", 4464640),
    ("v6e", "held_swiglu_bf16_e2_m512_f512", 4956160),
    ("7x", "held_softcap_bf16_h2_q512_k512", 2793472),
    ("v6e", "held_layernorm_bf16_8192x2048_bm256", 6242304),
)

UNDER = 4096  # the `_under` case's limit below the figure

CASES = {}  # name -> build, as in the other case modules
FLAGS = {}  # name -> the compiler options it is compiled with
TARGETS = {}  # name -> the targets it is recorded for

_BUILDS = {**own.CASES, **jaxops.CASES}

for _target, _case, _figure in EDGES:
    for _tag, _limit in (("at", _figure), ("under", _figure - UNDER)):
        _name = f"edge_{_target}_{_case}_{_tag}"
        CASES[_name] = _BUILDS[_case]
        FLAGS[_name] = {"xla_tpu_scoped_vmem_limit_kib": _limit // 1024}
        TARGETS[_name] = (_target,)
