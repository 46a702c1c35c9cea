#!/usr/bin/env python3
"""One verdict everywhere: every golden `check` of a Pallas kernel (a spec,
Mosaic MLIR text or bytecode) rendered three ways -- check's text, check
--json, report's HTML -- and the facts each states compared: the kernel's
exact scoped bytes, the limit it is judged against, the verdict (scoped
VMEM's, and SMEM apart). And every golden `explain` of a log the same way
(explain's text, --json, report --log): the remedies each states (the limit
to request, the shrink factor, whether a limit can help, whether it is
likely a compiler bug, a program-wide error's list), which the library
decides once (vmem_log_error_remedies). A renderer that decides anything on
its own shows here as a disagreement.

usage: render_agree.py VMEMSCOPE GOLDEN_DIR
"""
import html
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

KERNEL_FILES = (".json", ".mlir", ".mlirbc", ".bc", ".b64")


def golden_runs(golden, command):
    """(name, argv after the command) of each golden that runs `command` on
    files as text (no pipe, redirection, --json or environment)."""
    for f in sorted(os.listdir(golden)):
        if not f.endswith(".cmd"):
            continue
        cmd = open(os.path.join(golden, f)).read().strip()
        if "|" in cmd or ">" in cmd or "<" in cmd or "\n" in cmd:
            continue
        argv = shlex.split(cmd)
        if argv[:2] != ["$VMEMSCOPE", command] or "--json" in argv or len(argv) < 3:
            continue
        if any(a.startswith("$") for a in argv[2:]):
            continue
        yield f[:-4], argv[2:]


def cases(golden):
    """(name, argv after 'check') of each text check of a kernel file."""
    return ((n, a) for n, a in golden_runs(golden, "check") if a[0].endswith(KERNEL_FILES))


def run(vmemscope, args, cwd):
    p = subprocess.run([vmemscope] + args, cwd=cwd, capture_output=True, text=True,
                       env=dict(os.environ, NO_COLOR="1"))
    return p.returncode, p.stdout


def text_facts(out):
    """What check's text says: scoped bytes, limit bytes, verdict words."""
    scoped = re.search(r"^scoped allocation .*?\((\d+)\)\s*$", out, re.M)
    limit = re.search(r"^limit\s+\S+ \((\d+)\) from the", out, re.M)
    lines = [l for l in out.splitlines() if l.startswith(("verdict:", "scoped VMEM:"))]
    words = " ".join(lines)
    if "DOES NOT FIT in SMEM" in words:
        smem = False
    else:
        smem = True
    scoped_line = next((l for l in lines if not "in SMEM" in l), "")
    verdict = ("e1001" if "DOES NOT FIT" in scoped_line else
               "likely_e1001" if "likely E1001" in scoped_line else
               "at_risk" if "at risk" in scoped_line else
               "fits" if "fits" in scoped_line else None)
    return {"scoped_bytes": int(scoped.group(1)) if scoped else None,
            "limit_bytes": int(limit.group(1)) if limit else None,
            "verdict": verdict, "smem_fits": smem}


def json_facts(doc):
    k = doc["kernels"][0]
    return {"scoped_bytes": k["scoped_bytes"], "limit_bytes": k["limit_bytes"], "verdict": k["verdict"],
            "smem_fits": k.get("smem_fits", True)}


def html_facts(page, name):
    """The kernel's line in the per-kernel bars and its section's heading."""
    page = re.sub(r"(?s)<(style|script).*?</\1>", "", page)
    text = re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", page)))
    bar = re.search(re.escape(name) + r" \(kernel, exact\): \S+ \((\d+) bytes\) of limit \S+ \((\d+) bytes\)", text)
    h2 = re.search(r"(?s)<h2>Kernel " + re.escape(html.escape(name)) + r":(.*?)</h2>", page)
    words = re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", "", h2.group(1)))) if h2 else ""
    smem = "DOES NOT FIT in SMEM" not in words
    scoped = words.split("(scoped VMEM: ")[-1] if not smem else words
    verdict = ("e1001" if "DOES NOT FIT (E1001)" in scoped else
               "likely_e1001" if "likely E1001 (modelled: body values)" in scoped else
               "at_risk" if "fits, at risk" in scoped else
               "fits" if "fits" in scoped else None)
    return {"scoped_bytes": int(bar.group(1)) if bar else None, "limit_bytes": int(bar.group(2)) if bar else None,
            "verdict": verdict, "smem_fits": smem}, words


def explain_cases(golden):
    """(name, argv after 'explain') of each text explain of log files."""
    return ((n, a) for n, a in golden_runs(golden, "explain") if os.path.isfile(os.path.join(golden, a[0])))


def words(s):
    return re.sub(r"\s+", " ", s).strip()


def explain_text_facts(out):
    return {"request": sorted(int(x) for x in re.findall(r"vmem_limit_bytes=(\d+)\)", out)) +
                       sorted(1024 * int(x) for x in re.findall(r"stop-gap: LIBTPU_INIT_ARGS=--xla_tpu_scoped_vmem_limit_kib=(\d+)", out)),
            "shrink": sorted(re.findall(r"shrink by a factor of at least (\d+\.\d\d)", out)),
            "no_limit": out.count("no limit can help"),
            "bug": out.count("likely a compiler bug"),
            "program": sorted(words(x) for x in re.findall(r"^  - (.*)$", out, re.M))}


