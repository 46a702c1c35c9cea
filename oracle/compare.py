#!/usr/bin/env python3
"""Hold vmemscope to the TPU compiler's own figures.

  python3 oracle/compare.py --vmemscope build/vmemscope tests/oracle [--golden FILE [--update]]

For every record under DIR/records/TARGET/CASE.json (written by record.py),
runs `vmemscope check --json --target TARGET` on the record's input and
compares, kernel by kernel:
  bytes    vmemscope's scoped_bytes against the compiler's used scoped VMEM
           (used_scoped_memory_configs; for an E1001, the same module
           compiled again under a raised limit, else the message's rounded
           size, as an interval)
  limit    vmemscope's limit against the one the E1001 names
  verdict  vmemscope's fits against whether the compiler compiled it
and, for a standard program whose record keeps the compiler's buffer
assignment, a second row (CASE:S(1)): the program-scoped VMEM vmemscope's
planner packs against the size of the compiler's colour-1 (VMEM)
allocation, and the values placed there.
Prints one row per (case, target), then the agreement per case family.
With --golden, the rows must equal FILE (the known state, disagreements
and their reasons included); --update rewrites it. Standard library only:
it runs in `make test` with no JAX.
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile

_SIZE = re.compile(r"Scoped allocation with size ([0-9.]+)([KMG]?) and limit ([0-9.]+)([KMG]?)")
_UNIT = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def rounded(value, unit):
    """A figure printed with two decimals, as the interval of bytes it covers."""
    scale = _UNIT[unit]
    v = float(value)
    return (v - 0.005) * scale, (v + 0.005) * scale


def scoped_vmem(call):
    return sum(c["size"] for c in call["used_scoped_memory_configs"] if c["memory_space"] == 1)


def compiler_figures(rec):
    """(list of exact byte figures or None, interval or None, limit interval or None, compiled)."""
    if rec["status"] == "compiled":
        if any(not c["used_scoped_memory_configs"] for c in rec["custom_calls"]):
            return None, None, None, True  # the compiled module states no figure for some call (splash attention)
        return [scoped_vmem(c) for c in rec["custom_calls"]], None, None, True
    exact = None
    raised = rec.get("raised_limit")
    if raised and raised.get("status") == "compiled":
        exact = [scoped_vmem(c) for c in raised["custom_calls"]]
    m = _SIZE.search(rec.get("error", ""))
    size = rounded(m.group(1), m.group(2)) if m else None
    limit = rounded(m.group(3), m.group(4)) if m else None
    return exact, size, limit, False


def flag_text(flags):
    """A record's compiler options as libtpu flags (vmemscope check --flags)."""
    return " ".join(f"--{k}={v}" for k, v in sorted((flags or {}).items()))


def check_json(tool, target, text, suffix, flags=None):
    """`vmemscope check --json` on text, under the record's compiler options:
    (document, None), or (None, its error line) on bad input."""
    with tempfile.NamedTemporaryFile("w", suffix=suffix, delete=False) as fh:
        fh.write(text)
        path = fh.name
    cmd = [tool, "check", "--json", "--no-env", "--target", target, path]
    if flags:
        cmd += ["--flags", flag_text(flags)]
    try:
        run = subprocess.run(cmd, capture_output=True, text=True)
    finally:
        os.unlink(path)
    if run.returncode == 2:
        return None, run.stderr.strip().splitlines()[-1] if run.stderr.strip() else "status 2"
    return json.loads(run.stdout), None


def explain_abort(tool, rec):
    """What `vmemscope explain` reads in an abort's message: its kind, and
    the global limit it derives against the record's flag."""
    run = subprocess.run([tool, "explain", "--json", "-"], input=rec["error"], capture_output=True, text=True)
    errors = json.loads(run.stdout).get("errors", []) if run.returncode in (0, 1) else []
    if not errors:
        return "explain finds nothing"
    e, kib = errors[0], (rec.get("flags") or {}).get("xla_tpu_scoped_vmem_limit_kib")
    if e["kind"] != "emitter_abort":
        return "explain reads " + e["kind"]
    if kib is not None and e["limit_bytes"] == kib * 1024:
        return "explain: emitter_abort at the flag's %d KiB" % kib
    return "explain: emitter_abort, limit %s against the flag's %s KiB" % (e["limit_bytes"], kib)


