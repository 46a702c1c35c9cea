#!/usr/bin/env python3
"""report reads a lean check document: the rows its page shows, not all.

A module of 520 modelled standard ops, most tied on the modelled choice:
the page's table of modelled ops must hold the 200 with the most, ties in
module order -- the rows the full `check --json` document ranks first.
A module of 300 ops that carry the compiler's used figure, many tied: the
page's bars must be the 200 largest (ties by name) and it must count the
other 100 as not shown, as it would from the full document. No browser
needed.

usage: report_lean.py VMEMSCOPE
"""
import html.parser
import json
import os
import subprocess
import sys
import tempfile

VMEMSCOPE = sys.argv[1]
ROWS = 200  # CLI_REPORT_ROWS in cli/cli.h


def module(path):
    lines = ["HloModule lean, is_scheduled=true", "", "ENTRY main {", "  p0 = f32[4096,4096]{1,0} parameter(0)"]
    for i in range(260):
        r = 8 * (1 + (i * 37) % 64)
        lines.append("  s%d = f32[%d,4096]{1,0} slice(p0), slice={[0:%d], [0:4096]}" % (i, r, r))
        lines.append("  a%d = f32[%d,4096]{1,0} add(s%d, s%d)" % (i, r, i, i))
    lines += ["  ROOT t = (f32[8,4096]{1,0}) tuple(a0)", "}"]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def used_module(path):
    lines = ["HloModule used, is_scheduled=true", "", "ENTRY main {", "  p0 = f32[1024,128]{1,0} parameter(0)"]
    for i in range(300):
        used = 4096 * (1 + (i * 7) % 40)
        lines.append('  n%d = f32[1024,128]{1,0} negate(p0), backend_config={"scoped_memory_configs":[{"memory_space":'
                     '"1","offset":"0","size":"16777216"}],"used_scoped_memory_configs":[{"memory_space":"1",'
                     '"offset":"0","size":"%d"}]}' % (i, used))
    lines += ["  ROOT t = (f32[1024,128]{1,0}) tuple(n0)", "}"]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


class Bars(html.parser.HTMLParser):
    """The data-name of each bar, in page order."""

    def __init__(self):
        super().__init__()
        self.names = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "g" and "bar" in (a.get("class") or "").split():
            self.names.append(a.get("data-name"))


class Table(html.parser.HTMLParser):
    """The first cell of each row of <table id="model-table">."""

    def __init__(self):
        super().__init__()
        self.names, self._in, self._row, self._cell = [], False, False, 0

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self._in = dict(attrs).get("id") == "model-table"
        elif self._in and tag == "tr":
            self._row, self._cell = True, 0
        elif self._in and self._row and tag == "td":
            self._cell += 1

    def handle_data(self, data):
        if self._in and self._row and self._cell == 1 and data.strip():
            self.names.append(data.strip())
            self._row = False


def page_and_rows(write):
    """The page report writes for the module `write` makes, and every
    instruction of the full `check --json` document of it."""
    with tempfile.TemporaryDirectory() as tmp:
        hlo, page = os.path.join(tmp, "m.hlo"), os.path.join(tmp, "m.html")
        write(hlo)
        run = subprocess.run([VMEMSCOPE, "report", hlo, "-o", page], capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        doc = json.loads(subprocess.run([VMEMSCOPE, "check", hlo, "--json"], capture_output=True, text=True,
                                        check=True).stdout)
        with open(page, encoding="utf-8") as f:
            return f.read(), [i for c in doc["computations"] for i in c["instructions"]]


def main():
    text, ins = page_and_rows(module)
    modelled = [(i["scoped_model"]["likely_bytes"], k, i["name"]) for k, i in enumerate(ins)
                if i.get("scoped_model", {}).get("whole_bytes")]
    assert len(modelled) > ROWS, "the module must model more ops than the table shows"
    want = [name for _, _, name in sorted(modelled, key=lambda m: (-m[0], m[1]))[:ROWS]]
    table = Table()
    table.feed(text)
    assert table.names == want, "the table differs from the full document's first %d:\n%s\n%s" % (
        ROWS, table.names[:10], want[:10])
    print("report's table: the %d of %d modelled ops the full document ranks first" % (ROWS, len(modelled)))

    text, ins = page_and_rows(used_module)
    used = [(i["used_scoped_bytes"], i["name"]) for i in ins if isinstance(i.get("used_scoped_bytes"), int)]
    assert len(used) > ROWS, "the module must carry more used figures than the page shows"
    want = [name for _, name in sorted(used, key=lambda u: (-u[0], u[1]))[:ROWS]]
    bars = Bars()
    bars.feed(text)
    assert bars.names == want, "the bars differ from the full document's largest %d:\n%s\n%s" % (
        ROWS, bars.names[:10], want[:10])
    assert "%d more not shown." % (len(used) - ROWS) in text, "the page does not count the bars left out"
    print("report's bars: the %d largest of %d used figures, %d counted as not shown" % (ROWS, len(used),
                                                                                          len(used) - ROWS))


main()
