"""JAX's own Pallas TPU kernels (jax.experimental.pallas.ops.tpu) at several
block sizes, including settings that overflow the default scoped limit."""
import functools
import os

import jax
import jax.numpy as jnp
from jax.experimental.pallas.ops.tpu import matmul as mm
from jax.experimental.pallas.ops.tpu import flash_attention as fa

CASES = {}


def matmul(m, k, n, bl, br, bk, dtype):
    def fn(x, y):
        return mm.matmul(x, y, block_shape=(bl, br), block_k=bk)
    return fn, (jax.ShapeDtypeStruct((m, k), dtype), jax.ShapeDtypeStruct((k, n), dtype))


def flash(b, h, s, d, bq, bkm, bk, dtype, causal=False):
    sizes = fa.BlockSizes(block_q=bq, block_k_major=bkm, block_k=bk, block_b=1)

    def fn(q, k, v):
        return fa.flash_attention(q, k, v, causal=causal, block_sizes=sizes)
    sds = jax.ShapeDtypeStruct((b, h, s, d), dtype)
    return fn, (sds, sds, sds)


for (bl, br, bk) in ((256, 256, 256), (512, 512, 512), (1024, 1024, 512), (2048, 2048, 1024)):
    CASES[f"ops_matmul_bf16_4096_{bl}x{br}_k{bk}"] = functools.partial(
        matmul, 4096, 4096, 4096, bl, br, bk, jnp.bfloat16)
CASES["ops_matmul_f32_2048_512x512_k512"] = functools.partial(
    matmul, 2048, 2048, 2048, 512, 512, 512, jnp.float32)
for (bq, bkm, bk) in ((128, 128, 128), (512, 512, 512), (1024, 2048, 1024), (2048, 4096, 4096)):
    CASES[f"ops_flash_bf16_1x2x4096x128_q{bq}_km{bkm}_k{bk}"] = functools.partial(
        flash, 1, 2, 4096, 128, bq, bkm, bk, jnp.bfloat16)
CASES["ops_flash_bf16_causal_1x2x2048x128_q512_km512_k512"] = functools.partial(
    flash, 1, 2, 2048, 128, 512, 512, 512, jnp.bfloat16, causal=True)


from jax.experimental.pallas.ops.tpu.megablox import gmm as mb  # noqa: E402  (the function, which __init__ exports)
from jax.experimental.pallas.ops.tpu.paged_attention import paged_attention_kernel as pa  # noqa: E402


from jax.experimental.pallas.ops.tpu.megablox import common as mb_common  # noqa: E402


def gmm(m, k, n, groups, tiling, dtype):
    """Megablox grouped matmul: lhs [m, k] in groups against rhs [groups, k, n].
    It asks jax.devices() which TPU it runs on, which on a CPU host is the
    CPU: the recorder names the target's device kind instead."""
    kind = os.environ.get("VMEMSCOPE_ORACLE_DEVICE_KIND", "")
    mb_common.tpu_kind = lambda: kind
    mb_common.is_tpu = lambda: kind.startswith("TPU")

    def fn(lhs, rhs, sizes):
        return mb(lhs, rhs, sizes, tiling=tiling)
    return fn, (jax.ShapeDtypeStruct((m, k), dtype), jax.ShapeDtypeStruct((groups, k, n), dtype),
                jax.ShapeDtypeStruct((groups,), jnp.int32))


def paged(batch, q_heads, kv_heads, pages, page_size, per_seq, d, ppcb, dtype):
    """Paged grouped-query attention over pages_per_compute_block pages a step."""
    def fn(q, kp, vp, lengths, idx):
        return pa.paged_attention(q, kp, vp, lengths, idx, pages_per_compute_block=ppcb)
    return fn, (jax.ShapeDtypeStruct((batch, q_heads, d), dtype),
                jax.ShapeDtypeStruct((kv_heads, pages, page_size, d), dtype),
                jax.ShapeDtypeStruct((kv_heads, pages, page_size, d), dtype),
                jax.ShapeDtypeStruct((batch,), jnp.int32),
                jax.ShapeDtypeStruct((batch, per_seq), jnp.int32))


for t in ((128, 128, 128), (256, 512, 256), (512, 512, 512), (1024, 2048, 1024)):
    CASES["ops_gmm_bf16_8192x4096x4096_g8_" + "x".join(map(str, t))] = functools.partial(
        gmm, 8192, 4096, 4096, 8, t, jnp.bfloat16)
for ppcb in (4, 16, 64):
    CASES[f"ops_paged_bf16_b8_h32_kv8_p16_ppcb{ppcb}"] = functools.partial(
        paged, 8, 32, 8, 2048, 16, 128, 128, ppcb, jnp.bfloat16)


from jax.experimental.pallas.ops.tpu.splash_attention import splash_attention_kernel as sk  # noqa: E402
from jax.experimental.pallas.ops.tpu.splash_attention import splash_attention_mask as sm  # noqa: E402
from jax.experimental.pallas.ops.tpu.ragged_paged_attention import kernel as rpa  # noqa: E402


def splash(heads, seq, d, block, dtype):
    """Splash attention (causal, multi-head) with square blocks."""
    mask = sm.MultiHeadMask([sm.CausalMask((seq, seq)) for _ in range(heads)])
    sizes = sk.BlockSizes(block_q=block, block_kv=block, block_kv_compute=block)
    kernel = sk.make_splash_mha(mask, head_shards=1, q_seq_shards=1, block_sizes=sizes)

    def fn(q, k, v):
        return kernel(q, k, v)
    sds = jax.ShapeDtypeStruct((heads, seq, d), dtype)
    return fn, (sds, sds, sds)


def ragged(tokens, q_heads, pages, page_size, kv_heads2, d, seqs, per_seq, kv_per_block, q_per_block, dtype):
    """Ragged paged attention (mixed prefill and decode): kv_per_block pages and q_per_block queries a step."""
    def fn(q, kv, lens, idx, cu, n):
        return rpa.ragged_paged_attention(q, kv, lens, idx, cu, n, num_kv_pages_per_block=kv_per_block,
                                          num_queries_per_block=q_per_block)
    s = jax.ShapeDtypeStruct
    return fn, (s((tokens, q_heads, d), dtype), s((pages, page_size, kv_heads2, d), dtype), s((seqs,), jnp.int32),
                s((seqs, per_seq), jnp.int32), s((seqs + 1,), jnp.int32), s((1,), jnp.int32))


for block in (256, 512, 1024):
    CASES[f"ops_splash_bf16_h4_s2048_d128_b{block}"] = functools.partial(splash, 4, 2048, 128, block, jnp.bfloat16)
for kvb, qb in ((8, 32), (16, 64), (32, 128)):
    CASES[f"ops_ragged_bf16_t1024_h32_p4096x16_kv{kvb}_q{qb}"] = functools.partial(
        ragged, 1024, 32, 4096, 16, 16, 128, 16, 256, kvb, qb, jnp.bfloat16)
# Held out for the body model's ceiling (2026-12-06): ragged paged attention at
# kv-page and query blocks it was not fitted to, and flash attention with a
# whole kv block at another query block.
for kvb, qb in ((8, 64), (16, 32), (4, 16)):
    CASES[f"held_ragged_bf16_t1024_h32_p4096x16_kv{kvb}_q{qb}"] = functools.partial(
        ragged, 1024, 32, 4096, 16, 16, 128, 16, 256, kvb, qb, jnp.bfloat16)
CASES["held_flash_bf16_1x2x4096x128_q1024_km4096_k4096"] = functools.partial(
    flash, 1, 2, 4096, 128, 1024, 4096, 4096, jnp.bfloat16)
