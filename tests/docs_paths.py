#!/usr/bin/env python3
"""The docs point at files that exist: every path of the source tree that
README.md, CHANGELOG.md's newest section, docs/*.md and the man page name
(src/..., cli/..., tests/..., oracle/..., scripts/..., examples/...,
bench/..., fuzz/..., python/..., docs/..., include/..., man/...) must be there.
A path with a glob or a placeholder (NAME, N, *) is read as a pattern.

  tests/docs_paths.py ROOT
"""
import glob
import os
import re
import sys

ROOTS = ("src", "cli", "tests", "oracle", "scripts", "examples", "bench", "fuzz", "python", "docs", "include",
         "man", ".ci")
PATH = re.compile(r"(?<![\w./-])((?:%s)/[\w./*{}-]*[\w*}])" % "|".join(re.escape(r) for r in ROOTS))
PLACEHOLDER = re.compile(r"[A-Z]{1,}(?=[._/-]|$)|\bN\b|\{[^}]*\}")


def docs(root):
    yield "README.md"
    yield "man/vmemscope.1"
    for f in sorted(os.listdir(os.path.join(root, "docs"))):
        if f.endswith(".md"):
            yield os.path.join("docs", f)


def exists(root, path):
    if os.path.exists(os.path.join(root, path)) or os.path.exists(os.path.join(root, path + ".c")):
        return True  # a test or tool named by its program: its source
    pattern = PLACEHOLDER.sub("*", path)
    if "*" in pattern and glob.glob(os.path.join(root, pattern)):
        return True
    return False


def main(argv):
    root = argv[1]
    missing = []
    for doc in docs(root):
        with open(os.path.join(root, doc), encoding="utf-8") as fh:
            for n, line in enumerate(fh, 1):
                for m in PATH.finditer(line.replace("\\-", "-")):
                    path = m.group(1).rstrip(".")
                    if not exists(root, path):
                        missing.append("%s:%d: %s" % (doc, n, path))
    for m in missing:
        print("MISSING " + m)
    print("%d paths the docs name are not in the tree" % len(missing))
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
