#!/usr/bin/env python3
"""Compile oracle cases with the real TPU compiler (libtpu, ahead of time, no
TPU needed) and write one JSON record per (case, target).

  .venv-oracle/bin/python oracle/record.py --target v5e [--out DIR] [CASE-GLOB...]

A record holds what vmemscope reads (the lowered StableHLO, with each
tpu_custom_call's Mosaic body) and what the compiler said of it: each
custom call's used_scoped_memory_configs when it compiled, the error
verbatim when it did not, and memory_analysis(). Wall times go to a
separate timings file so that re-recording with the same versions gives
byte-identical records.
"""
import argparse
import fnmatch
import json
import os
import re
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ.setdefault("TPU_SKIP_MDS_QUERY", "1")
# Two recorders at once (make -j, or one per target) each load libtpu.
os.environ.setdefault("ALLOW_MULTIPLE_LIBTPU_LOAD", "1")
# libtpu looks for a TPU VM's metadata; these quiet its search on a plain host.
os.environ.setdefault("TPU_ACCELERATOR_TYPE", "")
os.environ.setdefault("TPU_WORKER_HOSTNAMES", "localhost")

import jax  # noqa: E402
import numpy as np  # noqa: E402
from jax.experimental import topologies  # noqa: E402
from jax.sharding import Mesh, NamedSharding, PartitionSpec  # noqa: E402

# No Python frames in the ops' locations: they carry the line numbers of the
# case files (and of JAX's), which would change every record below a line
# edited there, in the StableHLO, the Mosaic bytecode and the compiled HLO
# alike. vmemscope reads none of them; without them a record depends on the
# case and the versions alone, and re-recording gives the same bytes.
jax.config.update("jax_traceback_in_locations_limit", 0)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cases import edges, jaxops, own, remedies, standard  # noqa: E402
from kinds import error_kind  # noqa: E402,F401  (record_gen.py imports it from here too)

# vmemscope's target name -> the topology name libtpu takes.
TOPOLOGIES = {
    "v2": "v2:2x2", "v3": "v3:2x2", "v4": "v4:2x2x1", "v5e": "v5e:2x2",
    "v5p": "v5p:2x2x1", "v6e": "v6e:2x2", "7x": "tpu7x:2x2x1",
}

PROJECT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

ALL_CASES = {**own.CASES, **jaxops.CASES, **standard.CASES, **edges.CASES, **remedies.CASES}
# A case compiled under compiler options of its own (a limit), and the targets it is for.
FLAGS = {**edges.FLAGS, **remedies.FLAGS}
TARGETS = {**edges.TARGETS, **remedies.TARGETS}

_NAME = re.compile(r'^\s*(?:ROOT\s+)?%([^\s=]+)\s*=')
_USED = re.compile(r'"used_scoped_memory_configs":(\[[^\]]*\])')


def versions():
    import jaxlib
    import libtpu
    out = {"jax": jax.__version__, "jaxlib": jaxlib.__version__}
    out["libtpu"] = getattr(libtpu, "__version__", None) or _dist_version("libtpu")
    return out


def _dist_version(name):
    from importlib import metadata
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def custom_calls(compiled_text):
    """Each tpu_custom_call of the compiled module: its name and the scoped
    memory the compiler gave it."""
    out = []
    for line in compiled_text.splitlines():
        if 'custom_call_target="tpu_custom_call"' not in line:
            continue
        name = _NAME.match(line)
        used = _USED.search(line)
        configs = json.loads(used.group(1)) if used else []
        out.append({
            "name": name.group(1) if name else None,
            "used_scoped_memory_configs": [
                {k: int(v) for k, v in c.items()} for c in configs],
        })
    return out


def result_in_vmem(compiled_text):
    """Whether XLA placed some tpu_custom_call's result in VMEM (S(1) in the
    result's layout): what the kernel allocates then depends on the compiled
    module, whose S(1) operands and results it reads and writes in place."""
    for line in compiled_text.splitlines():
        if 'custom_call_target="tpu_custom_call"' in line:
            result = line.split(" = ", 1)[-1].split(" custom-call(", 1)[0]
            if "S(1)" in result:
                return True
    return False


def memory_stats(compiled):
    stats = compiled.memory_analysis()
    if stats is None:
        return None
    keys = ("argument_size_in_bytes", "output_size_in_bytes", "alias_size_in_bytes",
            "temp_size_in_bytes", "generated_code_size_in_bytes")
    return {k: int(getattr(stats, k)) for k in keys if hasattr(stats, k)}


