"""vmemscope.jax against real JAX on the CPU: Pallas kernels lowered for TPU.

Run by `make test` (CTest's python_jax, scripts/run-jax-tests) in the venv
scripts/python-venv makes from PyPI; skipped with the reason where there is
none. The CLI (VMEMSCOPE_CLI) must print the same figures for the same
lowered text; the oracle's records (tests/oracle/records/, the compiler's own
figures) must be met wherever tests/oracle/agreement.txt says they agree.
"""
import functools
import json
import os
import subprocess
import sys
import tempfile

import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402
from jax.experimental import pallas as pl  # noqa: E402
from jax.experimental.pallas import tpu as pltpu  # noqa: E402

import vmemscope  # noqa: E402
import vmemscope.jax as vj  # noqa: E402

ROOT = os.environ.get("VMEMSCOPE_ROOT") or os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CLI = os.environ.get("VMEMSCOPE_CLI") or os.path.join(ROOT, "build", "vmemscope")
sys.path.insert(0, os.path.join(ROOT, "oracle", "cases"))


# ---- a tiled matmul, the way the Pallas TPU guide writes it (its kernel is the oracle's) ------

from own import _acc_kernel as _mm_kernel  # noqa: E402  (oracle/cases/own.py: the kernel the oracle records)


def matmul(x, y, bm=256, bn=256, bk=512, limit=None, x_buffers=None):
    m, k = x.shape
    n = y.shape[1]
    xspec = pl.BlockSpec((bm, bk), lambda i, j, kk: (i, kk))
    if x_buffers:
        xspec = pl.BlockSpec((bm, bk), lambda i, j, kk: (i, kk), pipeline_mode=pl.Buffered(x_buffers))
    return pl.pallas_call(
        _mm_kernel, grid=(m // bm, n // bn, k // bk),
        in_specs=[xspec, pl.BlockSpec((bk, bn), lambda i, j, kk: (kk, j))],
        out_specs=pl.BlockSpec((bm, bn), lambda i, j, kk: (i, j)),
        out_shape=jax.ShapeDtypeStruct((m, n), x.dtype),
        scratch_shapes=[pltpu.VMEM((bm, bn), jnp.float32)],
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "parallel", "arbitrary"),
                                             vmem_limit_bytes=limit))(x, y)


X = jax.ShapeDtypeStruct((2048, 4096), jnp.bfloat16)
Y = jax.ShapeDtypeStruct((4096, 1024), jnp.bfloat16)


def cli_kernels(text, target, *extra):
    """`vmemscope check --json` on the lowered text, by the command itself."""
    with tempfile.NamedTemporaryFile("w", suffix=".stablehlo.mlir", delete=False) as f:
        f.write(text)
    try:
        run = subprocess.run([CLI, "check", f.name, "--target", target, "--json", *extra],
                             capture_output=True, text=True)
    finally:
        os.unlink(f.name)
    assert run.returncode in (0, 1), run.stderr
    return [op["kernel"] for op in json.loads(run.stdout)["ops"] if "kernel" in op]


def same_as_cli(result, target, *extra):
    kernels = [r for r in result if r.target == target]
    assert [r.doc for r in kernels] == cli_kernels(result.texts[target], target, *extra)


# ---- check --------------------------------------------------------------------

