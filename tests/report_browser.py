#!/usr/bin/env python3
"""The HTML report, checked in a real browser.

For each shipped example: `vmemscope report` writes the page; Debian's
headless Chromium loads it, runs its script and dumps the DOM, and takes a
PNG screenshot into BUILD/report/ for a person to look at. The DOM is then
checked against the figures `vmemscope ... --json` prints for the same
input: titles, one bar per kernel with its exact bytes, the stacked
allocations, the program timeline's rectangles and peak, the remedies, and
that the page fetches nothing.

usage: report_browser.py VMEMSCOPE SOURCE_DIR BUILD_DIR
Exits 77 (skip) with a reason when Chromium is not installed.
"""
import html.parser
import json
import os
import shutil
import subprocess
import sys
import tempfile

VMEMSCOPE, SRC, BUILD = sys.argv[1:4]
OUT = os.path.join(BUILD, "report")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]


class Dom(html.parser.HTMLParser):
    """Elements with their attributes, in document order, and the title."""

    def __init__(self):
        super().__init__()
        self.elements, self.title, self._in_title, self.text = [], "", False, []

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))
        self._in_title = tag == "title" and not self.title

    def handle_endtag(self, tag):
        self._in_title = False

    def handle_data(self, data):
        if self._in_title:
            self.title += data
        self.text.append(data)

    def find(self, tag, **want):
        return [a for t, a in self.elements
                if t == tag and all(want[k] in (a.get(k.replace("_", "-")) or "").split() or
                                    a.get(k.replace("_", "-")) == want[k] for k in want)]


def chromium():
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    return None


def render(browser, page, png):
    with tempfile.TemporaryDirectory() as profile:
        common = FLAGS + ["--user-data-dir=" + profile, "--window-size=1100,1600"]
        url = "file://" + os.path.abspath(page)
        dom = subprocess.run([browser] + common + ["--dump-dom", url], capture_output=True, text=True,
                             timeout=120)
        if dom.returncode != 0:
            raise AssertionError("chromium --dump-dom failed: " + dom.stderr[-2000:])
        shot = subprocess.run([browser] + common + ["--screenshot=" + os.path.abspath(png), url],
                              capture_output=True, text=True, timeout=120)
        if shot.returncode != 0 or not os.path.exists(png):
            raise AssertionError("chromium --screenshot failed: " + shot.stderr[-2000:])
        with open(png, "rb") as f:
            assert f.read(8) == b"\x89PNG\r\n\x1a\n", png + " is not a PNG"
    parsed = Dom()
    parsed.feed(dom.stdout)
    return parsed


def vmemscope_json(*args):
    run = subprocess.run([VMEMSCOPE, *args, "--json"], capture_output=True, text=True, cwd=SRC)
    assert run.returncode in (0, 1), run.stderr
    return json.loads(run.stdout)


def report(name, *args):
    page = os.path.join(OUT, name + ".html")
    run = subprocess.run([VMEMSCOPE, "report", *args, "-o", page], capture_output=True, text=True, cwd=SRC)
    assert run.returncode in (0, 1), run.stderr
    with open(page, encoding="utf-8") as f:
        text = f.read()
    for fetch in ("http://", "https://", " src=", "<link", "@import", "url("):
        assert fetch not in text, name + ": the page would fetch something: " + fetch
    return page, run.returncode


def check_common(dom, title):
    assert dom.title == "vmemscope: VMEM report: " + title, dom.title
    assert dom.find("body", data_rendered="yes"), "the inline script did not run"


def check_bar(dom, name, scoped, limit):
    bars = [a for a in dom.find("g") if a.get("data-name") == name]
    assert bars, "no bar for " + name
    assert bars[0]["data-bytes"] == str(scoped), (name, bars[0]["data-bytes"], scoped)
    assert ("over" in bars[0]["class"].split()) == (scoped > limit), name


def check_kernel(dom, k):
    sections = [a for a in dom.find("section") if a.get("data-kernel") == k["name"]]
    assert sections, "no section for kernel " + k["name"]
    rects = dom.find("rect", **{"class": "alloc"})
    # An operand XLA placed in VMEM is program-scoped: no rectangle on the stack.
    stacked = [a for a in k["allocations"] if a["kind"] != "prefetched"]
    assert len(rects) >= len(stacked), (len(rects), len(stacked))


def attention(browser):
    page, _ = report("attention", "examples/attention.hlo")
    dom = render(browser, page, os.path.join(OUT, "attention.png"))
    doc = vmemscope_json("check", "examples/attention.hlo")
    check_common(dom, doc["module"])
    for comp in doc["computations"]:
        for ins in comp["instructions"]:
            if "kernel" in ins and "scoped_bytes" in ins["kernel"]:
                check_bar(dom, ins["name"], ins["kernel"]["scoped_bytes"], ins["kernel"]["limit_bytes"])
                check_kernel(dom, ins["kernel"])
    prog = doc["program"]
    assert len(dom.find("rect", **{"class": "buf"})) == len(prog["buffers"])
    assert len(dom.find("rect", **{"class": "reservation"})) == len(prog["reservations"]) > 0
    assert dom.find("line", id="peak"), "no peak marker"
    assert "peak, step %d" % prog["peak_time"] in dom.text
    assert dom.find("table", id="peak-by-size") and dom.find("table", id="peak-by-waste")
    modelled = [ins["scoped_model"] for comp in doc["computations"] for ins in comp["instructions"]
                if ins.get("scoped_model", {}).get("whole_bytes")]
    assert modelled and dom.find("table", id="model-table"), "no table of modelled standard ops"
    cells = {a.get("data-v") for a in dom.find("td")}
    for m in modelled:
        for key in ("min_bytes", "likely_bytes", "whole_bytes", "limit_bytes"):
            assert str(m[key]) in cells, (key, m[key])