# An E1001 prints its sizes rounded (32.00M). To learn the byte figure, the
# case is compiled again with the global scoped limit raised to this; a kernel
# whose own vmem_limit_bytes is set keeps it, and then this finds nothing new.
RAISED_LIMIT_KIB = 131072


def raised_limit(lowered):
    """The same module compiled under RAISED_LIMIT_KIB: its custom calls'
    used scoped memory, or the error it gave."""
    out = {"xla_tpu_scoped_vmem_limit_kib": RAISED_LIMIT_KIB}
    try:
        compiled = lowered.compile(
            compiler_options={"xla_tpu_scoped_vmem_limit_kib": RAISED_LIMIT_KIB})
    except Exception as e:
        text = str(e)
        out.update(status="compile_error", error_kind=error_kind(text), error=clip(text))
        return out
    out.update(status="compiled", custom_calls=custom_calls(compiled.as_text()))
    return out


# XLA's buffer assignment (--xla_dump_to) lists each allocation with its
# memory-space colour: colour 1 is VMEM, what the compiler placed there for
# the whole program (S(1)), with each value's offset inside it.
_ALLOCATION = re.compile(r"^allocation (\d+): size (\d+)(.*)$")
_VALUE = re.compile(r"^ value: <\d+ (\S+) @\d+> \(size=(\d+),offset=(\d+)\): (.*)$")


def vmem_assignment(text):
    """The colour-1 (VMEM) allocations of a buffer-assignment dump: each
    one's size and its values (name, size, offset), in the dump's order."""
    out, current = [], None
    for line in text.splitlines():
        m = _ALLOCATION.match(line)
        if m:
            current = None
            if re.search(r"\bcolor 1\b", m.group(3)):
                current = {"allocation": int(m.group(1)), "size": int(m.group(2)), "values": []}
                out.append(current)
            continue
        m = _VALUE.match(line)
        if m and current is not None:
            current["values"].append({"name": m.group(1), "size": int(m.group(2)), "offset": int(m.group(3))})
    return out


def assigned_vmem(lowered):
    """The module compiled once more with a dump folder: its VMEM
    allocations (vmem_assignment), or None when no dump was written."""
    with tempfile.TemporaryDirectory() as folder:
        lowered.compile(compiler_options={"xla_dump_to": folder})
        for name in sorted(os.listdir(folder)):
            if name.endswith(".after_optimizations-buffer-assignment.txt"):
                with open(os.path.join(folder, name)) as fh:
                    return vmem_assignment(fh.read())
    return None


# A compiler error is kept verbatim up to this many bytes: an allocation
# listing can run past a megabyte, and the tests read its first lines.
MAX_ERROR = 65536


def clip(text):
    if len(text) <= MAX_ERROR:
        return text
    return text[:MAX_ERROR] + f"\n[... {len(text) - MAX_ERROR} more bytes of the error cut by record.py]\n"


def lower_case(name, mesh):
    """The case lowered for the mesh's device, as jit lowers it."""
    os.environ["VMEMSCOPE_ORACLE_DEVICE_KIND"] = mesh.devices.flat[0].device_kind
    fn, args = ALL_CASES[name]()
    shard = NamedSharding(mesh, PartitionSpec())
    args = [jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=shard) for a in args]
    jitted = jax.jit(fn, in_shardings=tuple(shard for _ in args))
    # Pallas asks the device it lowers for its kind (tpu_info); without the
    # mesh's abstract device in context it would find the CPU host's.
    with jax.sharding.use_abstract_mesh(mesh.abstract_mesh):
        return jitted.lower(*args)


def record_one(name, target, mesh):
    rec = {"case": name, "target": target, "topology": TOPOLOGIES[target],
           "versions": versions()}
    try:
        lowered = lower_case(name, mesh)
    except Exception as e:  # a case that does not lower is recorded as such
        rec.update(status="lower_error", error=f"{type(e).__name__}: {e}")
        return rec, 0.0
    rec["input"] = lowered.as_text()
    options = FLAGS.get(name)  # a case compiled at a limit of its own
    if options:
        rec["flags"] = options
    t0 = time.perf_counter()
    try:
        compiled = lowered.compile(compiler_options=options) if options else lowered.compile()
    except Exception as e:
        seconds = time.perf_counter() - t0
        text = str(e) or type(e).__name__
        rec.update(status="compile_error", error_kind=error_kind(text), error=clip(text))
        if rec["error_kind"] == "scoped_vmem_oom":
            rec["raised_limit"] = raised_limit(lowered)
        return rec, seconds
    seconds = time.perf_counter() - t0
    # The compiled HLO names the source files of its ops (FileNames); keep them
    # relative to the project, so that a record does not depend on where the
    # checkout lies.
    text = compiled.as_text().replace(PROJECT + os.sep, "")
    rec.update(status="compiled", custom_calls=custom_calls(text), memory_analysis=memory_stats(compiled))
    if name in standard.CASES:  # what vmemscope sizes: the scheduled HLO with its scoped configs
        rec["compiled_hlo"] = text
        rec["vmem_assignment"] = assigned_vmem(lowered)  # what its planner is held to
    elif result_in_vmem(text):  # the kernel's operands placed in VMEM are known from the module alone
        rec["compiled_module"] = text
    return rec, seconds


