#!/usr/bin/env python3
"""vmemscope's own compile (check --compile: libtpu through its PJRT C API,
from C) against the oracle's records (libtpu through JAX): the same module,
the same target and flags, must give the same answer.

  python3 oracle/compile_check.py --vmemscope build/vmemscope [--libtpu PATH] [--jobs 2] tests/oracle

For every record with a lowered module: compiled or not as recorded; when
compiled, each kernel's used scoped VMEM (the records' custom_calls, as a
multiset: the two paths name the instructions differently) and the memory
analysis; when refused, the same kind of error and, for an E1001, the same
first line. Exit 0 when every record agrees, 1 otherwise, 77 (skip) when no
libtpu is to be had (VMEMSCOPE_REQUIRE_LIBTPU=1 turns that into a failure).
"""
import argparse
import concurrent.futures
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PROJECT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from kinds import error_kind  # noqa: E402  (record.py's classification)


def find_libtpu(given):
    if given:
        return given
    if os.environ.get("VMEMSCOPE_LIBTPU"):
        return os.environ["VMEMSCOPE_LIBTPU"]
    for venv in (".venv", ".venv-oracle"):
        found = sorted(glob.glob(os.path.join(PROJECT, venv, "lib", "python3*", "site-packages", "libtpu",
                                              "libtpu.so")))
        if found:
            return found[0]
    return None


def first_line(text):
    """The message's first line, less the status name JAX puts before it."""
    line = text.strip().splitlines()[0] if text.strip() else ""
    return re.sub(r"^[A-Z_]+: ", "", line)


def check_one(vmemscope, libtpu, path, timeout):
    with open(path) as fh:
        rec = json.load(fh)
    if "input" not in rec:
        return path, "skip", "", "no lowered module (%s)" % rec.get("status")
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as fh:
        fh.write(rec["input"])
        module = fh.name
    args = [vmemscope, "check", module, "--compile", "--json", "--libtpu", libtpu, "--target", rec["target"],
            "--compile-timeout", str(timeout), "--no-env"]
    limit = (rec.get("flags") or {}).get("xla_tpu_scoped_vmem_limit_kib")
    if limit is not None:
        args += ["--flags", "--xla_tpu_scoped_vmem_limit_kib=%d" % limit]
    try:
        run = subprocess.run(args, capture_output=True, text=True, timeout=timeout + 60)
    except (OSError, subprocess.TimeoutExpired) as e:
        return path, "fail", "no_answer", "vmemscope did not run: %s" % e
    finally:
        os.unlink(module)
    try:
        doc = json.loads(run.stdout)
        got = doc["compiler"]
    except (ValueError, KeyError):
        return path, "fail", "no_answer", "no compiler answer (exit %d): %s" % (run.returncode, run.stderr.strip()[-300:])
    return (path, *compare(rec, got))