def vmemscope_kernels(tool, rec):
    doc, err = check_json(tool, rec["target"], rec["input"], ".mlir", rec.get("flags"))
    if doc is None:
        return None, err
    return [op["kernel"] for op in doc.get("ops", []) if "kernel" in op], None


def raised_kernels(tool, rec, kernels):
    """vmemscope's kernels under the raised limit the compiler's figure of a
    refused kernel was compiled at (record.py): on 7x the limit decides which
    inputs are copied whole into VMEM first (src/scoped/prefetch.c), so the
    figures are compared at one limit. The verdict stays the record's."""
    raised = rec["raised_limit"]["xla_tpu_scoped_vmem_limit_kib"]
    flags = dict(rec.get("flags") or {}, xla_tpu_scoped_vmem_limit_kib=raised)
    figs, _ = vmemscope_kernels(tool, dict(rec, flags=flags))
    return figs if figs and len(figs) == len(kernels) else kernels


def body_kind(alloc):
    """What kind of body value a modelled allocation is, from its note."""
    note = alloc.get("note", "")
    if note.startswith("f32 copy"):
        return "f32 copies"
    if note.startswith("lhs"):
        return "matmul lhs"
    if note.startswith("lane broadcast"):
        return "lane broadcast stores"
    if note.startswith("row broadcast"):
        return "row broadcasts"
    if note.startswith("transpose"):
        return "transposes"
    if note.startswith("one-row tiles"):
        return "one-row relayouts"
    if "read across the reduction" in note:
        return "values read across a reduction"
    return "unrolled values" if alloc.get("alike", 1) > 1 else "kept values"


def body_terms(kernels):
    """The body model's charged values over the kernels: {kind: bytes}."""
    terms = collections.OrderedDict()
    for k in kernels:
        for a in k.get("allocations", []):
            if a["kind"] == "modelled" and a["bytes"]:
                kind = body_kind(a)
                terms[kind] = terms.get(kind, 0) + a["bytes"]
    return terms


def cause(kernels, extra):
    """Why the compiler's figure is not windows + scratch: what the body model
    charges for it (its kinds and bytes beside the compiler's extra), or that
    nothing vmemscope models accounts for it."""
    if extra < 0:
        return "windows + scratch above the compiler's: a window rule"
    terms = body_terms(kernels)
    if not terms:
        return "not modelled"
    return "body " + ", ".join(terms) + f" {sum(terms.values()):+d} B"


def module_kernels(tool, rec):
    """The kernels of the record's compiled module (kept where XLA placed a
    kernel's result in VMEM): vmemscope on it sees the operands in S(1)."""
    doc, err = check_json(tool, rec["target"], rec["compiled_module"], ".hlo", rec.get("flags"))
    if doc is None:
        return None
    return [i["kernel"] for c in doc.get("computations", []) for i in c.get("instructions", []) if "kernel" in i]


def inside(x, interval):
    return interval[0] <= x <= interval[1]


def standard_ops(tool, rec):
    """Each instruction of the compiled module that has both the compiler's
    used scoped figure and vmemscope's standard-op model: (name, used, model)."""
    doc, err = check_json(tool, rec["target"], rec["compiled_hlo"], ".hlo")
    if doc is None:
        return None, err
    out = []
    for comp in doc.get("computations", []):
        for ins in comp.get("instructions", []):
            if ins.get("used_scoped_bytes") is not None and "scoped_model" in ins:
                out.append((ins["name"], ins["used_scoped_bytes"], ins["scoped_model"]))
    return out, None