@pytest.mark.parametrize("bm,bn,bk", [(128, 128, 128), (256, 512, 512), (512, 1024, 1024), (1024, 1024, 2048)])
def test_check_decodes_what_the_python_asked_for_and_equals_the_cli(bm, bn, bk):
    r = vj.check(functools.partial(matmul, bm=bm, bn=bn, bk=bk), X, Y, target="v6e")
    assert len(r) == 1
    k = r[0]
    assert k.grid == (2048 // bm, 1024 // bn, 4096 // bk)
    ins = [o for o in k.operands if o.role == "input"]
    outs = [o for o in k.operands if o.role == "output"]
    assert [o.block for o in ins] == [(bm, bk), (bk, bn)] and [o.block for o in outs] == [(bm, bn)]
    assert [(o.block, o.dtype) for o in k.scratch] == [((bm, bn), "f32")]
    assert [o.buffers for o in ins + outs + k.scratch] == [2, 2, 2, 1]
    # bf16 windows double-buffered, f32 accumulator once: the exact sum, by hand
    assert k.scoped_bytes == 2 * (bm * bk + bk * bn + bm * bn) * 2 + bm * bn * 4
    assert k.limit_origin == "default" and k.limit_bytes == 32 << 20
    same_as_cli(r, "v6e")


def test_each_target_and_the_flag_limit():
    r = vj.check(functools.partial(matmul, bm=1024, bn=1024, bk=1024), X, Y, targets=["v5e", "v6e"],
                 scoped_vmem_limit_kib=24 * 1024)
    assert [k.target for k in r] == ["v5e", "v6e"]
    assert all(k.limit_origin == "flag" and k.limit_bytes == 24 << 20 for k in r)
    same_as_cli(r, "v5e", "--flags", "--xla_tpu_scoped_vmem_limit_kib=24576")


def test_the_kernels_own_limit_and_buffered_1():
    r = vj.check(functools.partial(matmul, bm=512, bn=512, bk=512, limit=40 << 20, x_buffers=1), X, Y, target="v5e")
    k = r[0]
    assert k.limit_origin == "kernel" and k.limit_bytes == 40 << 20
    assert k.operands[0].role == "input" and k.operands[0].buffers == 1


def test_over_the_limit_gives_the_e1001_and_the_code_to_write():
    k = vj.check(functools.partial(matmul, bm=2048, bn=1024, bk=2048), X, Y, target="v5e")[0]
    assert not k.fits and k.scoped_bytes > k.limit_bytes == 16 << 20
    assert "Ran out of memory in memory space vmem" in k.e1001()
    assert k.code() == ["compiler_params=pltpu.CompilerParams(vmem_limit_bytes=%d)" % k.remedies["vmem_limit_bytes"]]
    assert k.remedies["vmem_limit_bytes"] >= k.needed_bytes
    # the request holds the body's values at their ceiling, so that following it compiles the kernel
    assert k.remedies["at_ceiling"] and k.remedies["vmem_limit_bytes"] >= k.doc["ceiling_bytes"] > k.needed_bytes


def test_the_result_prints_like_the_cli_and_has_html_and_json():
    r = vj.check(matmul, X, Y, target="v6e")
    assert "kernel _acc_kernel" in r.text and "fits" in r.text
    k = r[0]
    assert "scoped allocation" in str(k) and "verdict: " in str(k)
    assert json.loads(k.to_json())["scoped_bytes"] == k.scoped_bytes
    assert json.loads(r.to_json())["command"] == "check"
    assert k._repr_html_().lstrip().lower().startswith("<!doctype html")
    assert k.cost["flops_source"] == "body" and k.cost["flops"] >= 2 * 2048 * 4096 * 1024


def test_7x_reads_a_copied_input_in_place():
    """On 7x XLA copies a program's input into VMEM before the kernel (within
    its budget) and the kernel reads a contiguous block of it with no window;
    v6e gives it windows (the oracle's rows_* records)."""
    def scale(x):
        return pl.pallas_call(lambda x_ref, o_ref: o_ref.__setitem__(Ellipsis, x_ref[...] * 2),
                              grid=(16,), in_specs=[pl.BlockSpec((512, 1024), lambda i: (i, 0))],
                              out_specs=pl.BlockSpec((512, 1024), lambda i: (i, 0)),
                              out_shape=jax.ShapeDtypeStruct((8192, 1024), jnp.bfloat16))(x)
    x = jax.ShapeDtypeStruct((8192, 1024), jnp.bfloat16)
    r7, r6 = vj.check(scale, x, target="7x")[0], vj.check(scale, x, target="v6e")[0]
    assert r7.operands[0].prefetched and r7.prefetched_bytes == 8192 * 1024 * 2
    assert r7.scoped_bytes == 2 * 512 * 1024 * 2  # the output's two buffers (libtpu: 2097152)
    assert not r6.operands[0].prefetched and r6.scoped_bytes == 4 * 512 * 1024 * 2
    assert r7.operands[0].array == (8192, 1024)


def test_assert_fits_raises_with_the_compilers_message_and_remedies():
    big = functools.partial(matmul, bm=2048, bn=1024, bk=2048)
    with pytest.raises(vj.VmemOverflow) as e:
        vj.assert_fits(big, X, Y, targets=("v5e", "v6e"))
    text = str(e.value)
    assert "RESOURCE_EXHAUSTED: Ran out of memory in memory space vmem" in text
    assert "vmem_limit_bytes=" in text and {r.target for r in e.value.results} >= {"v5e"}
    assert isinstance(e.value, AssertionError)
    assert vj.assert_fits(matmul, X, Y, targets=("v5e", "v6e", "7x")).fits


def test_assert_fits_strict_fails_a_kernel_at_risk():
    risky = functools.partial(matmul, bm=2048, bn=512, bk=512)  # fits v5e's 16 MiB with the estimate, not the ceiling
    assert vj.assert_fits(risky, X, Y, target="v5e")[0].at_risk
    with pytest.raises(vj.VmemOverflow) as e:
        vj.assert_fits(risky, X, Y, target="v5e", strict=True)
    assert "at risk" in str(e.value) and "vmem_limit_bytes=" in str(e.value)
    assert e.value.results[0].code() == [
        "compiler_params=pltpu.CompilerParams(vmem_limit_bytes=%d)" % e.value.results[0].remedies["vmem_limit_bytes"]]


# ---- bad input --------------------------------------------------------------------

def test_a_function_without_pallas_call_says_so_and_lists_the_ops():
    with pytest.raises(vj.NoKernelError, match=r"no pallas_call.*stablehlo\.dot_general"):
        vj.check(lambda a, b: a @ b, X, Y)


def test_wrong_rank_arguments_raise_jaxs_own_error():
    with pytest.raises(Exception) as e:
        vj.check(matmul, jax.ShapeDtypeStruct((2048,), jnp.bfloat16), Y)
    assert not isinstance(e.value, vmemscope.Error)
    assert any("vmemscope.jax" in n for n in getattr(e.value, "__notes__", []))


def test_a_kernel_that_fails_to_lower_passes_jaxs_error_on():
    def bad(x):
        return pl.pallas_call(lambda x_ref, o_ref: None, grid=(4,),
                              in_specs=[pl.BlockSpec((100, 100), lambda i: (i, 0))],
                              out_specs=pl.BlockSpec((100, 100), lambda i: (i, 0)),
                              out_shape=jax.ShapeDtypeStruct((400, 100), jnp.float32))(x)
    with pytest.raises(Exception) as e:
        vj.check(bad, jax.ShapeDtypeStruct((400, 100), jnp.float32))
    assert not isinstance(e.value, vmemscope.Error)


def test_an_unknown_target_is_vmemscopes_error():
    with pytest.raises(vmemscope.Error, match="unknown target"):
        vj.check(matmul, X, Y, target="v99")


def test_a_jax_too_old_is_named(monkeypatch):
    monkeypatch.setattr(jax, "__version__", "0.4.20")
    with pytest.raises(vj.JaxVersionError, match=r"jax >= 0\.4\.30; this is jax 0\.4\.20"):
        vj.check(matmul, X, Y)


# ---- explain ------------------------------------------------------------------------

E1001 = ("jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Ran out of memory in memory space vmem while allocating "
         "on stack for %matmul = bf16[2048,1024]{1,0:T(8,128)(2,1)} custom-call(bf16[2048,4096]{1,0:T(8,128)(2,1)} "
         "%p0, bf16[4096,1024]{1,0:T(8,128)(2,1)} %p1), custom_call_target=\"tpu_custom_call\". Scoped allocation "
         "with size 20.00M and limit 16.00M exceeded scoped vmem limit by 4.00M.")


def test_explain_takes_the_exception_its_string_or_a_file(tmp_path):
    class JaxRuntimeError(RuntimeError):
        pass
    docs = [vmemscope.explain(JaxRuntimeError(E1001)), vmemscope.explain(E1001)]
    p = tmp_path / "compile.log"
    p.write_text("some output\n" + E1001 + "\n")
    docs += [vmemscope.explain(str(p)), vmemscope.explain(p)]
    for d in docs:
        assert len(d["errors"]) == 1 and d["errors"][0]["instruction"] == "%matmul"


# ---- fit ------------------------------------------------------------------------------

def test_fit_each_candidate_is_a_fresh_check_and_the_best_is_fastest_that_fits():
    params = {"bm": [256, 512, 1024, 2048], "bn": [256, 512, 1024], "bk": [512, 1024, 2048, 4096]}
    res = vj.fit(lambda bm, bn, bk: functools.partial(matmul, bm=bm, bn=bn, bk=bk), X, Y, params=params,
                 target="v5e", progress=False)
    assert len(res.candidates) == 4 * 3 * 4
    fitting = [c for c in res.candidates if c.fits]
    assert res.best is not None and res.best.fits
    # the fastest of those that fit at the body model's ceiling, when any does; at risk only when none does
    safe = [c for c in fitting if not c.at_risk]
    assert res.best.at_risk == (not safe)
    assert all(res.best.time_s <= c.time_s for c in (safe or fitting))
    assert all(c.ceiling_bytes >= c.needed_bytes for c in fitting)
    assert any(not c.fits for c in res.candidates)  # the search did reach past the limit
    for c in res.candidates[:3] + res.candidates[-3:]:
        fresh = vj.check(functools.partial(matmul, **c.params), X, Y, target="v5e")[0]
        assert c.kernels[0].doc == fresh.doc
    assert res.rate > 0 and "best: " in str(res)


def test_fit_physical_names_the_limit_to_request():
    res = vj.fit(lambda bm: functools.partial(matmul, bm=bm, bn=1024, bk=4096), X, Y,
                 params={"bm": [256, 512, 1024, 2048]}, target="v5e", physical=True, progress=False)
    best = res.best
    assert best.needed_bytes > 16 << 20 and res.vmem_limit_bytes >= best.ceiling_bytes >= best.needed_bytes
    assert "vmem_limit_bytes=%d" % res.vmem_limit_bytes in res.code()


def test_fit_keeps_a_rejected_combination_with_its_error():
    res = vj.fit(lambda bm: functools.partial(matmul, bm=bm), X, Y, params={"bm": [256, 100]}, target="v5e",
                 progress=False)
    bad = [c for c in res.candidates if c.error]
    assert len(bad) == 1 and bad[0].params == {"bm": 100} and not bad[0].fits


# ---- the pytest plugin --------------------------------------------------------------------

def run_plugin(tmp_path, tests, *options):
    """pytest with vmemscope's plugin over `tests` (a test file's source), in a folder of its own."""
    (tmp_path / "conftest.py").write_text('pytest_plugins = ["vmemscope.pytest_plugin"]\n')
    (tmp_path / "test_k.py").write_text("import functools, pytest\nfrom test_jax import matmul, X, Y\n" + tests)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.dirname(__file__), os.environ.get("PYTHONPATH", "")]))
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)] +
                          list(options), capture_output=True, text=True, env=env, cwd=tmp_path)


