#!/usr/bin/env python3
"""One verdict everywhere: every golden `check` of a Pallas kernel (a spec,
Mosaic MLIR text or bytecode) rendered three ways -- check's text, check
--json, report's HTML -- and the facts each states compared: the kernel's
exact scoped bytes, the limit it is judged against, the verdict (scoped
VMEM's, and SMEM apart). A renderer that decides anything on its own shows
here as a disagreement.

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


def cases(golden):
    """(name, argv after 'check') of each text check of a kernel file."""
    for f in sorted(os.listdir(golden)):
        if not f.endswith(".cmd"):
            continue
        cmd = open(os.path.join(golden, f)).read().strip()
        if "|" in cmd or ">" in cmd or "<" in cmd or "\n" in cmd:
            continue
        argv = shlex.split(cmd)
        if argv[:2] != ["$VMEMSCOPE", "check"] or "--json" in argv or len(argv) < 3:
            continue
        if not argv[2].endswith(KERNEL_FILES) or any(a.startswith("$") for a in argv[2:]):
            continue
        yield f[:-4], argv[2:]


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
    for b in bad:
        print("DISAGREE " + b)
    print("%d kernel cases rendered three ways, %d disagreements" % (n, len(bad)))
    if n < 20:
        print("too few cases: the golden directory was not read")
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