def compare(rec, got):
    want = rec["status"]
    if want == "compiled":
        if got["status"] != "compiled":
            return "fail", "status", "recorded compiled; vmemscope's compile: %s %s" % (
                got["status"], first_line(got["error"] or ""))
        sizes = sorted(sum(c["size"] for c in call["used_scoped_memory_configs"] if c["memory_space"] == 1)
                       for call in rec["custom_calls"] if call["used_scoped_memory_configs"])
        mine = sorted(k["figure_bytes"] for k in got["compiled_kernels"] if k["figure_bytes"] is not None)
        bare = sum(1 for call in rec["custom_calls"] if not call["used_scoped_memory_configs"])
        if sizes != mine:
            # a call the record holds no figure for: the one compiled here must still hold every recorded one
            rest = list(mine)
            held = all(rest.remove(x) is None for x in sizes if x in rest) and len(rest) == len(mine) - len(sizes)
            if bare and held:
                return "fail", "no_recorded_figure", "the record has no figure for %d call%s; compiled %s" % (
                    bare, "" if bare == 1 else "s", mine)
            return "fail", "figures", "scoped bytes %s recorded, %s compiled" % (sizes, mine)
        if rec.get("memory_analysis") and got["memory_analysis"] != rec["memory_analysis"]:
            return "fail", "memory_analysis", "memory analysis %s recorded, %s compiled" % (
                rec["memory_analysis"], got["memory_analysis"])
        return "ok", "", "compiled, %d kernel figure%s equal" % (len(sizes), "" if len(sizes) == 1 else "s")
    if rec.get("error_kind") == "compiler_crash":
        if got["status"] == "crashed":
            return "ok", "", "crashed, as recorded"
        return "fail", "status", "recorded a compiler crash; vmemscope's compile: %s" % got["status"]
    if got["status"] != "refused":
        return "fail", "status", "recorded %s; vmemscope's compile: %s" % (rec.get("error_kind"), got["status"])
    kind = error_kind(got["error"] or "")
    if kind != rec["error_kind"]:
        return "fail", "error_kind", "recorded %s; compiled %s: %s" % (
            rec["error_kind"], kind, first_line(got["error"] or ""))
    if kind == "scoped_vmem_oom" and first_line(got["error"]) != first_line(rec["error"]):
        return "fail", "e1001_wording", "E1001 worded differently:\n    recorded %s\n    compiled %s" % (
            first_line(rec["error"]), first_line(got["error"]))
    return "ok", "", "refused (%s), as recorded" % kind


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vmemscope", required=True)
    ap.add_argument("--libtpu")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=180)
    ap.add_argument("--every", type=int, default=1, help="check every Nth record (a quick look)")
    ap.add_argument("--golden", help="the known differences (RECORD: KIND per line): the run passes when it finds "
                                     "exactly these")
    ap.add_argument("--write-golden", action="store_true", help="write the differences found to --golden")
    ap.add_argument("folder")
    opts = ap.parse_args(argv)
    libtpu = find_libtpu(opts.libtpu)
    if not libtpu or not os.path.exists(libtpu):
        msg = "no libtpu (give --libtpu, set VMEMSCOPE_LIBTPU, or make test installs it into .venv)"
        if os.environ.get("VMEMSCOPE_REQUIRE_LIBTPU") == "1":
            print("oracle_compile: " + msg + ", and VMEMSCOPE_REQUIRE_LIBTPU=1", file=sys.stderr)
            return 1
        print("SKIP: oracle_compile: " + msg)
        return 77
    paths = sorted(glob.glob(os.path.join(opts.folder, "records", "*", "*.json")))[::opts.every]
    start = time.time()
    counts = {"ok": 0, "fail": 0, "skip": 0}
    found = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=opts.jobs) as pool:
        for path, verdict, kind, detail in pool.map(lambda p: check_one(opts.vmemscope, libtpu, p, opts.timeout),
                                                     paths):
            counts[verdict] += 1
            if verdict == "fail":
                found["%s: %s" % (os.path.relpath(path, opts.folder), kind)] = detail
    known = set()
    if opts.golden and os.path.exists(opts.golden) and not opts.write_golden:
        with open(opts.golden) as fh:
            known = {l.strip() for l in fh if l.strip() and not l.startswith("#")}
        if opts.every > 1:  # a sample: only the known differences it looked at
            looked = {os.path.relpath(p, opts.folder) for p in paths}
            known = {k for k in known if k.split(": ")[0] in looked}
    new = sorted(set(found) - known)
    gone = sorted(known - set(found))
    for key in new:
        print("NEW DIFFERENCE %s\n    %s" % (key, found[key]))
    for key in gone:
        print("GONE (the golden lists it, the run did not find it): %s" % key)
    print("%d records: %d agree with vmemscope's own compile, %d differ (%d of them known), %d without a module "
          "(%.0f s, %s)" % (len(paths), counts["ok"], counts["fail"], counts["fail"] - len(new), counts["skip"],
                            time.time() - start, libtpu))
    if opts.write_golden and opts.golden:
        with open(opts.golden, "w") as fh:
            fh.write("# oracle/compile_check.py: records where vmemscope's compile (libtpu from C) differs from the\n"
                     "# record (libtpu through JAX), each with its kind; docs/compiler.md says why each kind arises.\n")
            for key in sorted(found):
                fh.write(key + "\n")
        return 0
    if not opts.golden:
        return 1 if counts["fail"] else 0
    return 1 if new or gone else 0


if __name__ == "__main__":
    sys.exit(main())
