"""Standard programs with no custom kernel, at sizes that stress scoped VMEM.

The compiler gives each fusion, dot, convolution, reduce, sort, gather and
scatter its own scoped share; the records keep the compiled HLO, whose
backend_configs carry used_scoped_memory_configs, to calibrate the
standard-op model (src/scoped/standard.c) against.
"""
import functools

import jax
import jax.numpy as jnp
from jax import lax

CASES = {}
F32, BF16 = jnp.float32, jnp.bfloat16


def _sds(shape, dtype):
    return jax.ShapeDtypeStruct(shape, dtype)


def dot(m, k, n, dtype):
    return (lambda a, b: jnp.dot(a, b, preferred_element_type=jnp.float32)), (_sds((m, k), dtype), _sds((k, n), dtype))


def dot_tanh_sum(m, k, n, dtype):
    return (lambda a, b: jnp.tanh(jnp.dot(a, b)).sum(axis=0)), (_sds((m, k), dtype), _sds((k, n), dtype))


def conv(b, h, w, cin, cout, kh, dtype):
    def fn(x, k):
        return lax.conv_general_dilated(x, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    return fn, (_sds((b, h, w, cin), dtype), _sds((kh, kh, cin, cout), dtype))


def reduce(shape, axis, op, dtype):
    fns = {"sum": jnp.sum, "max": jnp.max}
    return (lambda x: fns[op](x, axis=axis)), (_sds(shape, dtype),)


def softmax(shape, dtype):
    return (lambda x: jax.nn.softmax(x.astype(jnp.float32), axis=-1).astype(dtype)), (_sds(shape, dtype),)


def layernorm(shape, dtype):
    def fn(x):
        y = x.astype(jnp.float32)
        mu = y.mean(-1, keepdims=True)
        return ((y - mu) * lax.rsqrt(((y - mu) ** 2).mean(-1, keepdims=True) + 1e-6)).astype(dtype)
    return fn, (_sds(shape, dtype),)


def cumsum(shape, axis, dtype):
    return (lambda x: jnp.cumsum(x, axis=axis)), (_sds(shape, dtype),)


def sort(shape, dtype):
    return (lambda x: jnp.sort(x, axis=-1)), (_sds(shape, dtype),)


def gather(rows, cols, n, dtype):
    return (lambda t, i: jnp.take(t, i, axis=0)), (_sds((rows, cols), dtype), _sds((n,), jnp.int32))


def scatter_add(rows, cols, n, dtype):
    return (lambda t, i, u: t.at[i].add(u)), (_sds((rows, cols), dtype), _sds((n,), jnp.int32), _sds((n, cols), dtype))


def maxpool(b, h, w, c, dtype):
    def fn(x):
        return lax.reduce_window(x, -jnp.inf, lax.max, (1, 3, 3, 1), (1, 2, 2, 1), "SAME")
    return fn, (_sds((b, h, w, c), dtype),)


def transpose(m, n, dtype):
    return (lambda x: x.T * 2), (_sds((m, n), dtype),)


def _add(name, build):
    CASES["std_" + name] = build


for s in (1024, 4096, 8192):
    _add(f"dot_bf16_{s}", functools.partial(dot, s, s, s, BF16))
_add("dot_f32_2048", functools.partial(dot, 2048, 2048, 2048, F32))
_add("dot_bf16_8x8192x8192", functools.partial(dot, 8, 8192, 8192, BF16))
_add("dot_tanh_sum_bf16_4096", functools.partial(dot_tanh_sum, 4096, 4096, 4096, BF16))
_add("conv_bf16_8x64x64x128_k3", functools.partial(conv, 8, 64, 64, 128, 128, 3, BF16))
_add("conv_f32_4x128x128x64_k5", functools.partial(conv, 4, 128, 128, 64, 64, 5, F32))
for axis in (0, 1):
    _add(f"reduce_sum_f32_8192x8192_axis{axis}", functools.partial(reduce, (8192, 8192), axis, "sum", F32))
_add("reduce_max_bf16_64x4096x512_axis1", functools.partial(reduce, (64, 4096, 512), 1, "max", BF16))
_add("softmax_bf16_16x2048x2048", functools.partial(softmax, (16, 2048, 2048), BF16))
_add("layernorm_bf16_8192x8192", functools.partial(layernorm, (8192, 8192), BF16))
_add("cumsum_f32_4096x4096_axis1", functools.partial(cumsum, (4096, 4096), 1, F32))
_add("cumsum_f32_4096x4096_axis0", functools.partial(cumsum, (4096, 4096), 0, F32))
_add("sort_f32_1024x8192", functools.partial(sort, (1024, 8192), F32))
_add("gather_bf16_65536x1024_n4096", functools.partial(gather, 65536, 1024, 4096, BF16))
_add("scatter_add_f32_65536x512_n8192", functools.partial(scatter_add, 65536, 512, 8192, F32))
_add("maxpool_f32_8x256x256x64", functools.partial(maxpool, 8, 256, 256, 64, F32))
_add("transpose_f32_8192x8192", functools.partial(transpose, 8192, 8192, F32))
