#!/usr/bin/env python3
"""The terminal behaviour, on a real pseudo-terminal.

- colour only when standard output is a terminal (or --color=always), never
  with NO_COLOR or TERM=dumb;
- --bytes prints every size with its exact bytes;
- a progress line on stderr for an input over 50 MB when stderr is a
  terminal, cleared before the output; none when stderr is a pipe.

usage: terminal.py VMEMSCOPE SOURCE_DIR
"""
import os
import pty
import subprocess
import sys
import tempfile

VMEMSCOPE, SRC = sys.argv[1:3]
KERNEL = os.path.join(SRC, "examples", "gated_matmul.json")
ESC = "\x1b["


def run(args, env=None, tty_out=False, tty_err=False):
    """Runs vmemscope; returns (stdout, stderr) as text, either side through
    a pseudo-terminal when asked."""
    base = {"PATH": "/usr/bin:/bin", "TERM": "xterm"}
    base.update(env or {})
    fds, masters = {}, {}
    for name, want in (("stdout", tty_out), ("stderr", tty_err)):
        if want:
            master, slave = pty.openpty()
            fds[name], masters[name] = slave, master
        else:
            fds[name] = subprocess.PIPE
    p = subprocess.Popen([VMEMSCOPE, *args], stdout=fds["stdout"], stderr=fds["stderr"], env=base)
    for name in masters:
        os.close(fds[name])
    got = {name: b"" for name in masters}
    while masters:  # drain the terminals while the program runs, or it blocks on a full pty
        for name, fd in list(masters.items()):
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                chunk = b""
            if not chunk:
                os.close(fd)
                del masters[name]
            got[name] += chunk
    out, err = p.communicate(timeout=300)
    out = got.get("stdout", out or b"")
    err = got.get("stderr", err or b"")
    assert p.returncode in (0, 1), (args, p.returncode, err[-2000:])
    return out.decode("utf-8", "replace"), err.decode("utf-8", "replace")


def colour():
    out, _ = run(["check", KERNEL], tty_out=True)
    assert ESC + "1;31mDOES NOT FIT" in out, "red verdict on a terminal"
    out, _ = run(["check", KERNEL])
    assert ESC not in out, "no colour into a pipe"
    out, _ = run(["check", KERNEL, "--color=always"])
    assert ESC in out, "--color=always colours a pipe"
    for env in ({"NO_COLOR": "1"}, {"TERM": "dumb"}):
        out, _ = run(["check", KERNEL], env=env, tty_out=True)
        assert ESC not in out, env
    out, _ = run(["check", KERNEL, "--color=always"], env={"NO_COLOR": "1"})
    assert ESC not in out, "NO_COLOR wins over --color=always"
    out, _ = run(["check", KERNEL, "--no-color"], tty_out=True)
    assert ESC not in out


def exact_bytes():
    out, _ = run(["check", KERNEL])
    assert "12.00M over the limit" in out and "(12582912) over" not in out
    out, _ = run(["check", KERNEL, "--bytes"])
    assert "12.00M (12582912) over the limit" in out, out[-500:]


def big_module(path, megabytes):
    """A scheduled module of adds, just over `megabytes` MB."""
    line = "  add.%d = f32[8,128]{1,0} add(p0, p0), metadata={op_name=\"jit(step)/jit(main)/add\"}\n"
    with open(path, "w") as f:
        f.write("HloModule big, is_scheduled=true\n\nENTRY main {\n  p0 = f32[8,128]{1,0} parameter(0)\n")
        i, size = 0, 0
        while size < megabytes * 1_000_000:
            text = line % i
            f.write(text)
            size += len(text)
            i += 1
        f.write("  ROOT out = f32[8,128]{1,0} add(p0, add.%d)\n}\n" % (i - 1))


def progress():
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "big.hlo")
        big_module(path, 51)
        out, err = run(["check", path, "--summary"], tty_err=True)
        assert "big.hlo (5" in err and "MB): parsing..." in err, err[:300]
        assert err.endswith("\r" + ESC + "K"), "the line is cleared: " + repr(err[-40:])
        assert "module big" in out or "big" in out
        _, err = run(["check", path, "--summary"])
        assert "parsing" not in err, "no progress line into a pipe"
        small = os.path.join(d, "small.hlo")
        big_module(small, 1)
        _, err = run(["check", small, "--summary"], tty_err=True)
        assert "parsing" not in err, "no progress line under 50 MB"


for case in (colour, exact_bytes, progress):
    case()
    print("ok", case.__name__)
