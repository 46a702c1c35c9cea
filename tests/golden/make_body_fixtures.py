"""Writes the body-model fixtures body_value_<kind>.mlirbc (the Mosaic
bytecode JAX lowers each kernel to) and .mlir (the same body as vmemscope
mlir-text prints it): one kernel per kind of value the body model charges.
Run from the project root, in the venv `make test` makes, through runpy so
that the source locations in the bytecode name this file relative to the
project (Python makes a main script's path absolute):
  PYTHONPATH=python VMEMSCOPE_LIBRARY=build/libvmemscope.so .venv/bin/python \
    -c "import runpy; runpy.run_path('tests/golden/make_body_fixtures.py', run_name='__main__')"
"""
import base64
import json
import os
import re
import subprocess

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

import vmemscope.jax as vj

HERE = os.path.dirname(os.path.abspath(__file__))
S = jax.ShapeDtypeStruct


def call(kernel, ins, out, grid_block):
    """A one-axis grid over rows, each operand in (rows, full) blocks."""
    def fn(*args):
        specs = [pl.BlockSpec((grid_block,) + a.shape[1:], lambda i: (i,) + (0,) * (len(a.shape) - 1)) for a in args]
        return pl.pallas_call(kernel, grid=(args[0].shape[0] // grid_block,), in_specs=specs,
                              out_specs=pl.BlockSpec((grid_block,) + out.shape[1:],
                                                     lambda i: (i,) + (0,) * (len(out.shape) - 1)),
                              out_shape=out)(*args)
    return fn, ins


def transpose():
    def k(x_ref, o_ref):
        o_ref[...] = x_ref[...].T
    def fn(x):
        return pl.pallas_call(k, grid=(4,), in_specs=[pl.BlockSpec((1024, 1024), lambda i: (i, 0))],
                              out_specs=pl.BlockSpec((1024, 1024), lambda i: (0, i)),
                              out_shape=S((1024, 4096), jnp.bfloat16))(x)
    return fn, [S((4096, 1024), jnp.bfloat16)]


def widen():
    def k(x_ref, o_ref):
        y = x_ref[...].astype(jnp.float32)
        o_ref[...] = y * y
    return call(k, [S((4096, 1024), jnp.bfloat16)], S((4096, 1024), jnp.float32), 1024)


def reshape():
    def k(x_ref, o_ref):
        o_ref[...] = (x_ref[...] * 2).reshape(o_ref.shape)
    return call(k, [S((4096, 8, 128), jnp.float32)], S((4096, 1024), jnp.float32), 1024)


def reduction():
    def k(x_ref, o_ref):
        y = x_ref[...] * 2
        o_ref[...] = y - jnp.max(y, axis=1, keepdims=True)
    return call(k, [S((4096, 1024), jnp.float32)], S((4096, 1024), jnp.float32), 1024)


def matmul():
    def k(x_ref, y_ref, o_ref):
        o_ref[...] = jnp.dot(x_ref[...], y_ref[...], preferred_element_type=jnp.float32)
    def fn(x, y):
        return pl.pallas_call(k, grid=(4,), in_specs=[pl.BlockSpec((1024, 1024), lambda i: (i, 0)),
                                                      pl.BlockSpec((1024, 1024), lambda i: (0, 0))],
                              out_specs=pl.BlockSpec((1024, 1024), lambda i: (i, 0)),
                              out_shape=S((4096, 1024), jnp.float32))(x, y)
    return fn, [S((4096, 1024), jnp.bfloat16), S((1024, 1024), jnp.bfloat16)]


def attention():
    def k(q_ref, k_ref, v_ref, o_ref):
        s = jax.lax.dot_general(q_ref[...], k_ref[...], (((1,), (1,)), ((), ())), preferred_element_type=jnp.float32)
        p = jnp.exp(s - jnp.max(s, axis=1, keepdims=True))
        p = p / jnp.sum(p, axis=1, keepdims=True)
        o_ref[...] = jnp.dot(p.astype(jnp.bfloat16), v_ref[...], preferred_element_type=jnp.float32).astype(o_ref.dtype)
    def fn(q, kk, v):
        return pl.pallas_call(k, grid=(4,), in_specs=[pl.BlockSpec((512, 128), lambda i: (i, 0)),
                                                      pl.BlockSpec((2048, 128), lambda i: (0, 0)),
                                                      pl.BlockSpec((2048, 128), lambda i: (0, 0))],
                              out_specs=pl.BlockSpec((512, 128), lambda i: (i, 0)),
                              out_shape=S((2048, 128), jnp.bfloat16))(q, kk, v)
    sds = S((2048, 128), jnp.bfloat16)
    return fn, [sds, sds, sds]


def heads():
    """Four heads unrolled by a Python loop: four alike f32 logits."""
    def k(q_ref, k_ref, v_ref, o_ref):
        for h in range(4):
            s = jax.lax.dot_general(q_ref[h], k_ref[h], (((1,), (1,)), ((), ())), preferred_element_type=jnp.float32)
            p = jnp.exp(s - jnp.max(s, axis=1, keepdims=True))
            o = jnp.dot(p.astype(jnp.bfloat16), v_ref[h], preferred_element_type=jnp.float32)
            o_ref[h] = (o / jnp.sum(p, axis=1, keepdims=True)).astype(o_ref.dtype)
    def fn(q, kk, v):
        return pl.pallas_call(k, grid=(4,), in_specs=[pl.BlockSpec((4, 512, 128), lambda i: (0, i, 0)),
                                                      pl.BlockSpec((4, 512, 128), lambda i: (0, 0, 0)),
                                                      pl.BlockSpec((4, 512, 128), lambda i: (0, 0, 0))],
                              out_specs=pl.BlockSpec((4, 512, 128), lambda i: (0, i, 0)),
                              out_shape=S((4, 2048, 128), jnp.bfloat16))(q, kk, v)
    return fn, [S((4, 2048, 128), jnp.bfloat16), S((4, 512, 128), jnp.bfloat16), S((4, 512, 128), jnp.bfloat16)]


def fp8():
    """A copy of fp8 blocks: newer MLIR codes f8E4M3FN as builtin type 24."""
    def k(x_ref, o_ref):
        o_ref[...] = x_ref[...]
    return call(k, [S((4096, 1024), jnp.float8_e4m3fn)], S((4096, 1024), jnp.float8_e4m3fn), 1024)


def bcast():
    """x + a row of a fixed bias block, broadcast down x's rows."""
    def k(x_ref, b_ref, o_ref):
        o_ref[...] = x_ref[...] + b_ref[0:1, :]
    def fn(x, b):
        return pl.pallas_call(k, grid=(4,), in_specs=[pl.BlockSpec((1024, 1024), lambda i: (i, 0)),
                                                      pl.BlockSpec((8, 1024), lambda i: (0, 0))],
                              out_specs=pl.BlockSpec((1024, 1024), lambda i: (i, 0)),
                              out_shape=S((4096, 1024), jnp.float32))(x, b)
    return fn, [S((4096, 1024), jnp.float32), S((8, 1024), jnp.float32)]


KINDS = {"transpose": transpose, "widen": widen, "reshape": reshape, "reduction": reduction, "matmul": matmul,
         "attention": attention, "heads": heads, "fp8": fp8, "bcast": bcast}


def body_of(text):
    m = re.search(r'backend_config = "(.*?)"[,}]', text)
    cfg = m.group(1).replace("\\22", '"').replace('\\"', '"')
    b64 = re.search(r'"body": "([A-Za-z0-9+/=]+)"', cfg).group(1)
    return base64.b64decode(b64)


def main():
    cli = os.path.join(HERE, "..", "..", "build", "vmemscope")
    for kind, make in KINDS.items():
        fn, args = make()
        data = body_of(vj.lower(fn, *args, target="v5e"))
        path = os.path.join(HERE, "body_value_%s.mlirbc" % kind)
        with open(path, "wb") as f:
            f.write(data)
        text = subprocess.run([cli, "mlir-text", path], capture_output=True, text=True, check=True).stdout
        with open(os.path.join(HERE, "body_value_%s.mlir" % kind), "w") as f:
            f.write(text)
        print("wrote", path, len(data), "bytes")


if __name__ == "__main__":
    main()
