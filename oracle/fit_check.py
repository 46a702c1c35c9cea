"""fit's footprints against the compiler's: for every kernel the oracle
recorded at several block sizes, fit over the first setting's module, given
each other setting's blocks, must charge the scoped bytes the compiler
reported for that setting (where vmemscope's check agrees with it, so that
what is checked is fit's rewriting of blocks, scratch and arrays, not the
window rules). Run by CTest (oracle_fit) over the committed records; no JAX.

  python3 oracle/fit_check.py --vmemscope build/vmemscope tests/oracle
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare  # noqa: E402

BLOCKS = re.compile(r"^(.*)_((?:bm|q|g8_)?\d+(?:x\d+)*(?:_k\d+|_km\d+_k\d+)?)$")


def group_key(case):
    """The kernel and arrays without the block sizes; None for a variant (a limit, buffers, internal scratch)."""
    if case.startswith(("edge_", "remedy_")) or re.search(r"_(limit|internal|buffered|causal|one_step)", case):
        return None
    m = BLOCKS.match(case)
    return m.group(1) if m else None


def run(tool, args):
    r = subprocess.run([tool] + args, capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def kernel_doc(tool, rec):
    kernels, err = compare.vmemscope_kernels(tool, rec)
    return kernels[0] if kernels and len(kernels) == 1 else None


def block_values(k):
    """{axis name: block size} from a check document's operands (windowed inputs and outputs)."""
    vals = {}
    for o in k.get("operands", []):
        if o["role"] not in ("input", "output") or not o["block"] or not o["index"]:
            continue
        for dim, axis in zip(o["block"], o["index"]):
            if isinstance(axis, str):
                vals.setdefault(axis, dim)
    return vals


def fit_scoped(tool, rec, values):
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as fh:
        fh.write(rec["input"])
        path = fh.name
    try:
        args = ["fit", path, "--target", rec["target"], "--json", "--top", "1", "--no-env", "--allow-padding-blocks"]
        for name, v in sorted(values.items()):
            args += ["--param", f"{name}={v}"]
        status, out, err = run(tool, args)
    finally:
        os.unlink(path)
    if status == 2:
        return None, err.strip().splitlines()[-1] if err.strip() else "status 2"
    doc = json.loads(out)
    cand = doc.get("best") or doc.get("smallest")
    return (cand["scoped_bytes"], cand["blocks"]) if cand else (None, "no legal candidate")


def blocks_of(k):
    return {o["name"]: o["block"] for o in k.get("operands", [])
            if o["block"] and o["space"] == "vmem" and o["role"] != "prefetch"}


def arrays_of(k):
    return {o["name"]: o.get("array") for o in k.get("operands", [])}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vmemscope", required=True)
    ap.add_argument("folder")
    opts = ap.parse_args(argv)
    if not os.path.isdir(os.path.join(opts.folder, "records")):
        print(f"SKIP: oracle_fit: no records under {opts.folder}")
        return 77
    groups = collections.defaultdict(list)
    for rec in compare.load(opts.folder):
        key = group_key(rec["case"])
        exact, _, _, _ = compare.compiler_figures(rec)
        if key and exact is not None and not rec["case"].startswith("std_"):
            groups[(rec["target"], key)].append((rec, sum(exact)))
    checked = failed = inexpressible = 0
    for (target, key), recs in sorted(groups.items()):
        recs.sort(key=lambda r: r[0]["case"])
        base = recs[0][0]
        for rec, compiler in recs[1:]:
            k = kernel_doc(opts.vmemscope, rec)
            if k is None or k["scoped_bytes"] != compiler:
                continue  # check itself disagrees here: a window rule's miss, not fit's
            if arrays_of(k) != arrays_of(kernel_doc(opts.vmemscope, base) or {}):
                inexpressible += 1  # the settings' arrays differ (a bias as large as its block): fit keeps the first's
                continue
            got, blocks = fit_scoped(opts.vmemscope, base, block_values(k))
            if isinstance(blocks, dict) and blocks != blocks_of(k):
                inexpressible += 1  # a block dim no parameter of fit's reaches (megablox gmm's tm)
                continue
            checked += 1
            if got != compiler:
                failed += 1
                print(f"FAIL {target:4} {rec['case']}: fit over {base['case']} gives {got} "
                      f"({blocks if isinstance(blocks, str) else 'scoped'}), the compiler {compiler}")
    print(f"oracle_fit: {checked - failed}/{checked} recorded settings: fit's footprint equals the compiler's "
          f"({inexpressible} more not reachable with fit's parameters)")
    return 1 if failed or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
