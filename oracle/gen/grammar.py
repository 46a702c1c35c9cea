"""Random, well-formed Pallas TPU kernels from a small grammar of what real
kernels do (docs/fidelity.md, "Generated kernels").

  spec = draw(seed)          # a plain dict: the kernel's every choice
  fn, args = build(spec)     # what record.py lowers and compiles

A kernel is one of three shapes, each a pallas_call over row blocks:

  kernel  := chain | accumulate | loop
  chain   := x block -> op* -> store                      (grid: rows, maybe a leading axis of extent 1)
  accumulate := pl.when(k == 0) zero scratch; scratch += x @ w (K grid axis, "arbitrary");
                pl.when(k == last) op* on the scratch -> store
  loop    := lax.fori_loop over row chunks of the block: chunk -> op* -> store chunk
  op      := cast | unary | bias | mask | reduce | matmul | heads | concat | slice
  unary   := exp | tanh | relu | square | silu
  reduce  := softmax | rmsnorm | layernorm | rowmax    (a row reduction, read again after it)
  matmul  := value @ w  (w: [c, n] or transposed [n, c]; bf16, f32 or int8; maybe computed: w * scale in f32)
  heads   := Python-unrolled heads: per head a column slice @ w[h] (maybe a softmax), concatenated

The spec is drawn first (every shape, dtype and op), then sized: the row
block bm is solved so that the windows come near a limit drawn for the
kernel, and the kernel's vmem_limit_bytes (when it sets one) is drawn
within -25%..+40% of what it holds, so a large share of kernels lands near
the limit, where verdicts are decided. Everything is a function of the
seed: draw(seed) is the same dict on every machine and Python version
(random.Random with an integer seed is stable across versions).

To add an op: a name in OPS with its weight, a `_draw_<op>` that returns
its parameters and the value's new (width, dtype), and a branch in `_apply`.
"""
import functools
import random

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

MIB = 1 << 20
# The ops a chain draws from, with their weights.
OPS = {"cast": 3, "unary": 4, "bias": 2, "mask": 1, "reduce": 3, "matmul": 4, "heads": 1, "concat": 1, "slice": 1}
UNARY = ("exp", "tanh", "relu", "square", "silu")
REDUCE = ("softmax", "rmsnorm", "layernorm", "rowmax")
DTYPES = {"bf16": jnp.bfloat16, "f32": jnp.float32, "int8": jnp.int8}
BYTES = {"bf16": 2, "f32": 4, "int8": 1, "i32": 4}
SUBLANES = {"bf16": 16, "f32": 8, "int8": 32, "i32": 8}  # rows of one native tile of the type
# The limit a kernel is sized against: the default of 16 MiB (v5e) or 32 MiB
# (v5p, v6e, 7x) when it sets none, else its own vmem_limit_bytes.
DEFAULTS = (16 * MIB, 32 * MIB)
MAX_LIMIT = 56 * MIB  # below 7x's 64 MiB of VMEM, so one kernel is valid on every target
WIDTHS = (128, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192)


def _width(rng, lo=128, hi=8192):
    return rng.choice([w for w in WIDTHS if lo <= w <= hi])


def _draw_matmul(rng, c, dt):
    wdt = rng.choice(("bf16", "bf16", "f32", "int8")) if dt != "int8" else "int8"
    n = _width(rng, 128, 4096)
    p = {"op": "matmul", "n": n, "wdtype": wdt, "transposed": rng.random() < 0.25,
         "computed": wdt != "int8" and rng.random() < 0.2, "buffered1": rng.random() < 0.3}
    return p, n, "f32"


