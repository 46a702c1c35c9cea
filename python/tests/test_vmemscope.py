"""The Python package against the shipped examples and the test fixtures.

Run by `make test` (CTest) with VMEMSCOPE_LIBRARY set to the build's
libvmemscope-cli.so and PYTHONPATH to python/; JAX is not needed.
"""
import json
import os
import shutil
import subprocess
import sys

import pytest

import vmemscope

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PY = os.path.join(ROOT, "python")


def read(*parts, mode="r"):
    with open(os.path.join(ROOT, *parts), mode) as f:
        return f.read()


def spec():
    return json.loads(read("examples", "gated_matmul.json"))


# ---- size --------------------------------------------------------------------

def test_size_is_exact_with_the_default_tiling():
    s = vmemscope.size("bf16[129,1024]", target="v5e")
    assert (s["bytes"], s["unpadded_bytes"], s["padding_bytes"]) == (278528, 264192, 14336)
    assert s["layout"] == "{1,0:T(8,128)(2,1)}" and s["layout_source"] == "default"


def test_size_of_a_list_and_of_a_given_layout():
    a, b = vmemscope.size(["f32[128,6]", "f32[128,6]{0,1:T(8,128)}"])
    assert a["bytes"] == 65536 and b["layout_source"] == "given"


def test_bad_shape_raises_with_the_column():
    with pytest.raises(vmemscope.Error) as e:
        vmemscope.size("bf16[129")
    assert e.value.status == 2 and "expected ',' or ']'" in str(e.value)
    assert "^" in e.value.text


def test_unknown_target_raises():
    with pytest.raises(vmemscope.Error, match="unknown target 'v99'"):
        vmemscope.size("f32[8]", target="v99")


# ---- kernels -----------------------------------------------------------------

def test_check_kernel_from_a_spec_dict_does_not_fit_and_says_what_to_request():
    k = vmemscope.check_kernel(spec())
    assert k["fits"] is False and k["scoped_bytes"] == 29360128 and k["limit_bytes"] == 16 << 20
    assert k["remedies"]["vmem_limit_bytes"] == 29360128  # 28 MiB: the internal scratch lies beside the limit
    assert sum(a["bytes"] for a in k["allocations"] if a["exact"]) == k["scoped_bytes"]


def test_the_requested_limit_makes_it_fit():
    k = vmemscope.check_kernel(read("examples", "gated_matmul.json"), vmem_limit_bytes=29360128)
    assert k["fits"] is True and k["limit_origin"] == "kernel" and "remedies" not in k


def test_check_kernel_from_bytecode_bytes():
    k = vmemscope.check_kernel(read("tests", "golden", "body_copy_nogrid.mlirbc", mode="rb"))
    assert k["name"] == "copy_kernel" and k["scoped_bytes"] == 12288


def test_bad_spec_raises_with_a_position():
    with pytest.raises(vmemscope.Error) as e:
        vmemscope.check_kernel('{"name": "k", "in_specs": [')
    assert e.value.path == "kernel" and e.value.line == 1


# ---- HLO and StableHLO ----------------------------------------------------------

def test_check_hlo_finds_each_pallas_kernel_and_the_program_verdict():
    doc = vmemscope.check_hlo(read("tests", "golden", "two_kernels.hlo"))
    kernels = {i["name"]: i["kernel"] for c in doc["computations"] for i in c["instructions"] if "kernel" in i}
    assert kernels["matmul_kernel.5"]["fits"] is False and kernels["matmul_kernel.5"]["scoped_bytes"] == 64 << 20
    assert kernels["copy_kernel.6"]["fits"] is True
    assert doc["program"]["capacity_bytes"] == 128 << 20


def test_check_hlo_summary_keeps_the_custom_calls_and_the_verdicts():
    full = vmemscope.check_hlo(read("tests", "golden", "two_kernels.hlo"))
    doc = vmemscope.check_hlo(read("tests", "golden", "two_kernels.hlo"), summary=True)
    names = [i["name"] for c in doc["computations"] for i in c["instructions"]]
    assert names == ["matmul_kernel.5", "copy_kernel.6"]
    assert len(names) < sum(len(c["instructions"]) for c in full["computations"])
    assert doc["totals"] == full["totals"] and doc["program"] == full["program"]


