#!/usr/bin/env python3
"""Hold vmemscope to the compiler on the generated kernels (grammar.py), one
split at a time:

  python3 oracle/gen/compare_gen.py --vmemscope build/vmemscope tests/oracle/gen --split test [--golden FILE [--update]]

Reads SPLIT/TARGET.N.jsonl.gz (record_gen.py), compares every record as
oracle/compare.py compares a hand-written one, and prints one row a record
and the measures the generalization issue is judged by:
  false fits     vmemscope says "fits", libtpu refused the kernel (out of VMEM)
  false alarms   vmemscope says "likely E1001" or "E1001", libtpu compiled it at that limit
  the ceiling    at or above libtpu's figure, over the records with a figure
  the estimate   |estimate - libtpu's figure|, median and 90th percentile
  bad output     kernels that did not lower, or that libtpu rejected for a reason that is not memory
With --golden the rows must equal FILE. Standard library only (make test).
"""
import argparse
import collections
import concurrent.futures
import gzip
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import compare  # noqa: E402  (oracle/compare.py)

MIB = 1 << 20


def load(folder, split):
    recs = []
    sub = os.path.join(folder, split)
    if not os.path.isdir(sub):
        return recs
    for name in sorted(os.listdir(sub)):
        path = os.path.join(sub, name)
        if name.endswith(".jsonl.gz"):  # packed, TARGET.N.jsonl.gz
            fh = gzip.open(path, "rt")
        elif name.endswith(".jsonl"):  # being recorded: its seeds replace the packed ones below
            fh = open(path)
        else:
            continue
        with fh:
            for line in fh:
                try:
                    recs.append(json.loads(line))
                except ValueError:
                    pass  # a line cut mid-write by a stopped recorder
    unique = {(r["target"], r["seed"]): r for r in recs}  # a seed both packed and being re-recorded: once
    return [unique[k] for k in sorted(unique)]


def outcome(rec):
    """What the compiler did: compiled, refused (out of VMEM), or bad (not lowered, other error)."""
    if rec["status"] == "compiled":
        return "compiled"
    if rec["status"] == "compile_error" and rec.get("error_kind") in ("scoped_vmem_oom", "vmem_capacity"):
        return "refused"
    return "bad"


def judge(tool, rec):
    """(rec, outcome, row of compare.compare or None, reason for bad output)."""
    out = outcome(rec)
    if out == "bad":
        first = (rec.get("error") or "").strip().splitlines()
        return rec, out, None, (rec["status"] + ": " + (first[0][:90] if first else "?"))
    return rec, out, compare.compare(tool, rec), None


def row_text(rec, out, row, why):
    if row is None:
        return f"{rec['target']:4} {rec['case']} bad      {why}"
    model = row[6] if len(row) > 6 else None
    if model is None:
        return f"{rec['target']:4} {rec['case']} {out:8} {row[2]} {row[5]}"
    figure, predicted, _, _, ceiling, verdict, *_ = model
    fig = "-" if figure is None else str(figure)
    return f"{rec['target']:4} {rec['case']} {out:8} {verdict:12} compiler {fig:>9} estimate {predicted:>9} ceiling {ceiling:>9}"


def measures(judged):
    """The issue's measures over the judged records, as lines."""
    rows = [(rec, out, row) for rec, out, row, _ in judged if row is not None and len(row) > 6]
    bad = [(rec, why) for rec, out, row, why in judged if row is None]
    n = len(rows)
    false_fits = [(rec, row) for rec, out, row in rows if out == "refused" and row[6][5] == "fits"]
    alarms = [(rec, row) for rec, out, row in rows if out == "compiled" and row[6][5] in ("likely_e1001", "e1001")]
    risk = collections.Counter(out for rec, out, row in rows if row[6][5] == "at_risk")
    right = sum(1 for rec, out, row in rows if row[6][3])
    figs = [(rec, row[6]) for rec, out, row in rows if row[6][0] is not None]
    held = [f for f in figs if f[1][0] <= f[1][4]]
    errs = sorted(abs(m[1] - m[0]) for _, m in figs)
    pct = (lambda a, b: 100.0 * a / b if b else 0.0)
    out = [f"records judged: {n} (compiled {sum(1 for r in rows if r[1] == 'compiled')}, refused "
           f"{sum(1 for r in rows if r[1] == 'refused')}); bad generator output: {len(bad)}",
           f"verdicts equal to the compiler's: {right}/{n} ({pct(right, n):.1f}%); 'at risk': "
           f"{risk['compiled']} compiled, {risk['refused']} refused",
           f"false fits (vmemscope fits, libtpu refused): {len(false_fits)} ({pct(len(false_fits), n):.2f}%)",
           f"false alarms (vmemscope over, libtpu compiled): {len(alarms)} ({pct(len(alarms), n):.2f}%)",
           f"the ceiling at or above libtpu's figure: {len(held)}/{len(figs)} ({pct(len(held), len(figs)):.2f}%)",
           (f"estimate |error|: median {errs[len(errs) // 2] / MIB:.3f} MiB, 90th percentile "
            f"{errs[len(errs) * 9 // 10] / MIB:.3f} MiB over {len(errs)}") if errs else "estimate: no figure"]
    near = [1 for rec, out_, row in rows if row[6][0] is not None and abs(row[6][0] - row[6][9]) <= 0.25 * row[6][9]]
    out.append(f"near their limit (libtpu's figure within 25% of it): {len(near)}/{len(figs)}")
    per = collections.Counter((rec["target"], kind) for rec, row in false_fits for kind in ["fit"])
    per.update((rec["target"], "alarm") for rec, row in alarms)
    if per:
        out.append("by target: " + ", ".join(f"{t} {k} {n}" for (t, k), n in sorted(per.items())))
    out += [f"  false fit: {rec['target']} {rec['case']} compiler {row[6][0]} ceiling {row[6][4]}"
            for rec, row in false_fits]
    out += [f"  false alarm: {rec['target']} {rec['case']} compiler {row[6][0]} estimate {row[6][1]}"
            for rec, row in alarms]
    out += [f"  ceiling under by {m[0] - m[4]} B: {rec['target']} {rec['case']}" for rec, m in figs if m[0] > m[4]]
    kinds = collections.Counter(why.split(":")[0] for _, why in bad)
    if bad:
        out.append("bad generator output by kind: " + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vmemscope", required=True)
    ap.add_argument("--split", choices=("fit", "test"), required=True)
    ap.add_argument("--golden")
    ap.add_argument("--update", action="store_true")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("folder")
    opts = ap.parse_args(argv)
    recs = load(opts.folder, opts.split)
    if not recs:
        print(f"SKIP: oracle_gen: no {opts.split} records under {opts.folder}")
        return 77
    with concurrent.futures.ThreadPoolExecutor(opts.jobs) as pool:
        judged = list(pool.map(lambda r: judge(opts.vmemscope, r), recs))
    table = "".join(row_text(rec, out, row, why) + "\n" for rec, out, row, why in judged)
    report = "\n".join(measures(judged)) + "\n"
    sys.stdout.write(report)
    return compare.hold(table, opts.golden, opts.update,
                        f"oracle_gen: the {opts.split} table changed (compare_gen.py ... --golden FILE --update once understood)")


if __name__ == "__main__":
    sys.exit(main())
