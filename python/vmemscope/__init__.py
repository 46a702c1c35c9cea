"""vmemscope for Python: TPU VMEM accounting offline, over libvmemscope-cli.so
(the command line as a library, with libvmemscope inside).

Every function runs the same code as the ``vmemscope`` command (through the
library's ``vmem_cli_capture``, with ctypes: no compiled extension) and
returns plain dicts and lists from the JSON that command prints with
``--json`` (docs/json.md). A result that does not fit is not an error: its
dict says ``"fits": false``. Bad input raises :class:`Error`, with the
message and, where the input has one, the line and column.

For Pallas kernels in JAX code, use :mod:`vmemscope.jax` (which lowers
for TPU on any machine; ``jax.jit(f).lower(x)`` on a machine without a TPU
lowers for the CPU and carries no kernel)::

    import vmemscope.jax as vj
    print(vj.check(f, x, target="v6e"))

An HLO module compiled for TPU (``.compile().as_text()``, or an XLA dump)
goes to :func:`check_hlo`.

The library is found through ``$VMEMSCOPE_LIBRARY``, then beside this
package, then the system's library path.
"""
import ctypes
import ctypes.util
import json
import os
import re
import tempfile

__all__ = ["Error", "size", "check_hlo", "check_kernel", "explain", "fit", "report", "run", "library_path"]


def _version():
    """The library's version: written into the wheel (_version.py) by the
    build backend, else read from the checkout's public header."""
    try:
        from ._version import version
        return version
    except ImportError:
        header = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "include", "vmemscope.h")
        try:
            with open(header) as f:
                parts = dict(re.findall(r"^#define VMEM_VERSION_(MAJOR|MINOR|PATCH) (\d+)$", f.read(), re.M))
            return "%s.%s.%s" % (parts["MAJOR"], parts["MINOR"], parts["PATCH"])
        except (OSError, KeyError):
            return "unknown"


__version__ = _version()


class Error(Exception):
    """Bad input or usage: ``message``, and where the input has one the
    ``path``, ``line`` and ``column`` (1-based; None otherwise); ``text`` is
    everything vmemscope printed, with the offending line and a caret."""

    def __init__(self, message, path=None, line=None, column=None, text="", status=2):
        super().__init__(message if line is None else "%s:%d:%d: %s" % (path or "<input>", line, column, message))
        self.message, self.path, self.line, self.column = message, path, line, column
        self.text, self.status = text, status


# ---- the library --------------------------------------------------------------

_lib = None


def _candidates():
    env = os.environ.get("VMEMSCOPE_LIBRARY")
    if env:
        yield env
        return  # an explicit choice is not second-guessed
    here = os.path.dirname(os.path.abspath(__file__))
    yield os.path.join(here, "libvmemscope-cli.so")
    found = ctypes.util.find_library("vmemscope-cli")
    if found:
        yield found
    yield "libvmemscope-cli.so"


def library_path():
    """The path of the libvmemscope-cli.so in use (loading it if needed)."""
    return _load()._name


def _load():
    global _lib
    if _lib is not None:
        return _lib
    tried = []
    for path in _candidates():
        if os.path.sep in path and not os.path.exists(path):
            tried.append(path + " (absent)")
            continue
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
            continue
        lib.vmem_cli_capture.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p),
                                         ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_void_p)]
        lib.vmem_cli_capture.restype = ctypes.c_int
        lib.vmem_cli_free.argtypes = [ctypes.c_void_p]
        lib.vmem_cli_free.restype = None
        _lib = lib
        return lib
    raise OSError("libvmemscope-cli.so not found; set VMEMSCOPE_LIBRARY. Tried: " + "; ".join(tried))


class _VmemError(ctypes.Structure):
    _fields_ = [("code", ctypes.c_int), ("offset", ctypes.c_size_t), ("message", ctypes.c_char * 240)]


def _python_libtpu():
    """The libtpu.so of the libtpu package this Python imports (what
    jax[tpu] installs), when $VMEMSCOPE_LIBTPU names none: the environment
    the caller runs in is the one to use, activated or not."""
    if os.environ.get("VMEMSCOPE_LIBTPU"):
        return None
    import importlib.util
    spec = importlib.util.find_spec("libtpu")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        path = os.path.join(folder, "libtpu.so")
        if os.path.exists(path):
            return path
    return None


