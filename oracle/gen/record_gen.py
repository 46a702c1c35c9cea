#!/usr/bin/env python3
"""Record generated kernels (grammar.py) with the real TPU compiler, the way
oracle/record.py records the hand-written cases, into one JSON-lines file
per (split, target):

  .venv-oracle/bin/python oracle/gen/record_gen.py --target v5e --seeds 0:4000 [--split test] [--out DIR]

Each line is a record as compare.py reads it (case, target, status,
error_kind, error, input, custom_calls, raised_limit), the kernel's spec
beside it, and only that: no compiled module (result_in_vmem says whether
XLA placed the kernel's result in VMEM), errors cut to MAX_ERROR. A kernel
that does not lower, or that the compiler rejects for a reason that is not
memory, is recorded with that status, never dropped. Recording resumes: a
seed already in the file is skipped. `--pack` gzips each file (what is
committed, tests/oracle/gen/SPLIT/TARGET.N.jsonl.gz, 1,000 records a file).
"""
import argparse
import gzip
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
import record  # noqa: E402  (oracle/record.py: the environment, topologies, the compiler's figures)
import grammar  # noqa: E402

import jax  # noqa: E402
import numpy as np  # noqa: E402
from jax.experimental import topologies  # noqa: E402
from jax.sharding import Mesh, NamedSharding, PartitionSpec  # noqa: E402

MAX_ERROR = 4096  # an E1001's figures are in its first lines


def lower(spec, mesh):
    os.environ["VMEMSCOPE_ORACLE_DEVICE_KIND"] = mesh.devices.flat[0].device_kind
    fn, args = grammar.build(spec)
    shard = NamedSharding(mesh, PartitionSpec())
    args = [jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=shard) for a in args]
    jitted = jax.jit(fn, in_shardings=tuple(shard for _ in args))
    with jax.sharding.use_abstract_mesh(mesh.abstract_mesh):
        return jitted.lower(*args)


def _cut(text):
    return text if len(text) <= MAX_ERROR else text[:MAX_ERROR] + "\n[... cut by record_gen.py]\n"


def record_one(spec, target, mesh):
    rec = {"case": f"gen_{spec['seed']:06d}", "target": target, "seed": spec["seed"], "spec": spec}
    try:
        lowered = lower(spec, mesh)
    except Exception as e:  # bad generator output: recorded as such
        rec.update(status="lower_error", error=_cut(f"{type(e).__name__}: {e}"))
        return rec, 0.0
    rec["input"] = lowered.as_text()
    t0 = time.perf_counter()
    try:
        compiled = lowered.compile()
    except Exception as e:
        seconds = time.perf_counter() - t0
        text = str(e) or type(e).__name__
        rec.update(status="compile_error", error_kind=record.error_kind(text), error=_cut(text))
        if rec["error_kind"] == "scoped_vmem_oom":
            raised = record.raised_limit(lowered)
            if "error" in raised:
                raised["error"] = _cut(raised["error"])
            rec["raised_limit"] = raised
        return rec, seconds
    seconds = time.perf_counter() - t0
    text = compiled.as_text()
    rec.update(status="compiled", custom_calls=record.custom_calls(text), result_in_vmem=record.result_in_vmem(text))
    return rec, seconds


def seen(path):
    out = set()
    if os.path.exists(path):
        with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as fh:
            for line in fh:
                try:
                    out.add(json.loads(line)["seed"])
                except (ValueError, KeyError):
                    pass  # a line cut by a stop mid-write: recorded again
    return out


CHUNK = 1000  # records per packed file: each stays under 2 MiB


def packed(folder, split, target):
    """The packed files of one split and target, in order: TARGET.N.jsonl.gz."""
    sub = os.path.join(folder, split)
    names = [n for n in os.listdir(sub) if n.startswith(target + ".") and n.endswith(".jsonl.gz")] if os.path.isdir(
        sub) else []
    return [os.path.join(sub, n) for n in sorted(names, key=lambda n: int(n.split(".")[1]))]


def pack(folder):
    """Each SPLIT/TARGET.jsonl with what is packed already, sorted by seed,
    gzipped with no time stamp (the same records give the same bytes) into
    SPLIT/TARGET.N.jsonl.gz, CHUNK records a file."""
    for split in sorted(os.listdir(folder)):
        sub = os.path.join(folder, split)
        if not os.path.isdir(sub):
            continue
        for name in sorted(os.listdir(sub)):
            if not name.endswith(".jsonl"):
                continue
            target, path = name[:-len(".jsonl")], os.path.join(sub, name)
            recs, old = {}, packed(folder, split, target)
            for p in old + [path]:
                with (gzip.open(p, "rt") if p.endswith(".gz") else open(p)) as fh:
                    for line in fh:
                        try:
                            r = json.loads(line)
                        except ValueError:
                            continue
                        recs[r["seed"]] = r
            for p in old:
                os.unlink(p)
            seeds = sorted(recs)
            for n, at in enumerate(range(0, len(seeds), CHUNK)):
                with open(os.path.join(sub, f"{target}.{n}.jsonl.gz"), "wb") as raw:
                    with gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=9, mtime=0, filename="") as gz:
                        for seed in seeds[at:at + CHUNK]:
                            gz.write((json.dumps(recs[seed], sort_keys=True) + "\n").encode())
            print(f"{split}/{target}: {len(recs)} records")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--target", action="append", default=[])
    ap.add_argument("--seeds", default="0:100", help="A:B, the seeds A to B-1")
    ap.add_argument("--split", choices=("fit", "test", "both"), default="both")
    ap.add_argument("--out", default=os.path.join(record.PROJECT, "tests", "oracle", "gen"))
    ap.add_argument("--pack", action="store_true", help="gzip the JSON-lines files and stop")
    opts = ap.parse_args(argv)
    if opts.pack:
        pack(opts.out)
        return 0
    lo, hi = (int(x) for x in opts.seeds.split(":"))
    seeds = [s for s in range(lo, hi) if opts.split in ("both", grammar.split(s))]
    meshes = {}
    for target in opts.target:
        topo = topologies.get_topology_desc(platform="tpu", topology_name=record.TOPOLOGIES[target])
        meshes[target] = Mesh(np.array(topo.devices[:1]), ("x",))
    files, done = {}, {}
    for target in opts.target:
        for split in ("fit", "test"):
            path = os.path.join(opts.out, split, target + ".jsonl")
            os.makedirs(os.path.dirname(path), exist_ok=True)
            done[(split, target)] = seen(path).union(*(seen(p) for p in packed(opts.out, split, target)))
            files[(split, target)] = open(path, "a")
    for seed in seeds:
        spec = grammar.draw(seed)
        split = grammar.split(seed)
        for target in opts.target:
            if seed in done[(split, target)]:
                continue
            rec, seconds = record_one(spec, target, meshes[target])
            fh = files[(split, target)]
            fh.write(json.dumps(rec, sort_keys=True) + "\n")
            fh.flush()
            print(f"{target:4} {split:4} {rec['case']} {rec['status']:14} {rec.get('error_kind', '')} {seconds:.2f}s",
                  flush=True)
    for fh in files.values():
        fh.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