def test_check_hlo_one_instruction():
    doc = vmemscope.check_hlo(read("tests", "golden", "two_kernels.hlo"), instruction="copy_kernel.6", target="v6e")
    assert doc["kernels"][0]["name"] == "copy_kernel" and doc["kernels"][0]["target"] == "v6e"


def test_check_hlo_takes_stablehlo_as_jax_lowers_it():
    doc = vmemscope.check_hlo(read("examples", "jit_model.stablehlo.mlir"))
    kernels = [op["kernel"] for op in doc["ops"] if "kernel" in op]
    assert doc["format"] == "stablehlo" and kernels and all("scoped_bytes" in k for k in kernels)


def test_hlo_error_names_the_line_and_column():
    with pytest.raises(vmemscope.Error) as e:
        vmemscope.check_hlo(read("tests", "golden", "unknown_operand.hlo"))
    err = e.value
    assert (err.path, err.line, err.column) == ("input.hlo", 5, 23)
    assert err.message.startswith("unknown operand %c") and "vmemscope-" not in err.text


# ---- explain and fit -------------------------------------------------------------

def test_explain_a_log():
    doc = vmemscope.explain(read("examples", "train.log"))
    e = doc["errors"][0]
    assert e["kind"] == "scoped_vmem" and e["custom_kernel"] is True
    assert e["remedies"][0]["vmem_limit_bytes"] >= e["size_bytes"]


def test_explain_linked_to_the_module():
    doc = vmemscope.explain(read("tests", "golden", "explain_hlo.log"), hlo=read("tests", "golden", "kernel.hlo"))
    assert doc["errors"][0]["linked"]["hlo"]["found"] is True


def test_fit_ranks_blocks_that_fit():
    doc = vmemscope.fit(spec(), top=3)
    assert len(doc["candidates"]) == 3 and doc["best"] == doc["candidates"][0]
    assert all(c["fits"] and c["needed_bytes"] <= doc["limit_bytes"] for c in doc["candidates"])


def test_fit_tries_the_grid_order_and_says_which():
    doc = vmemscope.fit(spec(), top=3, target="v5e", buffers=True, grid_order=True, vmem_limit_bytes=4 << 20)
    best = doc["best"]
    assert best["grid_order"] == [1, 0] and best["grid_order_changed"] is True
    assert best["buffers"] == {"x": 2, "w": 1} and best["needed_bytes"] <= 4 << 20
    own = vmemscope.fit(spec(), top=3, target="v5e", buffers=True, vmem_limit_bytes=4 << 20)["best"]
    assert "grid_order" not in own and best["time_s"] < own["time_s"]


def test_report_is_a_self_contained_page():
    page = vmemscope.report(read("examples", "gated_matmul.json"), fit=True, name="gated.json")
    assert page.startswith("<!DOCTYPE html>") and "DOES NOT FIT (E1001)" in page and 'id="pareto"' in page
    assert "gated.json" in page and "vmemscope-" not in page and "http://" not in page


def test_run_is_the_command_line():
    status, out, err = vmemscope.run("--version")
    assert status == 0 and out.startswith("vmemscope ") and err == ""
    status, _, err = vmemscope.run("nonsense")
    assert status == 2 and "unknown command" in err


# ---- finding the library, installing the package -----------------------------------

def python(code, env):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)


def test_a_wrong_library_path_is_a_clear_error():
    env = dict(os.environ, VMEMSCOPE_LIBRARY="/nonexistent/libvmemscope-cli.so", PYTHONPATH=PY)
    r = python("import vmemscope; vmemscope.size('f32[8]')", env)
    assert r.returncode != 0 and "libvmemscope-cli.so not found" in r.stderr and "/nonexistent" in r.stderr


def test_the_library_beside_the_package_is_found(tmp_path):
    shutil.copytree(os.path.join(PY, "vmemscope"), tmp_path / "vmemscope")
    shutil.copy(os.environ["VMEMSCOPE_LIBRARY"], tmp_path / "vmemscope" / "libvmemscope-cli.so")
    env = {k: v for k, v in os.environ.items() if k != "VMEMSCOPE_LIBRARY"}
    env["PYTHONPATH"] = str(tmp_path)
    r = python("import vmemscope; print(vmemscope.library_path()); print(vmemscope.size('f32[8]')['bytes'])", env)
    assert r.returncode == 0, r.stderr
    where, nbytes = r.stdout.split()
    assert where == str(tmp_path / "vmemscope" / "libvmemscope-cli.so") and nbytes == "512"


