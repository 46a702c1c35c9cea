"""The top candidates of a vmemscope.jax.fit run, re-compiled by the real
TPU compiler: each candidate's exact scoped bytes and its verdict against
what libtpu reports for the same blocks. Needs the oracle's venv and the
built library:

  PYTHONPATH=python VMEMSCOPE_LIBRARY=build/libvmemscope.so \\
    .venv-oracle/bin/python oracle/fit_recompile.py [--out tests/oracle/fit_recompile.txt]
"""
import argparse
import functools
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import record  # noqa: E402  (sets the environment libtpu needs, before JAX starts)

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax.experimental import topologies  # noqa: E402
from jax.sharding import Mesh, NamedSharding, PartitionSpec  # noqa: E402

import vmemscope.jax as vj  # noqa: E402


from cases.own import gate_up  # noqa: E402  (one kernel for fit's tests and this check)


ARGS = (jax.ShapeDtypeStruct((4096, 4096), jnp.bfloat16), jax.ShapeDtypeStruct((4096, 4096), jnp.bfloat16),
        jax.ShapeDtypeStruct((4096, 4096), jnp.bfloat16))
PARAMS = {"bm": [256, 512, 1024, 2048], "bn": [256, 512, 1024, 2048], "bk": [256, 512, 1024, 2048]}


def compile_scoped(fn, target):
    """libtpu's used scoped VMEM for fn's one kernel, or the error kind."""
    topo = topologies.get_topology_desc(platform="tpu", topology_name=record.TOPOLOGIES[target])
    mesh = Mesh(np.array(topo.devices[:1]), ("x",))
    shard = NamedSharding(mesh, PartitionSpec())
    args = [jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=shard) for a in ARGS]
    with jax.sharding.use_abstract_mesh(mesh.abstract_mesh):
        lowered = jax.jit(fn, in_shardings=tuple(shard for _ in args)).lower(*args)
    try:
        calls = record.custom_calls(lowered.compile().as_text())
    except Exception as e:  # the compiler's refusal is the answer
        return None, record.error_kind(str(e))
    return sum(c["size"] for c in calls[0]["used_scoped_memory_configs"] if c["memory_space"] == 1), "compiled"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out")
    ap.add_argument("--top", type=int, default=5)
    opts = ap.parse_args(argv)
    lines = [f"{'target':6} {'params':26} {'exact':>10} {'predicted':>10} {'ceiling':>10} {'compiler':>10}  "
             "verdicts (vmemscope/libtpu)"]
    agree = total = held = compiled_n = 0
    errors = []
    for target in ("v5e", "v6e"):
        res = vj.fit(lambda bm, bn, bk: functools.partial(gate_up, bm=bm, bn=bn, bk=bk), *ARGS, params=PARAMS,
                     target=target, progress=False)
        fitting = [c for c in res.candidates if c.fits and not c.at_risk][:opts.top]
        risky = [c for c in res.candidates if c.at_risk][:2]  # ranked after the others: were they right to be?
        over = [c for c in res.candidates if not c.fits and not c.error][:2]
        for c in fitting + risky + over:
            k = c.kernels[0]
            got, status = compile_scoped(functools.partial(gate_up, **c.params), target)
            compiled = status == "compiled"
            ok = compiled == c.fits  # "at risk" counted with "fits", as check's exit status does
            agree += ok
            total += 1
            predicted, ceiling = k.doc["predicted_bytes"], k.doc["ceiling_bytes"]
            if got is not None:
                errors.append(predicted - got)
                held += got <= ceiling
                compiled_n += 1
            p = " ".join(f"{n}={v}" for n, v in c.params.items())
            said = "at risk" if c.at_risk else "fits" if c.fits else "over"
            lines.append(f"{target:6} {p:26} {k.scoped_bytes:>10} {predicted:>10} {ceiling:>10} "
                         f"{got if got is not None else status:>10}  {said}/"
                         f"{'compiled' if compiled else status} {'agree' if ok else 'DISAGREE'}")
    lines.append(f"{agree}/{total} verdicts agree with the compiler; predicted - compiler over the compiled ones: "
                 f"{min(errors):+d} to {max(errors):+d} B; the ceiling at or above the compiler's figure on "
                 f"{held}/{compiled_n}")
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if opts.out:
        with open(opts.out, "w") as f:
            f.write(text)
    return 0 if agree == total else 1  # the figures are the model's: reported, not held


if __name__ == "__main__":
    sys.exit(main())
