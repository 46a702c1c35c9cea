"""JAX's own Pallas TPU kernels (jax.experimental.pallas.ops.tpu) at several
block sizes, including settings that overflow the default scoped limit."""
import functools

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