def explain_json_facts(doc):
    f = {"request": [], "shrink": [], "no_limit": 0, "bug": 0, "program": []}
    for e in doc.get("errors", []):
        for r in e.get("remedies", []):
            if "text" in r:
                f["program"].append(words(r["text"]))
                continue
            if r.get("likely_compiler_bug"):
                f["bug"] += 1
            elif r.get("limit_can_help", True):
                f["request"].append(r["vmem_limit_bytes"])
            else:
                f["no_limit"] += 1
            if "shrink_factor" in r and not r.get("likely_compiler_bug"):
                f["shrink"].append("%.2f" % r["shrink_factor"])
    bug_requests = [r["vmem_limit_bytes"] for e in doc.get("errors", []) for r in e.get("remedies", [])
                    if r.get("likely_compiler_bug")]
    f["request"] = sorted(f["request"]) + sorted(bug_requests)
    f["shrink"].sort()
    f["program"].sort()
    return f


def explain_html_facts(page):
    page = re.sub(r"(?s)<(style|script).*?</\1>", "", page)
    items = [words(html.unescape(re.sub(r"<[^>]+>", "", li))) for ul in
             re.findall(r'(?s)<ul class="remedies">(.*?)</ul>', page) for li in re.findall(r"(?s)<li>(.*?)</li>", ul)]
    f = {"request": [], "shrink": [], "no_limit": 0, "bug": 0, "program": []}
    bug = []
    for it in items:
        m = re.match(r"request vmem_limit_bytes=(\d+) or --xla_tpu_scoped_vmem_limit_kib=\d+ ?; or shrink blocks by "
                     r"(\d+\.\d\d)x(; likely a compiler bug)?", it)
        if m:
            (bug if m.group(3) else f["request"]).append(int(m.group(1)))
            f["bug"] += 1 if m.group(3) else 0
            if not m.group(3):
                f["shrink"].append(m.group(2))
        elif it.startswith("shrink blocks by") and "no limit can help" in it:
            f["no_limit"] += 1
            f["shrink"].append(re.match(r"shrink blocks by (\d+\.\d\d)x", it).group(1))
        else:
            f["program"].append(it)
    f["request"] = sorted(f["request"]) + sorted(bug)
    f["shrink"].sort()
    f["program"].sort()
    return f


def explain_pass(vmemscope, golden, tmp, bad):
    n = 0
    for name, args in explain_cases(golden):
        rc_t, text = run(vmemscope, ["explain"] + args, golden)
        if rc_t == 2:
            continue
        rc_j, js = run(vmemscope, ["explain"] + args + ["--json"], golden)
        page_path = os.path.join(tmp, name + ".html")
        rc_h, _ = run(vmemscope, ["report"] + args + ["--log", "-o", page_path], golden)
        if rc_h == 2 or not os.path.exists(page_path):
            continue  # report takes one log; several are explain's alone
        t, j, h = explain_text_facts(text), explain_json_facts(json.loads(js)), explain_html_facts(open(page_path).read())
        n += 1
        for key in t:
            if not (t[key] == j[key] == h[key]):
                bad.append("%s: remedies' %s: text %r, JSON %r, HTML %r" % (name, key, t[key], j[key], h[key]))
    return n


def main():
    vmemscope, golden = os.path.abspath(sys.argv[1]), sys.argv[2]
    bad, n = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, args in cases(golden):
            rc_t, text = run(vmemscope, ["check"] + args, golden)
            if rc_t == 2:
                continue  # a golden of bad input: nothing to render
            rc_j, js = run(vmemscope, ["check"] + args + ["--json"], golden)
            page_path = os.path.join(tmp, name + ".html")
            rc_h, _ = run(vmemscope, ["report"] + args + ["-o", page_path], golden)
            doc = json.loads(js)
            if not doc.get("kernels"):
                continue
            kname = doc["kernels"][0]["name"]
            t, j = text_facts(text), json_facts(doc)
            h, words = html_facts(open(page_path).read(), kname)
            n += 1
            for key in ("scoped_bytes", "limit_bytes", "verdict", "smem_fits"):
                if not (t[key] == j[key] == h[key]):
                    bad.append("%s: %s: text %r, JSON %r, HTML %r (%s)" % (name, key, t[key], j[key], h[key], words))
            if not (rc_t == rc_j == rc_h):
                bad.append("%s: exit status: text %d, JSON %d, HTML %d" % (name, rc_t, rc_j, rc_h))
        ne = explain_pass(vmemscope, golden, tmp, bad)
    for b in bad:
        print("DISAGREE " + b)
    print("%d kernel cases and %d explained logs rendered three ways, %d disagreements" % (n, ne, len(bad)))
    if ne < 10:
        print("too few explained logs: the golden directory was not read")
        return 1
    if n < 20:
        print("too few cases: the golden directory was not read")
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
