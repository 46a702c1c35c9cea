#!/usr/bin/env python3
"""One kernel, every reader: the same allocations and verdict whatever form
the kernel comes in (docs/api.md, "Where the decisions are": a rule of the
kernel lives in the kernel model, and readers state only facts).

  tests/readers_agree.py VMEMSCOPE ROOT

Each kernel in tests/bodies/*.json (scripts/mosaic-body's format) is written
four ways: Mosaic bytecode (base64, as custom_call_config.body carries it),
the MLIR text vmemscope mlir-text prints of it, a StableHLO module whose
tpu_custom_call carries it with its operands' whole arrays, and a JSON
kernel spec. `check --json` reads each on v5e, v6e and 7x; the windows and
scratch (kind, role, block, buffers, bytes), the exact scoped bytes and, for
a kernel whose body computes nothing the model sizes, the verdict must be
the same in every form that states the same facts. The StableHLO module and
the spec know each operand's whole array, the bare body does not: on a
target that copies a kernel's inputs into VMEM first (7x,
prefetches_inputs), those two read inputs in place where the body alone
must assume windows, so there the two pairs are held each to its own. A spec has no body: where the bytecode's body holds
a value the model sizes (a matmul's), the spec's verdict is not compared,
and the script says so. Exits 1 on the first form that differs.
"""
import json
import os
import subprocess
import sys
import tempfile

DTYPES = {"i32": ("s32", "i32"), "f32": ("f32", "f32"), "bf16": ("bf16", "bf16"), "i8": ("s8", "i8")}
TARGETS = ("v5e", "v6e", "7x")


def arrays(desc):
    """Each windowed operand's whole array: block x the extent of the axis
    each dimension follows (a constant index: the block itself)."""
    grid = desc.get("grid", [])
    out = []
    for op in desc.get("inputs", []) + desc.get("outputs", []):
        dims = []
        for d, b in enumerate(op["block"]):
            idx = op.get("index", ["c"] * len(op["block"]))[d]
            dims.append(b * grid[idx] if isinstance(idx, int) else b)
        out.append(dims)
    return out


def spec_of(desc):
    """The kernel as a JSON kernel spec (docs/kernel-spec.md)."""
    grid = desc.get("grid", [])
    axes = ["g%d" % a for a in range(len(grid))]
    whole = arrays(desc)
    spec = {"name": desc["name"], "grid_axes": axes, "grid": grid,
            "dimension_semantics": desc.get("semantics", ["arbitrary"] * len(grid))}
    ins, outs, scratch = [], [], []
    ops = desc.get("inputs", []) + desc.get("outputs", [])
    for n, op in enumerate(ops):
        o = {"name": "op%d" % n, "array": "%s[%s]" % (DTYPES[op["dtype"]][0], ",".join(map(str, whole[n]))),
             "block": op["block"]}
        if "index" in op:
            o["index_map"] = [axes[i] if isinstance(i, int) else 0 for i in op["index"]]
        if op.get("pipeline") == "synchronous":
            o["buffers"] = 1
        if op.get("space") == "any":
            o["memory_space"] = "any"
        (ins if n < len(desc.get("inputs", [])) else outs).append(o)
    for n, s in enumerate(desc.get("scratch", [])):
        if s.get("space", "vmem") == "vmem":
            scratch.append({"name": "s%d" % n, "dtype": DTYPES[s["dtype"]][0], "shape": s["shape"]})
        else:
            scratch.append({"name": "s%d" % n, "memory_space": "semaphore"})
    spec.update(in_specs=ins, out_specs=outs, scratch=scratch)
    if desc.get("prefetch"):
        spec["scalar_prefetch"] = [{"name": "p%d" % i, "array": "s32[16]"} for i in range(desc["prefetch"])]
    return spec


def stablehlo_of(desc, body):
    """A module with one tpu_custom_call carrying the body over whole arrays."""
    whole = arrays(desc)
    n_in = len(desc.get("inputs", []))
    ty = [("tensor<%sx%s>" % ("x".join(map(str, whole[i])), DTYPES[op["dtype"]][1]))
          for i, op in enumerate(desc.get("inputs", []) + desc.get("outputs", []))]
    pre = ["tensor<16xi32>"] * desc.get("prefetch", 0)
    args = pre + ty[:n_in]
    res = ty[n_in:]
    params = ", ".join("%%arg%d: %s" % (i, t) for i, t in enumerate(args))
    operands = ", ".join("%%arg%d" % i for i in range(len(args)))
    result = res[0] if len(res) == 1 else "(%s)" % ", ".join(res)
    config = '{\\22custom_call_config\\22: {\\22body\\22: \\22%s\\22}}' % body
    return ("module @jit_k attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {\n"
            "  func.func public @main(%s) -> %s {\n"
            "    %%0 = stablehlo.custom_call @tpu_custom_call(%s) {backend_config = \"%s\", kernel_name = \"%s\"} "
            ": (%s) -> %s\n"
            "    return %%0 : %s\n  }\n}\n" % (params, result, operands, config, desc["name"], ", ".join(args), result,
                                               result))