def compare_standard(tool, rec):
    """A standard program holds when the model's least never exceeds what the
    compiler used, for every instruction that has both. The row shows the
    instruction with the largest used figure; the note, how many were held and
    how far 'likely' lands from 'used' (the model's choice above the least)."""
    target, case = rec["target"], rec["case"]
    ops, err = standard_ops(tool, rec)
    if ops is None:
        return (target, case, "DISAGREE", "-", "-", "vmemscope: " + err[:60])
    if not ops:
        return (target, case, "n/a", "-", "-", "no instruction with a compiler figure and a model")
    over = [n for n, used, m in ops if m["min_bytes"] > used]
    name, used, model = max(ops, key=lambda o: (o[1], o[0]))
    within = sum(1 for _, u, m in ops if u and 0.5 <= m["likely_bytes"] / u <= 2)
    note = f"{len(ops)} ops held; largest %{name} ({model['rule']}); likely within 2x of used on {within}"
    if over:
        note = f"least above used on {len(over)}: %{over[0]}; " + note
    return (target, case, "agree" if not over else "DISAGREE", str(used), str(model["min_bytes"]), note)


def _base(name):
    """A buffer-assignment value's instruction: `copy-start{0}` -> copy-start."""
    return name.split("{")[0]


def compare_program(tool, rec):
    """The S(1) row: vmemscope's packed program-scoped VMEM against the
    compiler's VMEM allocations (their total size), and which
    instructions' values each places there."""
    target, case = rec["target"], rec["case"] + ":S(1)"
    theirs = rec["vmem_assignment"]
    doc, err = check_json(tool, target, rec["compiled_hlo"], ".hlo")
    if doc is None:
        return (target, case, "DISAGREE", "-", "-", "vmemscope: " + err[:60])
    prog = doc.get("program") or {}
    # 7x's colour-1 allocation holds the scoped region too (its values sit
    # above the instructions' scoped VMEM): there the figure to hold is
    # vmemscope's used (the heap over each instruction's reservation); on
    # the others the allocation is the heap alone.
    ours = prog.get("used_bytes" if target == "7x" else "peak_bytes", 0)
    size = sum(a["size"] for a in theirs)
    if not size and not ours:
        return (target, case, "n/a", "0", "0", "nothing placed in VMEM for the whole program")
    their_values = sorted({_base(v["name"]) for a in theirs for v in a["values"]})
    our_values = sorted({b["name"] for b in prog.get("buffers", [])})
    notes = []
    if ours != size:
        notes.append(f"compiler {size - ours:+d} B")
    if their_values != our_values:
        only_c = [v for v in their_values if v not in our_values]
        only_v = [v for v in our_values if v not in their_values]
        notes.append(f"values: compiler {len(their_values)}, vmemscope {len(our_values)}" +
                     (f"; only the compiler's: %{only_c[0]}" if only_c else "") +
                     (f"; only vmemscope's: %{only_v[0]}" if only_v else ""))
    else:
        notes.append(f"{len(their_values)} value{'s' if len(their_values) != 1 else ''}, the same")
    return (target, case, "agree" if ours == size else "DISAGREE", str(size), str(ours), "; ".join(notes))