def _draw_heads(rng, c, dt):
    choices = [h for h in (2, 4, 8) if c % h == 0 and (c // h) % 128 == 0]
    if not choices:
        return None
    h = rng.choice(choices)
    return {"op": "heads", "heads": h, "d": c // h, "softmax": rng.random() < 0.6,
            "wdtype": "bf16" if rng.random() < 0.7 else "f32"}, c, "f32"


def _draw_op(rng, c, dt):
    """One op on a value of width c and dtype dt: (params, width, dtype), or None."""
    op = rng.choices(list(OPS), weights=list(OPS.values()))[0]
    if op == "cast":
        to = "f32" if dt != "f32" else "bf16"
        return {"op": "cast", "to": to}, c, to
    if dt == "int8":  # Mosaic computes on int8 only after a widening
        return {"op": "cast", "to": "f32"}, c, "f32"
    if op == "unary":
        return {"op": "unary", "fn": rng.choice(UNARY)}, c, dt
    if op == "bias":
        return {"op": "bias"}, c, dt
    if op == "mask":
        return {"op": "mask", "keep": rng.choice((2, 4))}, c, dt
    if op == "reduce":
        return {"op": "reduce", "fn": rng.choice(REDUCE)}, c, "f32"
    if op == "matmul":
        return _draw_matmul(rng, c, dt)
    if op == "heads":
        return _draw_heads(rng, c, dt)
    if op == "concat" and 2 * c <= 8192:
        return {"op": "concat"}, 2 * c, dt
    if op == "slice" and c >= 256 and (c // 2) % 128 == 0:
        return {"op": "slice"}, c // 2, dt
    return None


def _draw_chain(rng, c, dt, most):
    ops = []
    for _ in range(rng.randint(1, most)):
        got = _draw_op(rng, c, dt)
        if got is None:
            continue
        p, c, dt = got
        ops.append(p)
    return ops, c, dt


def draw(seed):
    """The spec of kernel `seed`: a dict of plain values (JSON as it is).
    A draw whose weights alone would not fit MAX_LIMIT is drawn again from
    the same generator, so the seed still decides it."""
    rng = random.Random(seed)
    for _ in range(100):
        spec = _draw_once(rng, seed)
        if spec is not None:
            return spec
    raise ValueError(f"seed {seed}: no kernel within {MAX_LIMIT} bytes in 100 draws")


def _draw_once(rng, seed):
    shape = rng.choices(("chain", "accumulate", "loop"), weights=(6, 3, 2))[0]
    xdt = rng.choices(("bf16", "f32", "int8"), weights=(6, 3, 1))[0]
    spec = {"seed": seed, "shape": shape, "xdtype": xdt, "k": _width(rng, 128, 8192)}
    if shape == "accumulate":
        spec["wdtype"] = xdt if xdt == "int8" else rng.choice(("bf16", "f32"))
        spec["n"] = _width(rng, 128, 4096)
        spec["ksteps"] = rng.choice((1, 2, 4, 8))
        while (spec["k"] // spec["ksteps"]) % 128:  # a K block of whole lanes (no draw: the seeds' other choices stay)
            spec["ksteps"] //= 2
        c, dt = spec["n"], "f32"
    else:
        c, dt = spec["k"], xdt
    spec["ops"], c, dt = _draw_chain(rng, c, dt, 5 if shape != "accumulate" else 3)
    spec["out_width"], spec["out_dtype"] = c, "bf16" if dt in ("bf16", "int8") else rng.choice(("bf16", "f32"))
    if shape == "chain":
        spec["lead_axis"] = rng.random() < 0.3      # a leading grid axis of extent 1
        spec["x_buffered1"] = rng.random() < 0.15
    if shape == "loop":
        spec["chunks"] = rng.choice((2, 4, 8))
    spec["steps"] = rng.choice((1, 2, 4, 8))         # row blocks in the grid
    unit = 32 * spec.get("chunks", 1)
    if windows_bytes(spec, unit) > MAX_LIMIT * 0.8:
        return None
    # The limit: the target's default, or the kernel's own near what it holds.
    regime = rng.choices(("default", "own", "raised"), weights=(4, 4, 2))[0]
    spec["regime"] = regime
    # log-uniform: as many kernels near 4 MiB as near 32 (Mosaic's compile
    # time grows with the block, and the mechanics are the same)
    target = rng.choice(DEFAULTS) if regime == "default" else 2 * MIB * 2 ** rng.uniform(0, 4.5)
    spec["bm"] = _solve_bm(spec, target * rng.uniform(0.45, 1.1), rng)
    held = windows_bytes(spec)
    if regime != "default":
        lo, hi = (0.75, 1.4) if regime == "own" else (1.4, 3.0)
        spec["vmem_limit_bytes"] = min(MAX_LIMIT, int(held * rng.uniform(lo, hi)) // 4096 * 4096 + 4096)
    return spec


def _tile_rows(rows, dt):
    s = SUBLANES[dt]
    return -(-rows // s) * s


def _weights(spec):
    """Each weight input: (rows, cols, dtype, buffers)."""
    out, c = [], spec["k"]
    if spec["shape"] == "accumulate":
        out.append((spec["k"] // spec["ksteps"], spec["n"], spec["wdtype"], 2))
        c = spec["n"]
    for p in spec["ops"]:
        if p["op"] == "matmul":
            rows, cols = (p["n"], c) if p["transposed"] else (c, p["n"])
            out.append((rows, cols, p["wdtype"], 1 if p["buffered1"] else 2))
            c = p["n"]
        elif p["op"] == "heads":
            out.append((p["heads"] * p["d"], p["d"], p["wdtype"], 2))
        elif p["op"] == "bias":
            out.append((1, c, "f32", 2))
        elif p["op"] == "concat":
            c *= 2
        elif p["op"] == "slice":
            c //= 2
    return out


def windows_bytes(spec, bm=None):
    """What the kernel's windows and scratch hold, as the generator reckons
    it (tiles of 128 lanes and the type's rows; the model is vmemscope's)."""
    bm = spec["bm"] if bm is None else bm
    kx = spec["k"] // spec["ksteps"] if spec["shape"] == "accumulate" else spec["k"]
    xb = 1 if spec.get("x_buffered1") else 2
    total = xb * _tile_rows(bm, spec["xdtype"]) * kx * BYTES[spec["xdtype"]]
    for rows, cols, dt, bufs in _weights(spec):
        total += bufs * _tile_rows(rows, dt) * cols * BYTES[dt]
    total += 2 * _tile_rows(bm, spec["out_dtype"]) * spec["out_width"] * BYTES[spec["out_dtype"]]
    if spec["shape"] == "accumulate":
        total += _tile_rows(bm, "f32") * spec["n"] * 4
    return total


def _solve_bm(spec, target, rng):
    """The row block that brings the windows nearest `target`: a multiple of
    32 rows (every type's tile), 32 to 4096; the chunks of a loop divide it."""
    unit = 32 * spec.get("chunks", 1)
    best, best_err = unit, None
    for bm in range(unit, 4097, unit):
        err = abs(windows_bytes(spec, bm) - target)
        if best_err is None or err < best_err:
            best, best_err = bm, err
    if rng.random() < 0.2 and best > unit:  # now and then a row block a native tile does not divide evenly
        best -= 8 if spec["xdtype"] == "f32" and spec.get("chunks", 1) == 1 else 0
    return best


# ---- building the kernel -------------------------------------------------


def _sds(shape, dt):
    return jax.ShapeDtypeStruct(shape, DTYPES.get(dt, dt))


def _unary(fn, v):
    if fn == "exp":
        return jnp.exp(v)
    if fn == "tanh":
        return jnp.tanh(v)
    if fn == "relu":
        return jnp.maximum(v, 0)
    if fn == "square":
        return v * v
    return v * jax.nn.sigmoid(v)


def _reduce(fn, v):
    v = v.astype(jnp.float32)
    if fn == "softmax":
        e = jnp.exp(v - jnp.max(v, axis=-1, keepdims=True))
        return e / jnp.sum(e, axis=-1, keepdims=True)
    if fn == "rmsnorm":
        return v * jax.lax.rsqrt(jnp.mean(v * v, axis=-1, keepdims=True) + 1e-6)
    if fn == "layernorm":
        mu = jnp.mean(v, axis=-1, keepdims=True)
        d = v - mu
        return d * jax.lax.rsqrt(jnp.mean(d * d, axis=-1, keepdims=True) + 1e-5)
    return v - jnp.max(v, axis=-1, keepdims=True)


def _matmul(p, v, w):
    if p["computed"]:  # a weight made in the body (dequantised, scaled) before the MXU reads it
        w = (w.astype(jnp.float32) * 0.5).astype(w.dtype)
    if p["wdtype"] == "int8":
        acc = jnp.int32
    else:
        acc = jnp.float32
        if v.dtype != w.dtype:
            v = v.astype(w.dtype)
    dims = (((1,), (1,)), ((), ())) if p["transposed"] else (((1,), (0,)), ((), ()))
    if p["wdtype"] == "int8" and v.dtype != jnp.int8:
        v = v.astype(jnp.int8)
    return jax.lax.dot_general(v, w, dims, preferred_element_type=acc).astype(jnp.float32)


def _heads(p, v, w_ref):
    d, outs = p["d"], []
    for h in range(p["heads"]):  # unrolled in the body
        s = jnp.dot(v[:, h * d:(h + 1) * d].astype(w_ref.dtype), w_ref[h * d:(h + 1) * d, :],
                    preferred_element_type=jnp.float32)
        outs.append(_reduce("softmax", s) if p["softmax"] else s)
    return jnp.concatenate(outs, axis=-1)


def _apply(ops, v, refs):
    """The chain's ops on v; refs: the weight refs in the order _weights lists them."""
    it = iter(refs)
    for p in ops:
        op = p["op"]
        if op == "cast":
            v = v.astype(DTYPES[p["to"]])
        elif op == "unary":
            v = _unary(p["fn"], v)
        elif op == "bias":
            v = v + next(it)[...].astype(v.dtype)
        elif op == "mask":
            col = jax.lax.broadcasted_iota(jnp.int32, v.shape, 1)
            v = jnp.where(col < v.shape[1] // p["keep"], v, jnp.zeros_like(v))
        elif op == "reduce":
            v = _reduce(p["fn"], v)
        elif op == "matmul":
            v = _matmul(p, v, next(it)[...])
        elif op == "heads":
            v = _heads(p, v, next(it))
        elif op == "concat":
            v = jnp.concatenate([v, v * 2], axis=-1)
        elif op == "slice":
            v = v[:, : v.shape[1] // 2]
    return v


def _chain_kernel(spec, x_ref, *refs):
    o_ref = refs[-1]
    v = _apply(spec["ops"], x_ref[...], refs[:-1])
    o_ref[...] = v.astype(o_ref.dtype)


def _loop_kernel(spec, x_ref, *refs):
    o_ref, rows = refs[-1], spec["bm"] // spec["chunks"]

    def body(i, carry):
        start = pl.multiple_of(i * rows, rows)
        v = _apply(spec["ops"], x_ref[pl.ds(start, rows), :], refs[:-1])
        o_ref[pl.ds(start, rows), :] = v.astype(o_ref.dtype)
        return carry
    jax.lax.fori_loop(0, spec["chunks"], body, 0)


def _acc_kernel(spec, x_ref, w_ref, *refs):
    o_ref, acc_ref = refs[-2], refs[-1]
    k = pl.program_id(1)

    @pl.when(k == 0)
    def _():
        acc_ref[...] = jnp.zeros_like(acc_ref)
    acc = jnp.int32 if spec["wdtype"] == "int8" else jnp.float32
    x = x_ref[...]
    if x.dtype != w_ref.dtype:
        x = x.astype(w_ref.dtype)
    acc_ref[...] += jnp.dot(x, w_ref[...], preferred_element_type=acc).astype(jnp.float32)

    @pl.when(k == pl.num_programs(1) - 1)
    def _():
        o_ref[...] = _apply(spec["ops"], acc_ref[...], refs[:-2]).astype(o_ref.dtype)


def _weight_specs(spec, index):
    """BlockSpecs of the weights: each whole, at a fixed block."""
    out = []
    for rows, cols, dt, bufs in _weights(spec)[1 if spec["shape"] == "accumulate" else 0:]:
        kw = {"pipeline_mode": pl.Buffered(1)} if bufs == 1 else {}
        out.append(pl.BlockSpec((rows, cols), index, **kw))
    return out


def build(spec):
    """(fn, args) for record.py: fn jits to one pallas_call."""
    bm, steps, k = spec["bm"], spec["steps"], spec["k"]
    m = bm * steps
    weights = _weights(spec)
    out = _sds((m, spec["out_width"]), spec["out_dtype"])
    params = {}
    if "vmem_limit_bytes" in spec:
        params["vmem_limit_bytes"] = spec["vmem_limit_bytes"]
    args = [_sds((m, k), spec["xdtype"])] + [_sds((r, c), dt) for r, c, dt, _ in weights]
    if spec["shape"] == "accumulate":
        ks = spec["ksteps"]
        bk = k // ks
        in_specs = [pl.BlockSpec((bm, bk), lambda i, kk: (i, kk)), pl.BlockSpec((bk, spec["n"]), lambda i, kk: (kk, 0))]
        in_specs += _weight_specs(spec, lambda i, kk: (0, 0))
        args[1] = _sds((k, spec["n"]), spec["wdtype"])
        call = pl.pallas_call(
            functools.partial(_acc_kernel, spec), out_shape=out, grid=(steps, ks), in_specs=in_specs,
            out_specs=pl.BlockSpec((bm, spec["out_width"]), lambda i, kk: (i, 0)),
            scratch_shapes=[pltpu.VMEM((bm, spec["n"]), jnp.float32)],
            compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "arbitrary"), **params))
        return call, tuple(args)
    kernel = _loop_kernel if spec["shape"] == "loop" else _chain_kernel
    xkw = {"pipeline_mode": pl.Buffered(1)} if spec.get("x_buffered1") else {}
    if spec.get("lead_axis"):
        grid, xi, wi, oi = (1, steps), (lambda a, i: (i, 0)), (lambda a, i: (0, 0)), (lambda a, i: (i, 0))
    else:
        grid, xi, wi, oi = (steps,), (lambda i: (i, 0)), (lambda i: (0, 0)), (lambda i: (i, 0))
    call = pl.pallas_call(
        functools.partial(kernel, spec), out_shape=out, grid=grid,
        in_specs=[pl.BlockSpec((bm, k), xi, **xkw)] + _weight_specs(spec, wi),
        out_specs=pl.BlockSpec((bm, spec["out_width"]), oi),
        compiler_params=pltpu.CompilerParams(**params) if params else None)
    return call, tuple(args)


def split(seed):
    """'fit' or 'test': the test set is every seed whose hash lands in the
    last fifth. No rule, constant or threshold may be chosen by looking at
    the test records (docs/fidelity.md, "The split")."""
    return "test" if (seed * 2654435761) % 2**32 % 5 == 4 else "fit"