def compiler(libtpu=None):
    """The real compiler vmemscope would use (docs/compiler.md): a dict with
    its ``path`` and ``version`` ("libtpu 0.0.42.1, PJRT API 0.112"), found
    as ``check --compile`` finds it (``libtpu``, else $VMEMSCOPE_LIBTPU, else
    the libtpu package this Python imports, else a Python environment's on
    $PATH). Raises :class:`Error` saying
    where it looked when there is none or it is not a usable libtpu."""
    lib = _load()
    lib.vmem_compiler_open.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.POINTER(_VmemError)]
    lib.vmem_compiler_open.restype = ctypes.c_void_p
    for name in ("vmem_compiler_path", "vmem_compiler_version"):
        getattr(lib, name).argtypes = [ctypes.c_void_p]
        getattr(lib, name).restype = ctypes.c_char_p
    lib.vmem_compiler_close.argtypes = [ctypes.c_void_p]
    lib.vmem_compiler_close.restype = None
    err = _VmemError()
    libtpu = libtpu or _python_libtpu()
    handle = lib.vmem_compiler_open(os.fsencode(libtpu) if libtpu else None, None, ctypes.byref(err))
    if not handle:
        raise Error(err.message.decode("utf-8", "replace"))
    try:
        return {"path": os.fsdecode(lib.vmem_compiler_path(handle)),
                "version": lib.vmem_compiler_version(handle).decode("utf-8", "replace")}
    finally:
        lib.vmem_compiler_close(handle)


def _take(lib, ptr):
    if not ptr.value:
        return ""
    text = ctypes.string_at(ptr.value).decode("utf-8", "replace")
    lib.vmem_cli_free(ptr.value)
    return text


def run(*args):
    """Runs ``vmemscope ARGS...`` in this process; returns (status, stdout,
    stderr). The other functions are built on it."""
    lib = _load()
    argv = (ctypes.c_char_p * len(args))(*[os.fsencode(str(a)) for a in args])
    out, err = ctypes.c_void_p(), ctypes.c_void_p()
    status = lib.vmem_cli_capture(len(args), argv, ctypes.byref(out), ctypes.byref(err))
    return status, _take(lib, out), _take(lib, err)


# ---- errors -------------------------------------------------------------------

_POSITIONED = re.compile(r"^vmemscope(?: [\w-]+)?: error: (.*?):(\d+):(\d+): (.*)$")
_PLAIN = re.compile(r"^vmemscope(?: [\w-]+)?: error: (.*)$")


def _error(status, stderr, names):
    """An Error from what vmemscope printed; `names` maps temporary paths
    back to what the caller knows them as."""
    for tmp, shown in names.items():
        stderr = stderr.replace(tmp, shown)
    first = next((l for l in stderr.splitlines() if ": error: " in l), stderr.strip() or "failed")
    m = _POSITIONED.match(first)
    if m:
        return Error(m.group(4), m.group(1), int(m.group(2)), int(m.group(3)), stderr, status)
    m = _PLAIN.match(first)
    return Error(m.group(1) if m else first, None, None, None, stderr, status)


def _json(args, inputs=()):
    """Runs a command with --json on text inputs written to a private
    temporary folder; returns the document."""
    with tempfile.TemporaryDirectory(prefix="vmemscope-") as d:
        names, paths = {}, []
        for name, text in inputs:
            path = os.path.join(d, name)
            with open(path, "wb") as f:
                f.write(text.encode("utf-8") if isinstance(text, str) else bytes(text))
            names[path] = name
            paths.append(path)
        status, out, err = run(*[paths[a] if isinstance(a, int) else a for a in args], "--json")
    if status not in (0, 1):
        raise _error(status, err, names)
    return json.loads(out)


def _target(args, target):
    return args + ["--target", target] if target else args


_KNOWN = {}


def _known(cmd):
    """The command's options as its own --help lists them: the one list the
    Python functions are checked against, so that they cannot drift."""
    if cmd not in _KNOWN:
        status, out, err = run(cmd, "--help")
        _KNOWN[cmd] = set(re.findall(r"--([a-z][a-z0-9-]*)", out))
    return _KNOWN[cmd]


def _options(args, cmd=None, **opts):
    """Keyword arguments as the command's options: ``foo_bar=1`` is
    ``--foo-bar 1``, True a bare flag, a list a repeated option. With
    ``cmd``, a name the command does not take raises TypeError."""
    for key, value in opts.items():
        name = key.replace("_", "-")
        if cmd and name not in _known(cmd):
            raise TypeError("vmemscope %s has no option --%s (vmemscope %s --help lists them: %s)" % (
                cmd, name, cmd, ", ".join(sorted(_known(cmd)))))
        if value is None or value is False:
            continue
        flag = "--" + name
        for v in (value if isinstance(value, (list, tuple)) else [value]):
            args += [flag] if v is True else [flag, str(v)]
    return args


# ---- the functions --------------------------------------------------------------

def size(shape, target=None):
    """Exact padded and unpadded bytes of an XLA shape (``"bf16[129,1024]"``,
    with or without a layout) on a TPU: the shape object of ``size --json``
    (``bytes``, ``unpadded_bytes``, ``padding_bytes``, ``layout``, ...). A list
    of shapes gives a list of objects."""
    shapes = [shape] if isinstance(shape, str) else list(shape)
    doc = _json(_target(["size", *shapes], target))
    return doc["shapes"][0] if isinstance(shape, str) else doc["shapes"]