def compare(tool, rec):
    """One row: (target, case, verdict, compiler figure, vmemscope figure, note)."""
    target, case = rec["target"], rec["case"]
    if "compiled_hlo" in rec:
        return compare_standard(tool, rec)
    if case.startswith("std_") and rec["status"] != "compiled":
        # No compiled module to hold the model to; the error is kept in the record.
        return (target, case, "n/a", "-", "-", "standard program did not compile: " + rec.get("error_kind", rec["status"]))
    if rec["status"] == "lower_error":
        return (target, case, "n/a", "-", "-", "did not lower: " + rec["error"].splitlines()[0][:60])
    if rec["status"] == "compile_error" and rec["error_kind"] == "other_error":
        return (target, case, "n/a", "-", "-", "compile error: " + rec["error"].splitlines()[0][:60])
    if rec["status"] == "compile_error" and rec["error_kind"] == "compiler_crash":
        # libtpu aborted (a CHECK failure): no verdict on the kernel to hold vmemscope to
        return (target, case, "n/a", "-", "-",
                "compiler aborted: " + rec["error"].split(": ", 1)[-1][:70] + "; " + explain_abort(tool, rec))
    kernels, err = vmemscope_kernels(tool, rec)
    if kernels is None:
        return (target, case, "DISAGREE", "-", "-", "vmemscope: " + err[:60])
    exact, size, limit, compiled = compiler_figures(rec)
    if not kernels:
        return (target, case, "DISAGREE", "-", "-", "vmemscope found no kernel")
    if compiled and exact is None:
        return (target, case, "n/a", "-", str(sum(k["scoped_bytes"] for k in kernels)),
                "compiled, but the module gives no used_scoped_memory_configs for the kernel")
    fits = all(k["fits"] for k in kernels)  # the verdict at the record's limits
    verdict = max((k["verdict"] for k in kernels), key=_VERDICTS.index)
    remedies = kernels[0].get("remedies", {}) if len(kernels) == 1 else {}
    request = remedies.get("vmem_limit_bytes")
    at_limit = kernels
    kernels = raised_kernels(tool, rec, kernels) if not compiled and exact is not None else kernels
    ours = sum(k["scoped_bytes"] for k in kernels)
    notes = []
    if exact is not None:
        theirs = sum(exact)
        figure = str(theirs)
        if ours != theirs:
            why = cause(kernels, theirs - ours)
            placed = module_kernels(tool, rec) if "compiled_module" in rec else None
            if placed:  # the compiled module says which operands are in VMEM; the input cannot
                mine = sum(k["scoped_bytes"] for k in placed)
                body = sum(k.get("predicted_bytes", k["scoped_bytes"]) for k in placed)
                why = "XLA placed operands in VMEM (S(1)), read in place: on the compiled module " + (
                    "exact" if mine == theirs else "exact with the body's values" if body == theirs
                    else f"{theirs - mine:+d} B")
            notes.append(f"compiler {theirs - ours:+d} B beside windows + scratch; {why}")
    elif size is not None:
        figure = f"~{(size[0] + size[1]) / 2:.0f}"
        if len(kernels) == 1 and not inside(ours, size):
            notes.append("bytes outside the E1001's rounded size")
    else:
        figure = rec.get("error_kind", "?")
    if limit is not None and len(at_limit) == 1 and not inside(at_limit[0]["limit_bytes"], limit):
        notes.append(f"limit {at_limit[0]['limit_bytes']} not the E1001's")
    if fits != compiled:
        notes.append(("vmemscope says fits, at risk" if any(k.get("at_risk") for k in at_limit) else
                      "vmemscope says fits") if fits else "vmemscope says over")
    predicted = sum(k.get("predicted_bytes", k["scoped_bytes"]) for k in kernels)
    ceiling = sum(k.get("ceiling_bytes", k.get("predicted_bytes", k["scoped_bytes"])) for k in kernels)
    # The per-kernel limit vmemscope asks for (its remedies) where the compiler refused the kernel: noted
    # beside the row's result, not in it (the result is the figures' and the verdict's); request_summary
    # holds it to the kernel compiled at that limit (remedies.py) or to the figure under the raised one.
    result = "agree" if not notes else "DISAGREE"
    if not compiled and request is not None:
        notes.append(f"asks for vmem_limit_bytes={request}" +
                     ("" if remedies.get("within_physical", True) else ", above physical VMEM: smaller blocks"))
    flag = (rec.get("flags") or {}).get("xla_tpu_scoped_vmem_limit_kib")
    model = (sum(exact) if exact is not None else None, predicted, ours, fits == compiled, ceiling, verdict, request,
             compiled, flag, at_limit[0]["limit_bytes"])
    return (target, case, result, figure, str(ours), "; ".join(notes), model)


_VERDICTS = ["fits", "at_risk", "likely_e1001", "e1001"]


def family(case):
    if case.endswith(":S(1)"):
        return "program_S(1)"
    return case.split("_")[0] if not case.startswith(("ops_", "std_", "one_")) else "_".join(case.split("_")[:2])


