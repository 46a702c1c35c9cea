"""A Pallas TPU matmul checked and tuned from its own Python code, on a
machine without a TPU (docs/jax.md). Run: make test (which makes .venv), then
  VMEMSCOPE_LIBRARY=build/libvmemscope-cli.so PYTHONPATH=python .venv/bin/python examples/jax_matmul.py
"""
import functools
import sys

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

import vmemscope.jax as vj


def kernel(x_ref, y_ref, o_ref, acc_ref):
    @pl.when(pl.program_id(2) == 0)
    def _():
        acc_ref[...] = jnp.zeros_like(acc_ref)

    acc_ref[...] += jnp.dot(x_ref[...], y_ref[...], preferred_element_type=jnp.float32)

    @pl.when(pl.program_id(2) == pl.num_programs(2) - 1)
    def _():
        o_ref[...] = acc_ref[...].astype(o_ref.dtype)


def matmul(x, y, bm=512, bn=512, bk=1024):
    m, k = x.shape
    n = y.shape[1]
    return pl.pallas_call(
        kernel, grid=(m // bm, n // bn, k // bk),
        in_specs=[pl.BlockSpec((bm, bk), lambda i, j, kk: (i, kk)),
                  pl.BlockSpec((bk, bn), lambda i, j, kk: (kk, j))],
        out_specs=pl.BlockSpec((bm, bn), lambda i, j, kk: (i, j)),
        out_shape=jax.ShapeDtypeStruct((m, n), x.dtype),
        scratch_shapes=[pltpu.VMEM((bm, bn), jnp.float32)],
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "parallel", "arbitrary")))(x, y)


def lower_main(argv):
    """--lower BM BN BK [TARGET]: the StableHLO of the matmul with those
    blocks, for `vmemscope fit --confirm N --lower CMD` (docs/compiler.md)."""
    bm, bn, bk = (int(a) for a in argv[:3])
    x = jax.ShapeDtypeStruct((4096, 8192), jnp.bfloat16)
    y = jax.ShapeDtypeStruct((8192, 4096), jnp.bfloat16)
    print(vj.lower(functools.partial(matmul, bm=bm, bn=bn, bk=bk), x, y, target=argv[3] if len(argv) > 3 else "v5e"))


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--lower":
        return lower_main(sys.argv[2:])
    x = jax.ShapeDtypeStruct((4096, 8192), jnp.bfloat16)
    y = jax.ShapeDtypeStruct((8192, 4096), jnp.bfloat16)

    # 1. The exact footprint, on two generations at once.
    for k in vj.check(functools.partial(matmul, bm=2048, bn=1024, bk=2048), x, y, targets=["v5e", "v6e"]):
        print(repr(k))
        print("   ", k.e1001() or "fits", k.code())

    # 2. The block sizes that fit and are fastest by the cost model.
    res = vj.fit(lambda bm, bn, bk: functools.partial(matmul, bm=bm, bn=bn, bk=bk), x, y,
                 params={"bm": [256, 512, 1024, 2048], "bn": [256, 512, 1024, 2048], "bk": [512, 1024, 2048]},
                 target="v5e", progress=False)
    print(res)


if __name__ == "__main__":
    main()