def record_apart(name, target, mesh):
    """record_one in a process of its own: a case compiled under flags can
    make libtpu abort (a CHECK failure kills the process, which no except
    clause catches), and the abort is then the record, as a compile error
    of its own kind with the compiler's first fatal line."""
    with tempfile.TemporaryDirectory() as out:
        run = subprocess.run([sys.executable, os.path.abspath(__file__), "--target", target, "--out", out,
                              "--apart", name], capture_output=True, text=True)
        path = os.path.join(out, "records", target, name + ".json")
        if run.returncode == 0 and os.path.exists(path):
            with open(path) as fh:
                rec = json.load(fh)
            with open(os.path.join(out, "timings", f"{target}.json")) as fh:
                return rec, json.load(fh)[name]
    # its first fatal line, less the time and thread that prefix it
    fatal = [re.sub(r"^F\d{4} \S+\s+\d+ ", "", line) for line in run.stderr.splitlines()
             if re.match(r"^F\d{4} ", line)]
    rec = {"case": name, "target": target, "topology": TOPOLOGIES[target], "versions": versions(),
           "input": lower_case(name, mesh).as_text(), "flags": FLAGS.get(name),
           "status": "compile_error", "error_kind": "compiler_crash",
           "error": clip(f"the compiler process ended with status {run.returncode}: " +
                         (fatal[0] if fatal else run.stderr.strip()[-2000:]))}
    return rec, 0.0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--target", action="append", required=True,
                    help="vmemscope target name (repeatable): " + ", ".join(TOPOLOGIES))
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "tests", "oracle"))
    ap.add_argument("--apart", action="store_true", help=argparse.SUPPRESS)  # record_apart's child
    ap.add_argument("cases", nargs="*", default=["*"], help="case names or globs (default: all)")
    opts = ap.parse_args(argv)
    names = sorted(n for n in ALL_CASES if any(fnmatch.fnmatch(n, g) for g in opts.cases))
    if not names:
        ap.error("no case matches " + " ".join(opts.cases))
    for target in opts.target:
        if target not in TOPOLOGIES:
            ap.error(f"unknown target {target!r}; known: {', '.join(TOPOLOGIES)}")
        try:
            topo = topologies.get_topology_desc(platform="tpu", topology_name=TOPOLOGIES[target])
        except Exception as e:
            print(f"{target}: libtpu offers no topology {TOPOLOGIES[target]}: {e}", file=sys.stderr)
            continue
        mesh = Mesh(np.array(topo.devices[:1]), ("x",))
        folder = os.path.join(opts.out, "records", target)
        os.makedirs(folder, exist_ok=True)
        timings_path = os.path.join(opts.out, "timings", f"{target}.json")
        os.makedirs(os.path.dirname(timings_path), exist_ok=True)
        timings = {}
        if os.path.exists(timings_path):
            with open(timings_path) as fh:
                timings = json.load(fh)
        for name in names:
            if target not in TARGETS.get(name, (target,)):
                continue  # a case of one target's limits
            apart = name in edges.FLAGS and not opts.apart
            rec, seconds = record_apart(name, target, mesh) if apart else record_one(name, target, mesh)
            with open(os.path.join(folder, name + ".json"), "w") as fh:
                json.dump(rec, fh, indent=1, sort_keys=True)
                fh.write("\n")
            timings[name] = round(seconds, 3)
            print(f"{target:4} {name:55} {rec['status']:14} {rec.get('error_kind', '')} {seconds:.2f}s",
                  flush=True)
        with open(timings_path, "w") as fh:
            json.dump(timings, fh, indent=1, sort_keys=True)
            fh.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