def load(folder):
    recs = []
    base = os.path.join(folder, "records")
    for target in sorted(os.listdir(base)):
        for name in sorted(os.listdir(os.path.join(base, target))):
            if name.endswith(".json"):
                with open(os.path.join(base, target, name)) as fh:
                    recs.append(json.load(fh))
    return recs


def render(rows):
    lines = [f"{'target':6} {'case':55} {'result':8} {'compiler':>10} {'vmemscope':>10}  note"]
    lines += [f"{t:6} {c:55} {v:8} {a:>10} {b:>10}  {n}".rstrip() for t, c, v, a, b, n, *_ in rows]
    return "\n".join(lines) + "\n"


def predicted_exact(row):
    """Whether the figure vmemscope predicts with the body's modelled values
    (windows + scratch + body) equals the compiler's, as well as the verdict."""
    if row[2] == "agree":
        return True
    model = row[6] if len(row) > 6 else None
    return bool(model and model[0] is not None and model[1] == model[0] and model[3])


def tally(rows, key):
    """{key: (rows that agree, rows whose prediction with the body is exact, rows)}."""
    per = collections.OrderedDict()
    for row in rows:
        t, c, v = row[:3]
        if v == "n/a":
            continue
        agree, body, total = per.get(key(t, c), (0, 0, 0))
        per[key(t, c)] = (agree + (v == "agree"), body + predicted_exact(row), total + 1)
    return per


def is_edge(case):
    """A case compiled at a limit of its own (edges.py, remedies.py): apart from the agreement."""
    return case.startswith(("edge_", "remedy_"))


def summary(rows):
    every = rows
    edge_rows = [r for r in rows if r[1].startswith("edge_")]
    rows = [r for r in rows if not is_edge(r[1])]  # the edges and remedies repeat their cases' figures: apart
    head = f"  {'':20} {'agree':>9} {'':6} {'with body':>9}"
    out = ["", "agreement per target (agree: windows + scratch exact; with body: the prediction exact):", head]
    for tgt, (a, b, n) in tally(rows, lambda t, c: t).items():
        out.append(f"  {tgt:20} {a:4}/{n:<4} {100.0 * a / n:5.1f}% {b:4}/{n:<4} {100.0 * b / n:5.1f}%")
    per = tally(rows, lambda t, c: family(c))
    out += ["", "agreement per family:", head]
    for fam, (a, b, n) in sorted(per.items()):
        out.append(f"  {fam:20} {a:4}/{n:<4} {100.0 * a / n:5.1f}% {b:4}/{n:<4} {100.0 * b / n:5.1f}%")
    a = sum(x for x, _, _ in per.values())
    b = sum(y for _, y, _ in per.values())
    n = sum(z for _, _, z in per.values())
    out.append(f"  {'all':20} {a:4}/{n:<4} {100.0 * a / max(n, 1):5.1f}% {b:4}/{n:<4} {100.0 * b / max(n, 1):5.1f}%")
    skipped = sum(1 for r in rows if r[2] == "n/a")
    out.append(f"  ({skipped} records with no kernel figure: did not lower, or a compile error that is not about memory)")
    return "\n".join(out) + "\n" + cause_summary(rows) + body_model_summary(rows) + request_summary(every) + edge_summary(edge_rows)


def edge_summary(rows):
    """The verdicts at the edge of the limit (oracle/cases/edges.py): each
    kernel compiled at its own figure and 4 KiB under it. "fits" claims the
    kernel fits at the body model's ceiling; "at risk" claims neither way
    (the estimate fits, the ceiling does not) and is counted apart."""
    judged = [r for r in rows if r[2] != "n/a" and len(r) > 6]
    compiled = [r for r in judged if r[6][3] == (r[6][5] in ("fits", "at_risk"))]  # the compiler compiled it
    risky = [r for r in judged if r[6][5] == "at_risk"]
    fits = [r for r in judged if r[6][5] == "fits" and r not in compiled]
    over = [r for r in judged if r[6][5] in ("likely_e1001", "e1001") and r in compiled]
    right = [r for r in judged if r not in risky and r not in fits and r not in over]
    risky_failed = [r for r in risky if r not in compiled]
    out = ["", "verdicts at the edge of the limit (each kernel at the compiler's figure and 4 KiB under):",
           f"  right: {len(right)}/{len(judged)}; 'at risk' (fits with the body's estimate, not at its ceiling): "
           f"{len(risky)} ({len(risky_failed)} failed, {len(risky) - len(risky_failed)} compiled); 'fits' where the "
           f"compiler failed: {len(fits)}; 'over' where it compiled: {len(over)}; aborted or no figure: "
           f"{len(rows) - len(judged)}"]
    out += [f"    fits, failed: {r[0]} {r[1]}" for r in fits]
    out += [f"    at risk, {'compiled' if r in compiled else 'failed'}: {r[0]} {r[1]}" for r in risky]
    out += [f"    over, compiled: {r[0]} {r[1]}" for r in over]
    return "\n".join(out) + "\n"