_PREFETCH = {}


def prefetches(vmemscope, target):
    """Whether the target copies a kernel's inputs into VMEM before it (the
    target table's prefetches_inputs fact)."""
    if target not in _PREFETCH:
        doc = json.loads(run(vmemscope, "targets", target, "--json"))
        facts_ = doc.get("facts", doc)
        fact = facts_.get("prefetches_inputs") if isinstance(facts_, dict) else None
        _PREFETCH[target] = bool(fact and (fact.get("value") if isinstance(fact, dict) else fact))
    return _PREFETCH[target]


def run(vmemscope, *args):
    p = subprocess.run([vmemscope, *args], capture_output=True, text=True)
    if p.returncode not in (0, 1):
        raise SystemExit("readers_agree: vmemscope %s: exit %d\n%s" % (" ".join(args), p.returncode, p.stderr))
    return p.stdout


def kernel_doc(vmemscope, path, target, fmt=None):
    args = ["check", path, "--json", "--target", target] + (["--format", fmt] if fmt else [])
    doc = json.loads(run(vmemscope, *args))
    if "kernels" in doc:
        return doc["kernels"][0]
    if "ops" in doc:
        return next(op["kernel"] for op in doc["ops"] if "kernel" in op)
    return doc


def facts(k):
    allocs = [(a["kind"], a["role"], a["block"], a["buffers"], a["bytes"]) for a in k["allocations"]
              if a["kind"] in ("window", "scratch")]
    return {"allocations": allocs, "scoped_bytes": k["scoped_bytes"], "verdict": k["verdict"],
            "modelled_bytes": k.get("modelled_bytes", 0)}


def main(argv):
    vmemscope, root = argv[1], argv[2]
    bodies = os.path.join(root, "tests", "bodies")
    compared = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name in sorted(f for f in os.listdir(bodies) if f.endswith(".json")):
            with open(os.path.join(bodies, name)) as fh:
                desc = json.load(fh)
            body = subprocess.run([sys.executable, os.path.join(root, "scripts", "mosaic-body"),
                                   os.path.join(bodies, name)], capture_output=True, text=True, check=True).stdout.strip()
            stem = os.path.join(tmp, name[:-5])
            forms = {"bytecode": stem + ".b64", "mlir": stem + ".mlir", "stablehlo": stem + ".stablehlo.mlir",
                     "spec": stem + ".spec.json"}
            with open(forms["bytecode"], "w") as fh:
                fh.write(body)
            with open(forms["mlir"], "w") as fh:
                fh.write(run(vmemscope, "mlir-text", forms["bytecode"]))
            with open(forms["stablehlo"], "w") as fh:
                fh.write(stablehlo_of(desc, body))
            with open(forms["spec"], "w") as fh:
                json.dump(spec_of(desc), fh)
            for target in TARGETS:
                seen = {form: facts(kernel_doc(vmemscope, path, target, "bytecode" if form == "bytecode" else None))
                        for form, path in forms.items()}
                pairs = [("bytecode", "mlir"), ("stablehlo", "spec")]
                if not prefetches(vmemscope, target):
                    pairs.append(("bytecode", "stablehlo"))
                for ref_form, form in pairs:
                    ref, got = seen[ref_form], seen[form]
                    keys = ["allocations", "scoped_bytes"]
                    if form != "spec" or ref["modelled_bytes"] == 0:
                        keys.append("verdict")
                    for key in keys:
                        if got[key] != ref[key]:
                            print("FAIL %s on %s: %s differs between %s and %s:\n  %-9s %s\n  %-9s %s" % (
                                name, target, key, ref_form, form, ref_form, ref[key], form, got[key]))
                            return 1
                compared += 1
                if seen["bytecode"]["modelled_bytes"]:
                    print("note: %s on %s: the body's values (%d bytes) are the bytecode's alone; the spec's verdict "
                          "is not compared" % (name, target, seen["bytecode"]["modelled_bytes"]))
    print("%d kernels x targets read alike as bytecode, MLIR text, StableHLO and spec" % compared)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