def check_hlo(text, target=None, instruction=None, tight=False, flags=None, vmem_limit_bytes=None, top=None,
              summary=False, **options):
    """An HLO module (any XLA text dump) or StableHLO text: the ``check``
    document, with every instruction's sizes, each Pallas kernel's exact
    scoped footprint against its limit, and for HLO the program-scoped
    verdict (``doc["program"]["fits"]``). With ``instruction``, the kernel
    document of that custom call. ``summary=True`` lists only the custom
    calls under ``computations[].instructions`` (for large dumps: the
    totals, largest buffers and program verdict are all still there)."""
    name = "input.stablehlo.mlir" if _is_stablehlo(text) else "input.hlo"
    args = _options(_target(["check", 0], target), "check", instruction=instruction, tight=tight, flags=flags,
                    vmem_limit_bytes=vmem_limit_bytes, top=top, summary=summary, **options)
    return _json(args, [(name, text)])


def _is_stablehlo(text):
    head = text[:8192] if isinstance(text, str) else text[:8192].decode("utf-8", "replace")
    return "HloModule" not in head and ("stablehlo." in head or "mhlo." in head)


def check_kernel(kernel, target=None, vmem_limit_bytes=None, flags=None, **options):
    """A Pallas kernel: Mosaic MLIR text, its bytecode (bytes, or base64
    text), or a JSON kernel spec (a str, or a dict); the kernel object of
    ``check --json`` (``scoped_bytes``, ``limit_bytes``, ``fits``,
    ``allocations``, and ``remedies`` when it does not fit)."""
    if isinstance(kernel, dict):
        kernel = json.dumps(kernel)
    args = _options(_target(["check", 0], target), "check", vmem_limit_bytes=vmem_limit_bytes, flags=flags, **options)
    return _json(args, [("kernel", kernel)])["kernels"][0]


def _log_text(log):
    """The text of a log given as the exception JAX raised (its message),
    a path to a log file, bytes, or the text itself."""
    if isinstance(log, BaseException):
        return str(log)
    if isinstance(log, os.PathLike) or (isinstance(log, str) and "\n" not in log and len(log) < 4096
                                        and os.path.isfile(log)):
        with open(log, "rb") as f:
            return f.read()
    return log


def explain(log, target=None, hlo=None, kernel=None):
    """The TPU compiler's memory errors in a log: the ``explain`` document
    (``errors``, each with its kind, sizes and remedies). ``log`` is the
    exception JAX raised (``XlaRuntimeError``/``JaxRuntimeError``), its
    string, a log file's path, or the log's text. With ``hlo`` (the module's
    text), each error is linked to its instruction."""
    inputs = [("compile.log", _log_text(log))]
    args = _target(["explain", 0], target)
    if hlo is not None:
        inputs.append(("module.hlo", hlo))
        args += ["--hlo", len(inputs) - 1]
    if kernel is not None:
        inputs.append(("kernel", json.dumps(kernel) if isinstance(kernel, dict) else kernel))
        args += ["--kernel", len(inputs) - 1]
    return _json(args, inputs)


def fit(kernel, target=None, top=5, **options):
    """Block sizes of a kernel (a spec, Mosaic MLIR or an HLO module with
    ``instruction``) that fit, ranked by the cost model: the ``fit`` document
    (``candidates``, ``best``). Every option of ``vmemscope fit`` is a
    keyword: ``param=["bm=256,512"]``, ``array=[...]``, ``flops=...``,
    ``buffers=True``, ``color=True``, ``allow_padding_blocks=True``,
    ``physical=True``, ``fixed_scratch=[...]``, ``vmem_limit_bytes=N``."""
    if isinstance(kernel, dict):
        kernel = json.dumps(kernel)
    args = _options(_target(["fit", 0], target), "fit", top=top, **options)
    return _json(args, [("kernel", kernel)])


def report(text, target=None, fit=False, name="input"):
    """The self-contained HTML report (``vmemscope report``) of a module,
    StableHLO, a kernel or a compiler log given as text; returns the page as
    a str, e.g. for ``IPython.display.HTML``. ``name`` is the file name the
    page shows."""
    with tempfile.TemporaryDirectory(prefix="vmemscope-") as d:
        path = os.path.join(d, name)
        with open(path, "wb") as f:
            f.write(text.encode("utf-8") if isinstance(text, str) else bytes(text))
        args = ["report", path] + (["--fit"] if fit else []) + (["--target", target] if target else [])
        status, out, err = run(*args)
    if status not in (0, 1):
        raise _error(status, err, {path: name})
    return out.replace(path, name)