def request_summary(rows):
    """The limit check asks for (its remedies) where the compiler refused a
    Pallas kernel at its target's default: held to the kernel compiled at
    that limit (remedy_* records, oracle/cases/remedies.py), or, where there
    is none, to the compiler's figure under a raised limit (pessimistic on
    7x, where a lower limit leaves room to copy inputs into VMEM first)."""
    remedy = {(r[0], r[1][len(f"remedy_{r[0]}_"):]): r[6] for r in rows if r[1].startswith("remedy_") and len(r) > 6}
    refused = [r for r in rows if len(r) > 6 and not is_edge(r[1]) and not r[1].startswith("std_")
               and not r[6][7] and r[6][6] is not None and (r[6][0] is not None or (r[0], r[1]) in remedy)]
    held, moved, failed, short, offline = [], [], [], [], []
    for r in refused:
        asked, m = r[6][6], remedy.get((r[0], r[1]))
        if m is not None and not m[7]:
            failed.append((r, m[8]))
        elif m is not None and asked < m[8] * 1024:
            moved.append((r, m[8]))
        elif m is not None:
            held.append(r)
        elif r[6][0] is not None and asked < r[6][0]:
            short.append(r)
        elif r[6][0] is not None:
            offline.append(r)
    out = ["", "the limit check asks for, where the compiler refused a Pallas kernel at the default:",
           f"  compiled at that limit by libtpu (remedy_* records): {len(held)}/{len(refused)}; "
           f"at or above the compiler's figure under a raised limit (no record at it): {len(offline)}; "
           f"short of that figure: {len(short)}; failed at it: {len(failed)}; below the limit recorded: {len(moved)}"]
    out += [f"    failed at {kib} KiB: {r[0]} {r[1]}" for r, kib in failed]
    out += [f"    asks {r[6][6]} B now, below the {kib} KiB recorded (re-record remedies.py): {r[0]} {r[1]}"
            for r, kib in moved]
    out += [f"    short by {r[6][0] - r[6][6]} B: {r[0]} {r[1]}" for r in short]
    return "\n".join(out) + "\n"


def cause_summary(rows):
    """The Pallas rows that disagree, counted by cause (the note's last part)."""
    causes = collections.Counter()
    for t, c, v, a, b, n, *_ in rows:
        if v == "DISAGREE" and not c.startswith("std_") and not c.endswith(":S(1)"):
            part = n.split("; ", 1)[1] if "beside windows + scratch; " in n else n
            part = re.sub(r"; asks for vmem_limit_bytes=[0-9]+.*$", "", part)  # the remedy, not a cause
            causes[re.sub(r" [-+][0-9]+ B(?=;|$)", "", part)] += 1
    out = ["", "Pallas rows that disagree, by cause:"]
    out += [f"  {n:4}  {c}" for c, n in sorted(causes.items(), key=lambda x: (-x[1], x[0]))]
    return "\n".join(out) + "\n"


