"""vmemscope.jax.fit's rate, and where each candidate's time goes: JAX's
lowering for TPU against vmemscope's check of the lowered text, in one run
(medians over the candidates; a ratio, since the machines are noisy).
Run: VMEMSCOPE_LIBRARY=build/libvmemscope.so PYTHONPATH=python:. .venv/bin/python bench/bench_jax_fit.py
"""
import functools
import statistics
import time

import jax
import jax.numpy as jnp

import vmemscope.jax as vj
from examples.jax_matmul import matmul


def main():
    x = jax.ShapeDtypeStruct((4096, 8192), jnp.bfloat16)
    y = jax.ShapeDtypeStruct((8192, 4096), jnp.bfloat16)
    params = {"bm": [256, 512, 1024, 2048], "bn": [256, 512, 1024, 2048], "bk": [512, 1024, 2048]}
    res = vj.fit(lambda bm, bn, bk: functools.partial(matmul, bm=bm, bn=bn, bk=bk), x, y, params=params,
                 target="v5e", progress=False)
    lower_s, check_s = [], []
    checker = vj._Checker()
    try:
        for c in res.candidates:
            fn = functools.partial(matmul, **c.params)
            t0 = time.perf_counter()
            text = vj.lower(fn, x, y)
            t1 = time.perf_counter()
            checker.cache.clear()
            checker.check(text, "v5e", [], "bench")
            t2 = time.perf_counter()
            lower_s.append(t1 - t0)
            check_s.append(t2 - t1)
    finally:
        checker.close()
    lo, ch = statistics.median(lower_s), statistics.median(check_s)
    print("fit: %d candidates in %.2f s: %.1f candidates/s" % (len(res.candidates), res.seconds, res.rate))
    print("per candidate (median): JAX lowering %.2f ms, vmemscope check %.2f ms; lowering / check = %.1fx"
          % (lo * 1e3, ch * 1e3, lo / ch))


if __name__ == "__main__":
    main()