def test_the_pytest_plugin_fails_a_test_whose_kernel_overflows(tmp_path):
    run = run_plugin(tmp_path,
                     "def test_small(vmem_fits):\n"
                     "    vmem_fits(matmul, X, Y)\n"
                     "@pytest.mark.vmem_targets('v5e')\n"
                     "def test_big(vmem_fits):\n"
                     "    vmem_fits(functools.partial(matmul, bm=2048, bn=1024, bk=2048), X, Y)\n")
    assert "1 failed, 1 passed" in run.stdout, run.stdout + run.stderr
    assert "Ran out of memory in memory space vmem" in run.stdout and "v5e" in run.stdout


def test_the_pytest_plugin_strict_fails_a_kernel_at_risk(tmp_path):
    risky = ("@pytest.mark.vmem_targets('v5e')\n"
             "def test_risky(vmem_fits):\n"
             "    vmem_fits(functools.partial(matmul, bm=2048, bn=512, bk=512), X, Y)\n")
    run = run_plugin(tmp_path, risky)
    assert "1 passed" in run.stdout, run.stdout + run.stderr
    run = run_plugin(tmp_path, risky, "--vmem-strict")
    assert "1 failed" in run.stdout and "at risk" in run.stdout, run.stdout + run.stderr


# ---- JAX's own kernels (jax.experimental.pallas.ops.tpu) --------------------------------------