def test_pip_installs_it_offline(tmp_path):
    if subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True).returncode != 0:
        pytest.skip("pip is not installed for " + sys.executable)
    r = subprocess.run([sys.executable, "-m", "pip", "install", "--no-index", "--no-cache-dir", "--quiet",
                        "--target", str(tmp_path / "site"), PY], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "site"))
    r = python("import vmemscope; print(vmemscope.__file__); print(vmemscope.size('bf16[129,1024]')['bytes'])", env)
    assert r.returncode == 0, r.stderr
    path, nbytes = r.stdout.split()
    assert path.startswith(str(tmp_path / "site")) and nbytes == "278528"


# ---- every CLI option, by the CLI's own list -----------------------------------------

def test_fit_takes_every_option_of_the_command_by_name():
    doc = vmemscope.fit(spec(), param=["bm=256,512", "bn=256"], top=10, step_overhead_us=0.5)
    assert doc["candidates"] and all(c["params"]["bn"] == 256 and c["params"]["bm"] in (256, 512)
                                     for c in doc["candidates"])
    assert vmemscope.fit(spec(), param=["bm=512", "bn=256"], physical=True)["best"]["params"] == {"bm": 512, "bn": 256}


def test_an_option_the_command_does_not_have_is_a_type_error_naming_them():
    with pytest.raises(TypeError, match=r"vmemscope fit has no option --blocks .*allow-padding-blocks, array"):
        vmemscope.fit(spec(), blocks=3)
    with pytest.raises(TypeError, match=r"vmemscope check has no option --explain"):
        vmemscope.check_kernel(spec(), explain=True)


def test_check_kernel_takes_param_and_explain_takes_a_kernel():
    k = vmemscope.check_kernel(spec(), param=["bn=256"])
    assert k["fits"] and k["scoped_bytes"] == 13631488
    log = ("RESOURCE_EXHAUSTED: Ran out of memory in memory space vmem while allocating on stack for "
           "%gated_matmul_kernel = bf16[2048,4096]{1,0:T(8,128)(2,1)} custom-call(), custom_call_target="
           "\"tpu_custom_call\". Scoped allocation with size 28.00M and limit 16.00M exceeded scoped vmem limit by 12.00M.")
    doc = vmemscope.explain(log, kernel=spec())
    assert doc["errors"][0]["linked"]["kernel"]["scoped_bytes"] == 29360128


# ---- the wheel brings the library ------------------------------------------------------

def test_the_wheel_carries_the_library_and_needs_no_environment(tmp_path, monkeypatch):
    sys.path.insert(0, PY)
    import build_backend
    monkeypatch.setenv("VMEMSCOPE_WHEEL_LIBRARY", os.environ["VMEMSCOPE_LIBRARY"])
    name = build_backend.build_wheel(str(tmp_path))
    assert "-py3-none-linux" in name
    import zipfile
    with zipfile.ZipFile(tmp_path / name) as whl:
        assert "vmemscope/libvmemscope-cli.so" in whl.namelist()
        dist_info = "vmemscope-%s.dist-info" % vmemscope.__version__
        assert "Root-Is-Purelib: false" in whl.read(dist_info + "/WHEEL").decode()
        whl.extractall(tmp_path / "site")
    env = {k: v for k, v in os.environ.items() if k not in ("VMEMSCOPE_LIBRARY", "PYTHONPATH")}
    env["PYTHONPATH"] = str(tmp_path / "site")
    run = subprocess.run([sys.executable, "-c", "import vmemscope; print(vmemscope.size('f32[8,128]')['bytes'], "
                          "vmemscope.library_path(), vmemscope.__version__)"], capture_output=True, text=True, env=env)
    assert run.returncode == 0, run.stderr
    size, path, version = run.stdout.split()
    assert size == "4096" and path.startswith(str(tmp_path / "site"))
    assert version == vmemscope.__version__  # the wheel's _version.py, written from the header


def test_the_version_is_the_librarys():
    code, out, _ = vmemscope.run("--version")
    assert code == 0 and out.split() == ["vmemscope", vmemscope.__version__]