def gated_matmul(browser):
    page, status = report("gated_matmul", "examples/gated_matmul.json", "--fit")
    assert status == 1, "the example kernel does not fit: exit 1"
    dom = render(browser, page, os.path.join(OUT, "gated_matmul.png"))
    k = vmemscope_json("check", "examples/gated_matmul.json")["kernels"][0]
    check_common(dom, k["name"])
    check_bar(dom, k["name"], k["scoped_bytes"], k["limit_bytes"])
    check_kernel(dom, k)
    assert "vmem_limit_bytes=%d" % k["remedies"]["vmem_limit_bytes"] in dom.text
    fit = vmemscope_json("fit", "examples/gated_matmul.json", "--top", "200")
    rows = dom.find("table", id="pareto")
    assert rows and fit["candidates"], "no Pareto table"
    best = fit["candidates"][0]["params"]
    assert " ".join("%s=%d" % kv for kv in best.items()) + " " in dom.text, "the fastest fit is on the front"
    assert dom.find("svg", id="pareto-plot"), "no plot of the Pareto front"
    points = dom.find("circle", **{"class": "pt"})
    marked = dom.find("circle", **{"class": "best"})
    assert points and len(marked) == 1, (len(points), len(marked))
    assert len(points) == len(fit["pareto_front"]), "the page plots fit's own front (%d points, fit has %d)" % (
        len(points), len(fit["pareto_front"]))
    assert marked[0]["data-params"].split() == ["%s=%d" % kv for kv in best.items()], marked[0]["data-params"]
    assert dom.find("line", **{"class": "limit"}), "no limit line on the plot"


def train_log(browser):
    page, status = report("train_log", "examples/train.log")
    assert status == 1
    dom = render(browser, page, os.path.join(OUT, "train_log.png"))
    doc = vmemscope_json("explain", "examples/train.log")
    check_common(dom, "examples/train.log")
    e = doc["errors"][0]
    check_bar(dom, e["instruction"], e["size_bytes"], e["limit_bytes"])
    assert "vmem_limit_bytes=%d" % e["remedies"][0]["vmem_limit_bytes"] in dom.text


def pasted_logs(browser):
    """A log's page shows what explain prints: the listing, the remedies, the
    target the figures imply, and no unknown figure as 0B."""
    log = "tests/golden/explain_old_profile_truncated.log"
    page, status = report("old_profile", log)
    assert status == 1
    dom = render(browser, page, os.path.join(OUT, "old_profile.png"))
    text = lambda d: " ".join(d.text)
    e = vmemscope_json("explain", log)["errors"][0]
    check_common(dom, log)
    assert "used 17.12G of unknown" in text(dom) and "0B" not in text(dom), text(dom)[:400]
    for a in e["allocations"]:
        assert a["shape"] in text(dom), a["shape"]
    assert "cut inside the last entry" in text(dom)
    page, _ = report("hosts", "tests/golden/explain_hosts.log")
    dom = render(browser, page, os.path.join(OUT, "hosts.png"))
    assert "target v6e" in text(dom), "a 32 MiB limit is v6e's default, not v5e's"
    assert "Printed by 4 hosts" in text(dom)
    log = "tests/golden/explain_program_scoped.log"
    page, _ = report("program", log)
    dom = render(browser, page, os.path.join(OUT, "program.png"))
    e = vmemscope_json("explain", log)["errors"][0]
    assert e["remedies"], "program-wide remedies are in the JSON"
    for r in e["remedies"]:
        assert r["text"][:40] in text(dom), r["text"]


def stablehlo(browser):
    page, _ = report("jit_model", "examples/jit_model.stablehlo.mlir", "--instruction", "matmul_kernel")
    dom = render(browser, page, os.path.join(OUT, "jit_model.png"))
    k = vmemscope_json("check", "examples/jit_model.stablehlo.mlir", "--instruction", "matmul_kernel")["kernels"][0]
    check_common(dom, k["name"])
    check_kernel(dom, k)


def stablehlo_module(browser):
    page, status = report("jit_model_all", "examples/jit_model.stablehlo.mlir")
    assert status == 1, "a kernel of the example does not fit: exit 1"
    dom = render(browser, page, os.path.join(OUT, "jit_model_all.png"))
    doc = vmemscope_json("check", "examples/jit_model.stablehlo.mlir")
    check_common(dom, doc["module"])
    kernels = [op["kernel"] for op in doc["ops"] if "kernel" in op and "scoped_bytes" in op["kernel"]]
    assert kernels
    for k in kernels:
        check_bar(dom, k["name"], k["scoped_bytes"], k["limit_bytes"])
        check_kernel(dom, k)


def main():
    browser = chromium()
    if not browser:
        print("SKIP: report_browser: Chromium is not installed (scripts/bootstrap installs Debian's chromium)")
        return 77
    os.makedirs(OUT, exist_ok=True)
    for case in (attention, gated_matmul, train_log, pasted_logs, stablehlo, stablehlo_module):
        case(browser)
        print("ok", case.__name__)
    print("screenshots in", OUT)
    return 0


if __name__ == "__main__":
    sys.exit(main())