def body_model_summary(rows):
    """The body model (docs/fidelity.md): windows + scratch + the body's
    modelled values against the compiler's figure, where it gives one."""
    models = [(t, c, r[6]) for r in rows if len(r) > 6 for t, c in [(r[0], r[1])] if not c.startswith("std_")]
    verdicts = [m for _, _, m in models]
    out = ["", "the body model (Pallas kernels):",
           f"  verdicts equal to the compiler's: {sum(1 for m in verdicts if m[3])}/{len(verdicts)}"]
    out += [f"    {m[5].replace('_', ' ')}, the compiler {'compiled' if m[5] in ('likely_e1001', 'e1001') else 'failed'}:"
            f" {t} {c}" for t, c, m in models if not m[3]]
    # (target, case, error with the body's values, error of windows + scratch alone); where windows and
    # scratch alone already exceed the compiler's figure the miss is a window rule's (7x), not the body's.
    figs = [(t, c, m[1] - m[0], m[2] - m[0]) for t, c, m in models if m[0] is not None and m[2] <= m[0]]
    if figs:
        errs = sorted(abs(f[2]) for f in figs)
        under = min(figs, key=lambda f: f[2])
        over = max(figs, key=lambda f: f[2])
        out.append(f"  figures where windows + scratch do not exceed the compiler's: {len(figs)}; exact with "
                   f"windows + scratch alone: {sum(1 for f in figs if f[3] == 0)}, with the body's values too: "
                   f"{sum(1 for f in figs if f[2] == 0)}")
        out.append(f"  median |error| {errs[len(errs) // 2]} B, 90th percentile {errs[len(errs) * 9 // 10]} B")
        out.append(f"  largest under: {under[2]:+d} B ({under[0]} {under[1]}); "
                   f"largest over: {over[2]:+d} B ({over[0]} {over[1]})")
    # The ceiling (docs/kernels.md): windows + scratch + each rule at its worst; it holds where the
    # compiler's figure does not exceed it. Its width is what "at risk" costs near a limit.
    held = [(t, c, m) for t, c, m in models if m[0] is not None]
    misses = [(t, c, m) for t, c, m in held if m[0] > m[4]]
    widths = sorted(m[4] - m[0] for _, _, m in held if m[0] <= m[4] and m[4] > m[1])
    risk = collections.Counter(m[5] for m in verdicts)
    out.append(f"  the ceiling holds (the compiler's figure at or under it): {len(held) - len(misses)}/{len(held)}; "
               f"above the compiler's where it is above the estimate: median {widths[len(widths) // 2] if widths else 0}"
               f" B, 90th percentile {widths[len(widths) * 9 // 10] if widths else 0} B over {len(widths)} records")
    out += [f"    above the ceiling: {t} {c} by {m[0] - m[4]:+d} B" for t, c, m in misses]
    out.append("  verdicts at the default limits: " + ", ".join(f"{v} {risk[v]}" for v in _VERDICTS if risk[v]))
    return "\n".join(out) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vmemscope", required=True)
    ap.add_argument("--golden")
    ap.add_argument("--update", action="store_true")
    ap.add_argument("folder")
    opts = ap.parse_args(argv)
    if not os.path.isdir(os.path.join(opts.folder, "records")):
        print(f"SKIP: oracle: no records under {opts.folder}")
        return 77
    rows = []
    for r in load(opts.folder):
        rows.append(compare(opts.vmemscope, r))
        if r.get("vmem_assignment") is not None:
            rows.append(compare_program(opts.vmemscope, r))
    table = render(rows)
    sys.stdout.write(table + summary(rows))
    return hold(table, opts.golden, opts.update, "oracle: the agreement table changed (make oracle-table; "
                "python3 oracle/compare.py ... --golden FILE --update once the change is understood)")


def hold(table, golden, update, changed):
    """0 when `table` equals the file `golden` (or there is none to hold it
    to); with `update`, writes it there. Else prints the diff and `changed`: 1."""
    if not golden:
        return 0
    if update:
        with open(golden, "w") as fh:
            fh.write(table)
        return 0
    with open(golden) as fh:
        want = fh.read()
    if want == table:
        return 0
    import difflib
    sys.stdout.writelines(difflib.unified_diff(want.splitlines(True), table.splitlines(True), golden, "now"))
    print(changed)
    return 1


if __name__ == "__main__":
    sys.exit(main())