def ops_cases():
    import jaxops
    out = []
    for name, make in sorted(jaxops.CASES.items()):
        if not name.startswith("ops_gmm"):
            out.append((name, make))
    return out


@pytest.mark.parametrize("name,make", ops_cases(), ids=[n for n, _ in ops_cases()])
def test_jax_ops_kernels_equal_the_cli(name, make):
    fn, args = make()
    r = vj.check(fn, *args, targets=["v5e", "v6e"])
    assert len(r) >= 2
    for t in ("v5e", "v6e"):
        same_as_cli(r, t)


def test_jax_ops_matmul_blocks_are_its_block_shape():
    import jaxops
    fn, args = jaxops.matmul(4096, 4096, 4096, 512, 1024, 256, jnp.bfloat16)
    k = vj.check(fn, *args, target="v6e")[0]
    assert [o.block for o in k.operands if o.role in ("input", "output")] == [(512, 256), (256, 1024), (512, 1024)]
    assert k.grid == (8, 4, 16)


def test_jax_ops_flash_attention_blocks_follow_its_block_sizes():
    import jaxops
    fn, args = jaxops.flash(1, 2, 4096, 128, 512, 1024, 256, jnp.bfloat16)
    k = vj.check(fn, *args, target="v6e")[0]
    q, kk, v = [o.block for o in k.operands if o.role == "input"][:3]
    assert q == (1, 1, 512, 128) and kk == v == (1, 1, 1024, 128)
    assert k.grid == (1, 2, 4096 // 512, 4096 // 1024)


def test_jax_ops_megablox_gmm_lowers_and_equals_the_cli(monkeypatch):
    import jaxops
    monkeypatch.setenv("VMEMSCOPE_ORACLE_DEVICE_KIND", "TPU v6 lite")
    fn, args = jaxops.gmm(2048, 1024, 1024, 4, (256, 512, 256), jnp.bfloat16)
    r = vj.check(fn, *args, target="v6e")
    assert [o.block for o in r[0].operands if o.role == "input"][:2] == [(256, 512), (1, 512, 256)]
    same_as_cli(r, "v6e")


def test_jax_ops_splash_attention_equals_the_cli():
    from jax.experimental.pallas.ops.tpu.splash_attention import splash_attention_kernel as sk
    from jax.experimental.pallas.ops.tpu.splash_attention import splash_attention_mask as sm
    for block in (256, 512, 1024):
        mask = sm.MultiHeadMask([sm.CausalMask((2048, 2048)) for _ in range(4)])
        sizes = sk.BlockSizes(block_q=block, block_kv=block, block_kv_compute=block)
        kernel = sk.make_splash_mha(mask, head_shards=1, q_seq_shards=1, block_sizes=sizes)
        q = jax.ShapeDtypeStruct((4, 2048, 128), jnp.bfloat16)
        r = vj.check(lambda a, b, c: kernel(a, b, c), q, q, q, target="v6e")
        assert (1, block, 128) in [o.block for o in r[0].operands if o.role == "input"]
        same_as_cli(r, "v6e")


# ---- the compiler's own figures (the oracle's records) ------------------------------------------

def agreed_rows():
    path = os.path.join(ROOT, "tests", "oracle", "agreement.txt")
    rows = {}
    with open(path) as f:
        for line in f.readlines()[1:]:
            parts = line.split()
            if len(parts) >= 4 and parts[2] == "agree" and parts[3].isdigit():
                rows.setdefault(parts[1], []).append((parts[0], int(parts[3])))
    return rows


def oracle_cases():
    import jaxops
    import own
    cases = dict(own.CASES)
    cases.update(jaxops.CASES)
    rows = agreed_rows()
    return [(n, cases[n], rows[n]) for n in sorted(rows) if n in cases and not n.startswith("ops_gmm")]


@pytest.mark.parametrize("name,make,rows", oracle_cases(), ids=[c[0] for c in oracle_cases()])
def test_equals_the_compilers_figure_where_the_oracle_agrees(name, make, rows):
    fn, args = make()
    r = vj.check(fn, *args, targets=[t for t, _ in rows])
    for target, compiler_bytes in rows:
        assert sum(k.scoped_bytes for k in r if k.target == target) == compiler_bytes, target


def test_jax_ops_ragged_paged_attention_lowers_as_for_the_targets_device():
    """Its lowering asks Pallas which TPU it is on (tpu_info): on a CPU host that
    fails unless the lowering names the device, as vmemscope.jax does."""
    from jax.experimental.pallas.ops.tpu.ragged_paged_attention import kernel as rk
    s = jax.ShapeDtypeStruct
    args = (s((1024, 32, 128), jnp.bfloat16), s((4096, 16, 16, 128), jnp.bfloat16), s((16,), jnp.int32),
            s((16, 256), jnp.int32), s((17,), jnp.int32), s((1,), jnp.int32))
    for kv, q in ((8, 32), (16, 64), (32, 128)):
        f = functools.partial(rk.ragged_paged_attention, num_kv_pages_per_block=kv, num_queries_per_block=q)
        r = vj.check(f, *args, targets=["v5e", "v6e"])
        assert [k.name for k in r] == ["ragged_paged_attention_kernel"] * 2
        for t in ("v5e", "v6e"):
            same_as_cli(r, t)


def test_a_one_d_block_lowers_for_a_named_target():
    """1-D blocks, which the oracle's recorder could not lower on a CPU host."""
    import own
    fn, args = own.one_d(262144, 1024, jnp.float32)
    r = vj.check(fn, *args, target="v6e")
    assert [o.block for o in r[0].operands if o.role != "scratch"] == [(1024,), (1024,)]
    assert r[0].grid == (256,)
    same_as_cli(r, "v6e")


def test_jax_ops_example_kernel():
    from jax.experimental.pallas.ops.tpu import example_kernel
    r = vj.check(example_kernel.double, jax.ShapeDtypeStruct((256, 512), jnp.float32), target="v5e")
    assert r[0].grid == () and r[0].scoped_bytes == 2 * 256 * 512 * 4  # whole arrays, one step: one buffer each
    same_as_cli(r, "v5e")


def test_fit_over_flash_attention():
    import jaxops
    params = {"bq": [256, 512, 1024], "bkm": [512, 1024, 2048], "bk": [256, 512, 1024]}

    def build(bq, bkm, bk):
        fn, _ = jaxops.flash(1, 2, 2048, 128, bq, bkm, bk, jnp.bfloat16)
        return fn
    _, args = jaxops.flash(1, 2, 2048, 128, 512, 512, 512, jnp.bfloat16)
    res = vj.fit(build, *args, params=params, target="v6e", progress=False)
    ok = [c for c in res.candidates if not c.error]
    assert any(c.error for c in res.candidates)  # block_k > block_k_major: flash_attention refuses it
    assert res.best in ok and res.best.fits
    safe = [c for c in ok if c.fits and not c.at_risk]
    assert all(res.best.time_s <= c.time_s for c in (safe or [c for c in ok if c.fits]))
    for c in ok[:2] + ok[-2:]:
        fresh = vj.check(build(**c.params), *args, target="v6e")
        assert [k.doc for k in c.kernels] == [k.doc for k in fresh]


# ---- vmemscope fit on lowered kernels tells the truth (issue: fit on Mosaic kernels) ----------------

from own import gate_up  # noqa: E402  (oracle/cases/own.py: the same kernel oracle/fit_recompile.py compiles)


GU = (jax.ShapeDtypeStruct((2048, 4096), jnp.bfloat16), jax.ShapeDtypeStruct((4096, 2048), jnp.bfloat16),
      jax.ShapeDtypeStruct((4096, 2048), jnp.bfloat16))

GATE_UP_SPEC = {
    "name": "gate_up", "grid_axes": ["i", "j", "k"], "params": {"bm": 256, "bn": 256, "bk": 512},
    "in_specs": [{"name": "x", "array": "bf16[2048,4096]", "block": ["bm", "bk"], "index_map": ["i", "k"]},
                 {"name": "wg", "array": "bf16[4096,2048]", "block": ["bk", "bn"], "index_map": ["k", "j"]},
                 {"name": "wu", "array": "bf16[4096,2048]", "block": ["bk", "bn"], "index_map": ["k", "j"]}],
    "out_specs": [{"name": "o", "array": "bf16[2048,2048]", "block": ["bm", "bn"], "index_map": ["i", "j"]}],
    "scratch": [{"name": "accg", "dtype": "f32", "shape": ["bm", "bn"]},
                {"name": "accu", "dtype": "f32", "shape": ["bm", "bn"]}]}


def cli_fit(path, *extra):
    run = subprocess.run([CLI, "fit", path, "--target", "v5e", "--json", "--top", "400", *extra],
                         capture_output=True, text=True)
    assert run.returncode in (0, 1), run.stderr
    return json.loads(run.stdout)


def footprints(doc, order):
    """{(bm, bn, bk): scoped_bytes} from fit's candidates, the params in `order`."""
    return {tuple(c["params"][p] for p in order): c["scoped_bytes"] for c in doc["candidates"]}


def test_fit_on_lowered_gate_up_equals_the_same_kernel_as_a_spec(tmp_path):
    text = vj.lower(gate_up, *GU, target="v5e")
    lowered = tmp_path / "gate_up.stablehlo.mlir"
    lowered.write_text(text)
    bc = tmp_path / "gate_up.mlirbc"
    status, out, err = vmemscope.run("mlir-text", str(lowered))
    assert status == 0, err
    import base64
    import re
    body = re.search(r"TUzvUg[A-Za-z0-9+/=]+", text).group(0)
    bc.write_bytes(base64.b64decode(body))
    spec = tmp_path / "gate_up.json"
    spec.write_text(json.dumps(GATE_UP_SPEC))
    from_hlo = cli_fit(str(lowered))
    from_bc = cli_fit(str(bc))
    from_spec = cli_fit(str(spec))
    # no --array needed: the custom call gives the arrays; the bytecode alone has them inferred
    assert [a["operand"] for a in from_bc["arrays_inferred"]] == ["arg3", "arg4", "arg5", "arg6"]
    assert all(s["follows"] == "arg6" for s in from_bc["scratch"])
    a = footprints(from_hlo, ["g0", "g1", "g2"])
    b = footprints(from_bc, ["g0", "g1", "g2"])
    c = footprints(from_spec, ["bm", "bn", "bk"])
    assert a == b
    # Where bk is all of K (one K step) the body writes its accumulators whole before reading them and the
    # compiler forwards them (src/mosaic/forward.c): the MLIR forms have no scratch there, the spec, with no
    # body to say so, keeps it. Elsewhere the two agree to the byte.
    k = GU[0].shape[1]
    shared = {x for x in set(a) & set(c) if x[2] < k}
    assert len(shared) > 20 and all(a[x] == c[x] for x in shared)
    one_step = {x for x in set(a) & set(c) if x[2] == k}
    assert one_step and all(a[x] == c[x] - 2 * x[0] * x[1] * 4 for x in one_step)
    # the FLOPs come from the body: two matmuls, 2*M*N*K each
    assert from_hlo["best"]["intensity"] > 0 and from_hlo["best"]["bound"] in ("compute", "hbm")
    # every returned candidate is a fresh check of that kernel
    for (bm, bn, bk), scoped in list(a.items())[:4]:
        k = vj.check(functools.partial(gate_up, bm=bm, bn=bn, bk=bk), *GU, target="v5e")[0]
        assert k.scoped_bytes == scoped


def test_fit_on_the_tutorial_matmul_does_not_recommend_what_overflows(tmp_path):
    """With the f32 accumulator kept at the MLIR's 512x512, fit once ranked 1024^3 blocks at 13.00M; with the
    accumulator following the output block they need 16 MiB + internal scratch, over v5e's 16 MiB."""
    text = vj.lower(functools.partial(matmul, bm=512, bn=512, bk=512), X, Y, target="v5e")
    path = tmp_path / "mm.stablehlo.mlir"
    path.write_text(text)
    doc = cli_fit(str(path))
    fitting = footprints(doc, ["g0", "g1", "g2"])
    assert (1024, 1024, 1024) not in fitting
    k = vj.check(functools.partial(matmul, bm=1024, bn=1024, bk=1024), X, Y, target="v5e")[0]
    assert k.scoped_bytes == 16 << 20 and k.needed_bytes > 16 << 20
    for blocks, scoped in list(fitting.items())[:5]:
        bm, bn, bk = blocks
        assert vj.check(functools.partial(matmul, bm=bm, bn=bn, bk=bk), X, Y, target="v5e")[0].scoped_bytes == scoped


def test_a_body_that_keeps_a_large_value_is_at_risk_outside_its_rules_domain():
    """The windows fit; y = x * 2 is reduced to a row max and used again, so the body keeps all of it. No record
    kept an arith.mulf whole: the kept-value rule is outside its measured domain, so the estimate over the limit
    makes the kernel at risk, not likely E1001 (docs/kernels.md, "Where the rules hold")."""
    def kernel(x_ref, o_ref):
        y = x_ref[...] * 2
        o_ref[...] = y - jnp.max(y, axis=1, keepdims=True)

    def f(x):
        return pl.pallas_call(kernel, grid=(4,), in_specs=[pl.BlockSpec((1024, 1024), lambda i: (i, 0))],
                              out_specs=pl.BlockSpec((1024, 1024), lambda i: (i, 0)),
                              out_shape=jax.ShapeDtypeStruct((4096, 1024), jnp.float32))(x)
    x = jax.ShapeDtypeStruct((4096, 1024), jnp.float32)
    k = vj.check(f, x, target="v5e")[0]
    assert k.scoped_bytes == 16 << 20 and k.modelled_bytes == 4 << 20 and k.predicted_bytes == 20 << 20
    assert k.verdict == "at_risk" and k.fits and k.estimate_over and k.firm_bytes == 16 << 20
    # the ceiling: y and y - max live at once (y cannot stream: the reduction needs all of it), 4 KiB of maxima
    assert k.ceiling_bytes == (24 << 20) + 4096
    vj.assert_fits(f, x, targets=("v5e",))  # at risk passes; strict fails it, saying why
    with pytest.raises(vj.VmemOverflow, match=r"at risk[\s\S]*outside the shapes they were measured on"):
        vj.assert_fits(f, x, targets=("v5e",), strict=True)
    v6e = vj.check(f, x, target="v6e")[0]
    assert v6e.verdict == "fits" and v6e.modelled_bytes == (4 << 20) - (204 << 10)
    assert v6e.ceiling_bytes == (24 << 20) + 4096


def _attn_kernel(q_ref, k_ref, v_ref, o_ref):
    s = jax.lax.dot_general(q_ref[...], k_ref[...], (((1,), (1,)), ((), ())), preferred_element_type=jnp.float32)
    p = jnp.exp(s - jnp.max(s, axis=1, keepdims=True))
    o_ref[...] = jnp.dot(p.astype(jnp.bfloat16), v_ref[...], preferred_element_type=jnp.float32).astype(o_ref.dtype)


def attention(q, k, v, bq=256):
    n, d = q.shape
    return pl.pallas_call(_attn_kernel, grid=(n // bq,),
                          in_specs=[pl.BlockSpec((bq, d), lambda i: (i, 0)), pl.BlockSpec(k.shape, lambda i: (0, 0)),
                                    pl.BlockSpec(v.shape, lambda i: (0, 0))],
                          out_specs=pl.BlockSpec((bq, d), lambda i: (i, 0)),
                          out_shape=jax.ShapeDtypeStruct(q.shape, q.dtype))(q, k, v)


ATTN_SPEC = {
    "name": "attention", "grid_axes": ["i"], "params": {"bq": 256},
    "in_specs": [{"name": "q", "array": "bf16[4096,128]", "block": ["bq", 128], "index_map": ["i", 0]},
                 {"name": "k", "array": "bf16[2048,128]", "index_map": [0, 0]},
                 {"name": "v", "array": "bf16[2048,128]", "index_map": [0, 0]}],
    "out_specs": [{"name": "o", "array": "bf16[4096,128]", "block": ["bq", 128], "index_map": ["i", 0]}],
    "values": [{"name": "logits", "dtype": "f32", "shape": ["bq", 2048]}]}


def test_fit_on_a_lowered_attention_kernel_equals_it_as_a_spec_with_values(tmp_path):
    q = jax.ShapeDtypeStruct((4096, 128), jnp.bfloat16)
    kv = jax.ShapeDtypeStruct((2048, 128), jnp.bfloat16)
    lowered = tmp_path / "attn.stablehlo.mlir"
    lowered.write_text(vj.lower(attention, q, kv, kv, target="v5e"))
    spec = tmp_path / "attn.json"
    spec.write_text(json.dumps(ATTN_SPEC))
    a, b = cli_fit(str(lowered)), cli_fit(str(spec))
    from_hlo = {c["params"]["g0"]: (c["scoped_bytes"], c["modelled_bytes"]) for c in a["candidates"]}
    from_spec = {c["params"]["bq"]: (c["scoped_bytes"], c["modelled_bytes"]) for c in b["candidates"]}
    assert from_hlo == from_spec and len(from_hlo) >= 5
    assert a["body_values"][0]["follows"] == ["g0"]
    # the logits (bq x 2048 f32) are what limits bq: 2048 would need 16 MiB of them alone
    assert 2048 not in from_hlo and max(from_hlo) == 1024


# ---- the real compiler beside the model (docs/compiler.md) --------------------------

def _compiler_or_skip():
    try:
        return vmemscope.compiler()
    except vmemscope.Error as e:
        if os.environ.get("VMEMSCOPE_REQUIRE_LIBTPU") == "1":
            raise
        pytest.skip("no libtpu: %s" % e)


def test_check_compile_sets_the_compilers_figure_beside_the_models():
    _compiler_or_skip()
    r = vj.check(functools.partial(matmul, bm=512, bn=512, bk=1024), X, Y, target="v5e", compile=True)
    k = r[0]
    assert k.compiler_fits is True
    assert k.compiler["agrees"] is True
    # the compiler's figure is at most the model's ceiling, and at least the windows and scratch it sizes exactly
    assert k.scoped_bytes <= k.compiler["figure_bytes"] <= k.ceiling_bytes


def test_check_compile_an_e1001_is_the_compilers_own():
    _compiler_or_skip()
    r = vj.check(functools.partial(matmul, bm=2048, bn=1024, bk=4096), X, Y, target="v5e", compile=True)
    assert r[0].verdict == "e1001"
    assert r[0].compiler_fits is False
    assert "Ran out of memory in memory space vmem" in r[0].compiler["error"]
    with pytest.raises(vj.VmemOverflow, match="the compiler"):
        vj.assert_fits(functools.partial(matmul, bm=2048, bn=1024, bk=4096), X, Y, target="v5e", compile=True)


def test_fit_confirm_compiles_the_best_and_ranks_by_the_compiler():
    _compiler_or_skip()
    res = vj.fit(lambda bm, bn: functools.partial(matmul, bm=bm, bn=bn, bk=512), X, Y,
                 params={"bm": [256, 512, 1024], "bn": [256, 512, 1024]}, target="v6e", progress=False, confirm=3)
    assert len(res.confirmed) == 3
    assert all(c.compiles for c in res.confirmed)
    assert res.best is res.confirmed[0] and res.best.compiles
    assert res.confirm_seconds > 0
    assert "confirmed by the compiler" in str(res)


def test_pytest_plugin_vmem_compile_says_who_judges(tmp_path):
    found = _compiler_or_skip()
    test = tmp_path / "test_k.py"
    test.write_text(
        "import functools, sys\n"
        "sys.path.insert(0, %r)\n"
        "from test_jax import matmul, X, Y\n"
        "def test_fits(vmem_fits):\n"
        "    r = vmem_fits(functools.partial(matmul, bm=256, bn=256, bk=512), X, Y)\n"
        "    assert 'compiler' in r.judged_by\n" % os.path.dirname(os.path.abspath(__file__)))
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "vmemscope.pytest_plugin", "--vmem-compile",
                          "--vmem-targets=v5e", str(test)], capture_output=True, text=True,
                         env=dict(os.environ, JAX_PLATFORMS="cpu"))
    assert run.returncode == 0, run.stdout + run.stderr
    assert "vmem_fits is judged by the compiler (%s" % found["version"] in run.stdout
