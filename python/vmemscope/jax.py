"""vmemscope for JAX: check, fit and guard Pallas kernels from the Python
code that defines them, for any TPU generation, on a machine without a TPU.

JAX lowers a ``pallas_call`` for TPU on any machine (``jax.jit(f).trace(*args)
.lower(lowering_platforms=("tpu",))``, JAX >= 0.4.30); the lowered StableHLO
carries each kernel's Mosaic body in its ``tpu_custom_call``, and vmemscope
reads that text exactly as ``vmemscope check`` does. Nothing here runs a
kernel or needs libtpu. See docs/jax.md.

    import vmemscope.jax as vj
    result = vj.check(my_matmul, x, y, target="v6e")
    print(result)              # as the CLI prints it
    result[0].scoped_bytes     # exact
    vj.assert_fits(my_matmul, x, y, targets=("v5e", "v6e", "7x"))

Importing ``vmemscope`` does not import JAX; importing this module does.
"""
import contextlib
import hashlib
import itertools
import json as _json
import os
import sys
import tempfile
import time

import jax

import vmemscope as _vs

__all__ = ["check", "fit", "assert_fits", "lower", "CheckResult", "KernelResult", "FitResult", "Candidate",
           "VmemOverflow", "NoKernelError", "JaxVersionError", "MIN_JAX"]

MIN_JAX = (0, 4, 30)  # jax.export and Traced.lower(lowering_platforms=...) (JAX's changelog, 0.4.30)


class JaxVersionError(ImportError):
    """The installed JAX cannot lower for TPU on this machine."""


class NoKernelError(_vs.Error):
    """The function lowers to no ``pallas_call``: nothing for vmemscope to size."""


class VmemOverflow(AssertionError):
    """A kernel's scoped VMEM exceeds its limit: the compiler would fail with
    E1001. ``results`` holds every :class:`KernelResult` that does not fit."""

    def __init__(self, message, results):
        super().__init__(message)
        self.results = results


def _version_tuple(v):
    out = []
    for part in v.split(".")[:3]:
        digits = "".join(itertools.takewhile(str.isdigit, part))
        out.append(int(digits or 0))
    return tuple(out)


def _require_jax():
    if _version_tuple(jax.__version__) < MIN_JAX:
        raise JaxVersionError("vmemscope.jax lowers pallas_calls for TPU with jax.jit(f).trace(...).lower("
                              "lowering_platforms=('tpu',)), which needs jax >= %s; this is jax %s "
                              "(pip install 'jax>=%s')" % (".".join(map(str, MIN_JAX)), jax.__version__,
                                                           ".".join(map(str, MIN_JAX))))


# ---- lowering -------------------------------------------------------------------

_TARGETS = None


def _target_facts(target):
    """The generation table's row for target (name or alias), from the library."""
    global _TARGETS
    if _TARGETS is None:
        status, out, err = _vs.run("targets", "--json")
        _TARGETS = _json.loads(out)["targets"]
    for g in _TARGETS:
        if g["name"] == target or target in g.get("aliases", "").split(","):
            return g
    raise _vs.Error("unknown target '%s' (vmemscope targets lists them)" % target)


def _device_context(target):
    """Lowering as if on target's TPU: Pallas asks the device it lowers for
    its kind (tpu_info.get_tpu_info(); some kernels' lowering depends on
    it, and on a CPU host it would be "cpu"). JAX's abstract mesh carries an
    abstract device for exactly this (jax.sharding.use_abstract_mesh). A
    megacore chip's device has two cores."""
    sharding = jax.sharding
    if target is None or not hasattr(sharding, "AbstractDevice") or not hasattr(sharding, "use_abstract_mesh"):
        return contextlib.nullcontext()
    g = _target_facts(target)
    device = sharding.AbstractDevice(device_kind=g["device_kind"], num_cores=2 if g["megacore"] else 1,
                                     platform="tpu")
    return sharding.use_abstract_mesh(sharding.AbstractMesh((1,), ("vmemscope",), abstract_device=device))


def lower(f, *args, target=None, **kwargs):
    """The StableHLO text of ``f(*args, **kwargs)`` lowered for TPU, on any
    machine: what ``vmemscope check`` reads. ``f`` may be jitted or not;
    args are arrays or ``jax.ShapeDtypeStruct``s. With ``target``, Pallas
    lowers as for that generation's device. A failure to trace or lower is
    JAX's own error, passed on with a note."""
    _require_jax()
    jitted = f if hasattr(f, "trace") else jax.jit(f)
    try:
        with _device_context(target):
            if hasattr(jitted, "trace"):
                lowered = jitted.trace(*args, **kwargs).lower(lowering_platforms=("tpu",))
                return lowered.as_text()
            exported = jax.export.export(jitted, platforms=["tpu"])(*args, **kwargs)
            return exported.mlir_module()
    except _vs.Error:
        raise
    except Exception as e:  # JAX's error is the user's to read: add where it came from, change nothing
        if hasattr(e, "add_note"):
            e.add_note("(vmemscope.jax: raised by JAX while lowering %s for TPU; the error is JAX's)"
                       % getattr(f, "__name__", repr(f)))
        raise


# ---- results --------------------------------------------------------------------

class Operand:
    """One operand of a kernel as the kernel declares it: ``name`` ("arg3"),
    ``role`` (input, output, scratch, prefetch), ``space`` (vmem, any, smem,
    semaphore), ``dtype``, ``block`` (a tuple, None for a semaphore),
    ``index`` (per block dim the grid axis it follows, 0 for a constant),
    ``buffers`` as allocated, ``array`` (the whole array's dims, or None) and
    ``prefetched`` (copied whole into VMEM before the kernel and read in
    place, no window: 7x, docs/kernels.md)."""

    __slots__ = ("name", "role", "space", "dtype", "block", "index", "buffers", "array", "prefetched")

    def __init__(self, d):
        self.name, self.role, self.space, self.dtype = d["name"], d["role"], d["space"], d["dtype"]
        self.block = tuple(d["block"]) if d["block"] is not None else None
        self.index = tuple(d["index"]) if d["index"] is not None else None
        self.buffers = d["buffers"]
        self.array = tuple(d["array"]) if d.get("array") is not None else None
        self.prefetched = d.get("prefetched", False)

    def __repr__(self):
        return "Operand(%s %s %s %s%s x%d)" % (self.name, self.role, self.space, self.dtype,
                                             list(self.block) if self.block else "", self.buffers)


class KernelResult:
    """One ``pallas_call`` on one target: the figures of ``vmemscope check
    --instruction``. ``scoped_bytes`` is exact (windows x buffers + scratch);
    ``predicted_bytes`` adds the body's values (``modelled_bytes``, a model:
    docs/kernels.md); ``fits`` compares that with ``limit_bytes`` (whose
    origin is ``limit_origin``: kernel, flag or default) and ``smem_bytes``
    with ``smem_capacity_bytes`` (``smem_fits``), and ``verdict`` is scoped
    VMEM's: fits, at_risk, likely_e1001 (the exact part fits, the body's
    values do not) or e1001. ``ceiling_bytes`` is the exact part plus the
    body's values at the model's ceiling (``modelled_high_bytes``: each rule
    at its worst error on the compiler's records); ``fits`` as the verdict
    means that fits too, ``at_risk`` that only the estimate does, or
    (``estimate_over``) that the estimate is over only through rules used
    outside the shapes they were measured on: ``firm_bytes``, the exact
    part and the values sized inside their domain, decides likely_e1001.
    ``prefetched_bytes``: inputs the compiler copies
    whole into VMEM before the kernel (7x), program-scoped, not in
    ``scoped_bytes``. ``remedies`` (when it does not
    fit) and ``cost`` (the cost model, modelled) are the JSON objects of
    docs/json.md; ``doc`` is the whole kernel object."""

    def __init__(self, doc, lowered, op, target, limit_args=()):
        self.doc, self.lowered, self.op, self.target = doc, lowered, op, target
        self._limit_args, self._text = list(limit_args), None
        self.name = doc["name"]
        self.grid = tuple(doc["grid"])
        self.operands = [Operand(o) for o in doc.get("operands", [])]
        self.scratch = [o for o in self.operands if o.role == "scratch"]
        self.scoped_bytes = doc["scoped_bytes"]
        self.internal_scratch_bytes = doc["internal_scratch_bytes"]
        self.needed_bytes = doc.get("predicted_bytes", doc["scoped_bytes"])  # what must fit, as the verdict counts
        self.limit_bytes = doc["limit_bytes"]
        self.limit_origin = doc["limit_origin"]
        self.predicted_bytes = doc.get("predicted_bytes", doc["scoped_bytes"])
        self.modelled_bytes = doc.get("modelled_bytes", 0)
        self.modelled_high_bytes = doc.get("modelled_high_bytes", self.modelled_bytes)
        self.ceiling_bytes = doc.get("ceiling_bytes", self.predicted_bytes)
        self.firm_bytes = doc.get("firm_bytes", self.predicted_bytes)
        self.estimate_over = doc.get("estimate_over", False)
        self.prefetched_bytes = doc.get("prefetched_bytes", 0)
        self.verdict = doc.get("verdict", "fits" if doc["fits"] else "e1001")
        self.fits = doc["fits"]  # scoped VMEM and SMEM both (the library's vmem_kernel_verdict)
        self.at_risk = doc["at_risk"]
        self.smem_bytes = doc.get("smem_bytes", 0)
        self.smem_capacity_bytes = doc.get("smem_capacity_bytes", 0)
        self.smem_fits = doc.get("smem_fits", True)
        self.remedies = doc.get("remedies")
        self.cost = doc.get("cost")
        # check(compile=True): the compiler's word on this kernel (docs/compiler.md)
        self.compiler = None

    @property
    def compiler_fits(self):
        """With ``check(..., compile=True)``: True when the real compiler
        compiled the kernel, False when it ran out of scoped VMEM (E1001),
        None when it was not asked or gave no verdict (another error)."""
        c = self.compiler
        if not c:
            return None
        return True if c["verdict"] == "compiled" else False if c["verdict"] == "E1001" else None

    @property
    def text(self):
        """What ``vmemscope check LOWERED --instruction OP`` prints (made on
        first use: a search need not print every candidate)."""
        if self._text is None:
            self._text = _cli_text(self.lowered, ["--target", self.target, "--instruction", self.op] + self._limit_args)
        return self._text

    @property
    def time_s(self):
        return self.cost["time_s"] if self.cost else None

    def code(self):
        """The lines to write for the first remedy that needs no redesign:
        the per-kernel limit, as ``pltpu.CompilerParams(...)``, holding the
        body's values at their ceiling; [] when it fits at the ceiling or no
        limit can help (the request is above physical VMEM)."""
        if (self.fits and not self.at_risk) or not self.remedies or not self.remedies.get("within_physical"):
            return []
        return ["compiler_params=pltpu.CompilerParams(vmem_limit_bytes=%d)" % self.remedies["vmem_limit_bytes"]]

    def e1001(self):
        """The compiler's E1001 message for this kernel, as vmemscope
        predicts it ('' when it fits); check prints it after "predicted: "
        so that no log scraper takes it for the compiler's own."""
        tag = "predicted: "
        return next((l[len(tag):] for l in self.text.splitlines() if l.startswith(tag + "RESOURCE_EXHAUSTED")), "")

    def to_json(self):
        return _json.dumps(self.doc, indent=2)

    def __str__(self):
        return self.text

    def __repr__(self):
        return "<KernelResult %s on %s: scoped %d of %d (%s), %s>" % (
            self.name, self.target, self.scoped_bytes, self.limit_bytes, self.limit_origin,
            "fits" if self.fits else "DOES NOT FIT")

    def _repr_html_(self):
        return _vs.report(self.lowered, target=self.target, name=self.name + ".stablehlo.mlir")


class CheckResult(list):
    """Every kernel of the function on every target asked for, in module
    order (one :class:`KernelResult` per kernel and target). ``text`` is what
    ``vmemscope check`` prints for the lowered module; ``lowered`` is that
    module, to save and give the CLI (which prints the same figures)."""

    def __init__(self, results, texts, docs, limit_args=()):
        super().__init__(results)
        self.texts, self.docs, self._limit_args = texts, docs, list(limit_args)
        self.lowered = next(iter(texts.values()))  # the first target's; texts[t] for each

    @property
    def fits(self):
        return all(r.fits for r in self)

    @property
    def text(self):
        """What ``vmemscope check LOWERED --target T`` prints, per target."""
        return "\n".join(_cli_text(self.texts[t], ["--target", t] + self._limit_args).rstrip("\n") for t in self.docs)

    def __str__(self):
        return self.text

    def to_json(self):
        return _json.dumps(list(self.docs.values()) if len(self.docs) > 1 else next(iter(self.docs.values())),
                           indent=2)

    def _repr_html_(self):
        return _vs.report(self.lowered, target=next(iter(self.docs)), name="lowered.stablehlo.mlir")


# ---- check ------------------------------------------------------------------------

def _limit_args(vmem_limit_bytes=None, scoped_vmem_limit_kib=None, flags=None):
    args = []
    if vmem_limit_bytes is not None:
        args += ["--vmem-limit-bytes", str(int(vmem_limit_bytes))]
    fl = [flags] if flags else []
    if scoped_vmem_limit_kib is not None:
        fl.append("--xla_tpu_scoped_vmem_limit_kib=%d" % int(scoped_vmem_limit_kib))
    if fl:
        args += ["--flags", " ".join(fl)]
    return args


def _cli_text(lowered, args):
    """``vmemscope check`` on the lowered text, as the CLI prints it."""
    with tempfile.TemporaryDirectory(prefix="vmemscope-jax-") as d:
        path = os.path.join(d, "lowered.stablehlo.mlir")
        with open(path, "w", encoding="utf-8") as f:
            f.write(lowered)
        status, out, err = _vs.run("check", path, *args)
    if status not in (0, 1):
        raise _vs._error(status, err, {path: "<lowered module>"})
    return out.replace(path, "<lowered module>")


def _ops_listing(doc):
    names = sorted({op.get("opcode", "?") for op in doc.get("ops", [])})
    return ", ".join(names) if names else "no ops"


class _Checker:
    """Runs vmemscope over lowered texts, one temporary file per text; a
    text seen before (two candidates that lower alike) is not checked
    again."""

    def __init__(self):
        self.dir = tempfile.TemporaryDirectory(prefix="vmemscope-jax-")
        self.cache = {}

    def close(self):
        self.dir.cleanup()

    def _file(self, text):
        key = hashlib.sha1(text.encode("utf-8")).hexdigest()
        path = os.path.join(self.dir.name, key + ".stablehlo.mlir")
        if not os.path.exists(path):
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        return key, path

    def _run(self, args, path):
        status, out, err = _vs.run(*args)
        if status not in (0, 1):
            raise _vs._error(status, err, {path: "<lowered module>"})
        return out

    def _compiled(self, args, path):
        """check --compile: its document even when the compiler refused the
        module for a reason other than memory (exit 2 with a "compiler"
        object); an error of vmemscope's own otherwise."""
        status, out, err = _vs.run(*args)
        try:
            doc = _json.loads(out) if out else None
        except ValueError:
            doc = None
        if status not in (0, 1) and not (doc and "compiler" in doc):
            raise _vs._error(status, err, {path: "<lowered module>"})
        return doc

    def check(self, text, target, limit_args, name, compile_args=None):
        key, path = self._file(text)
        memo = (key, target, tuple(limit_args), tuple(compile_args or ()))
        if memo in self.cache:
            return self.cache[memo]
        base = ["check", path, "--target", target] + limit_args
        if compile_args is not None:
            doc = self._compiled(base + ["--compile"] + compile_args + ["--json"], path)
        else:
            doc = _json.loads(self._run(base + ["--json"], path))
        kernels = [op for op in doc.get("ops", []) if "kernel" in op]
        if not kernels:
            raise NoKernelError("%s lowers to no pallas_call (no tpu_custom_call in its module): its ops are %s. "
                                "vmemscope.jax sizes Pallas kernels; for a whole program, compile it "
                                "ahead of time and give the HLO to vmemscope.check_hlo" % (name, _ops_listing(doc)))
        results = []
        for op in kernels:
            k = op["kernel"]
            if "error" in k:
                raise _vs.Error("%s: kernel %s cannot be sized: %s" % (name, op.get("result"), k["error"]))
            results.append(KernelResult(k, text, op["result"], target, limit_args))
        comp = doc.get("compiler")
        if comp:
            for r, kc in zip(results, comp.get("kernels", [])):
                r.compiler = dict(kc, verdict=comp["verdict"], error=comp.get("error"), seconds=comp.get("seconds"),
                                  libtpu_version=comp.get("libtpu_version"), status=comp.get("status"))
        out = (results, doc)
        self.cache[memo] = out
        return out


def _targets(target, targets):
    if targets is not None:
        return [targets] if isinstance(targets, str) else list(targets)
    return [target or os.environ.get("VMEMSCOPE_TARGET") or "v5e"]


def _compile_args(libtpu=None, compile_timeout=None):
    args = []
    libtpu = libtpu or _vs._python_libtpu()
    if libtpu:
        args += ["--libtpu", str(libtpu)]
    if compile_timeout:
        args += ["--compile-timeout", str(compile_timeout)]
    return args


def check(f, *args, target=None, targets=None, vmem_limit_bytes=None, scoped_vmem_limit_kib=None, flags=None,
          compile=False, libtpu=None, compile_timeout=None, **kwargs):
    """Every ``pallas_call`` in ``f(*args, **kwargs)``, lowered for TPU and
    sized for ``target`` (or each of ``targets``): a :class:`CheckResult`.

    The limits are those the compiler would apply: each kernel's own
    ``vmem_limit_bytes``, else ``scoped_vmem_limit_kib`` (the
    ``--xla_tpu_scoped_vmem_limit_kib`` flag) or ``flags`` (libtpu flags, as
    in ``LIBTPU_INIT_ARGS``, which is read too), else the generation's
    default. ``vmem_limit_bytes`` here overrides every kernel's own.

    With ``compile=True`` the module is also compiled by the real compiler
    (libtpu, ahead of time, no TPU: ``check --compile``, docs/compiler.md;
    ``libtpu`` names the file, else it is found as :func:`vmemscope.compiler`
    finds it): each KernelResult's ``compiler`` holds the compiler's figure
    and verdict beside the model's, and ``compiler_fits`` its answer."""
    name = getattr(f, "__name__", "the function")
    checker = _Checker()
    try:
        limit_args = _limit_args(vmem_limit_bytes, scoped_vmem_limit_kib, flags)
        comp = _compile_args(libtpu, compile_timeout) if compile else None
        results, docs, texts = [], {}, {}
        for t in _targets(target, targets):
            texts[t] = lower(f, *args, target=t, **kwargs)  # per target: Pallas may lower by generation
            rs, docs[t] = checker.check(texts[t], t, limit_args, name, comp)
            results += rs
        return CheckResult(results, texts, docs, limit_args)
    finally:
        checker.close()


def assert_fits(f, *args, targets=("v5e", "v6e", "7x"), target=None, strict=False, **kwargs):
    """For a kernel author's own tests: raises :class:`VmemOverflow` (an
    AssertionError) when any kernel of ``f(*args)`` does not fit its scoped
    VMEM limit on any of ``targets``, with the E1001 message the compiler
    would print and the remedies. With ``strict``, a kernel at risk (it fits
    with the body's estimated values, not at their ceiling) fails too, as
    ``check --strict`` does. Returns the :class:`CheckResult` when all
    fit."""
    result = check(f, *args, target=target, targets=None if target else targets, **kwargs)
    if kwargs.get("compile"):
        return _assert_compiled(result)
    over = [r for r in result if not r.fits or (strict and r.at_risk)]
    if not over:
        return result
    lines = []
    for r in over:
        if r.verdict == "at_risk" and r.estimate_over:
            lines.append("%s on %s: at risk: with the body's estimated values the kernel needs %d bytes, over the %s "
                         "limit %d bytes, but only through rules used outside the shapes they were measured on; "
                         "the rules inside their domain need %d" % (
                             r.name, r.target, r.predicted_bytes, r.limit_origin, r.limit_bytes, r.firm_bytes))
        elif r.verdict == "at_risk":
            lines.append("%s on %s: at risk: it fits the %s limit %d bytes with the body's estimated values (%d "
                         "bytes needed), not at their ceiling (%d bytes)" % (
                             r.name, r.target, r.limit_origin, r.limit_bytes, r.predicted_bytes,
                             r.doc["ceiling_bytes"]))
        elif r.verdict == "likely_e1001":
            lines.append("%s on %s: likely E1001 (modelled: body values): windows and scratch %d bytes fit the %s "
                         "limit %d bytes, but with the body's values (%d bytes) the kernel needs %d" % (
                             r.name, r.target, r.scoped_bytes, r.limit_origin, r.limit_bytes, r.modelled_bytes,
                             r.predicted_bytes))
            for a in r.doc.get("allocations", []):
                if a["kind"] == "modelled":
                    lines.append("  body value: %s (%d bytes)" % (a.get("note", ""), a["bytes"]))
        else:
            lines.append("%s on %s: scoped VMEM %d bytes exceeds the %s limit %d bytes" % (
                r.name, r.target, r.scoped_bytes, r.limit_origin, r.limit_bytes))
            lines.append("  " + r.e1001())
        rem = r.remedies or {}
        for s in rem.get("shrink", []):
            lines.append("  remedy: %s block dim %d: %d -> %d (scoped %d bytes)" % (
                s["param"] or s["operand"], s["dim"], s["from"], s["to"], s["scoped_bytes"]))
        if rem.get("within_physical"):
            lines.append("  remedy: compiler_params=pltpu.CompilerParams(vmem_limit_bytes=%d)" %
                         rem["vmem_limit_bytes"])
        else:
            lines.append("  no limit can help: %d bytes is above physical VMEM; use smaller blocks" %
                         rem.get("vmem_limit_bytes", r.needed_bytes))
        for b in rem.get("buffered1", []):
            lines.append("  remedy: pipeline_mode=pl.Buffered(1) on %s" % b)
    raise VmemOverflow("\n".join(lines), over)


def _assert_compiled(result):
    """assert_fits with the compiler's word: a kernel fails when the real
    compiler ran out of scoped VMEM for it; a compile that gave no verdict
    (refused for another reason, crashed, timed out) is an error."""
    lines = []
    for r in result:
        c = r.compiler or {}
        if r.compiler_fits is None:
            raise _vs.Error("%s on %s: the compiler gave no verdict (%s): %s" % (
                r.name, r.target, c.get("status", "not compiled"), (c.get("error") or "").splitlines()[:1]))
        if not r.compiler_fits:
            lines.append("%s on %s: the compiler (%s) ran out of scoped VMEM; the model predicted %d bytes "
                         "(%s) against a limit of %d" % (r.name, r.target, c.get("libtpu_version"),
                                                         r.predicted_bytes, r.verdict, r.limit_bytes))
            lines.append("  " + (c.get("error") or "").splitlines()[0] if c.get("error") else "")
        if c.get("disagreement"):
            lines.append("  the model disagreed: " + c["disagreement"])
    if lines:
        raise VmemOverflow("\n".join(l for l in lines if l), [r for r in result if not r.compiler_fits])
    return result


# ---- fit ----------------------------------------------------------------------------

class Candidate:
    """One assignment of the parameters: ``params`` (a dict), ``kernels``
    (its KernelResults, exact), ``fits``, ``needed_bytes`` (the largest
    kernel's scoped + the body's estimated values), ``ceiling_bytes`` (the
    same at the body model's ceiling), ``at_risk`` (it fits with the estimate,
    not at the ceiling), ``time_s`` (the cost model, summed over its
    kernels), or ``error`` when ``build`` or lowering failed."""

    def __init__(self, params, kernels=None, error=None):
        self.params, self.kernels, self.error = params, kernels or [], error
        self.fits = error is None and all(k.fits for k in self.kernels)
        self.at_risk = self.fits and any(k.at_risk for k in self.kernels)
        self.scoped_bytes = max((k.scoped_bytes for k in self.kernels), default=0)
        self.needed_bytes = max((k.needed_bytes for k in self.kernels), default=0)
        self.ceiling_bytes = max((k.ceiling_bytes for k in self.kernels), default=0)
        self.time_s = sum(k.time_s or 0 for k in self.kernels) if not error else float("inf")
        self.compiler = None  # fit(confirm=N): the compiler's document (check --compile's "compiler")
        self.text = None

    @property
    def compiles(self):
        """fit(confirm=N): True when the real compiler compiled it, False when
        it refused it (for memory or another reason), None when not asked."""
        if self.compiler is None:
            return None
        return self.compiler.get("status") == "compiled"

    def __repr__(self):
        if self.error:
            return "<Candidate %s: %s>" % (self.params, self.error)
        return "<Candidate %s: scoped %d, %.2f us, %s>" % (self.params, self.scoped_bytes, self.time_s * 1e6,
                                                          "fits" if self.fits else "does not fit")


class FitResult:
    """``candidates``: every assignment, fitting ones first by predicted time
    (the roofline of ``vmemscope fit``, docs/cost-model.md), those at risk
    after those that fit at the body model's ceiling, then the rest by
    scoped bytes; ``best``: the first of them, the fastest that fits at the
    ceiling when one does (None if none fits);
    ``vmem_limit_bytes``: with ``physical=True``, the limit the best needs
    when it is above the one in force (None otherwise); ``rate``:
    candidates lowered and checked per second."""

    def __init__(self, candidates, best, vmem_limit_bytes, target, seconds, confirm_seconds=None):
        self.candidates, self.best, self.vmem_limit_bytes, self.target = candidates, best, vmem_limit_bytes, target
        self.seconds = seconds
        self.rate = len(candidates) / seconds if seconds > 0 else float("inf")
        self.confirm_seconds = confirm_seconds  # fit(confirm=N): the compiles' wall time
        self.confirmed = [c for c in candidates if c.compiler is not None]

    @property
    def params(self):
        return self.best.params if self.best else None

    def code(self):
        """What to write: the best parameters, and the limit to request."""
        if not self.best:
            return ""
        s = ", ".join("%s=%r" % kv for kv in self.best.params.items())
        if self.vmem_limit_bytes:
            s += "\ncompiler_params=pltpu.CompilerParams(vmem_limit_bytes=%d)" % self.vmem_limit_bytes
        return s

    def __str__(self):
        fitting = [c for c in self.candidates if c.fits]
        out = ["fit on %s: %d candidates, %d fit (%.1f per second)" % (
            self.target, len(self.candidates), len(fitting), self.rate)]
        out.append("  %-40s %12s %12s %12s" % ("PARAMS", "SCOPED", "NEEDED", "TIME"))
        for c in fitting[:10]:
            out.append("  %-40s %12d %12d %9.2f us" % (
                " ".join("%s=%s" % kv for kv in c.params.items()), c.scoped_bytes, c.needed_bytes, c.time_s * 1e6))
        if self.confirmed:
            out.append("confirmed by the compiler (%s) in %.1f s; the model took %.2f s for all %d:" % (
                self.confirmed[0].compiler.get("libtpu_version"), self.confirm_seconds or 0, self.seconds,
                len(self.candidates)))
            for c in self.confirmed:
                k = c.compiler
                fig = k.get("figure")
                out.append("  %-40s %12d %12s %s (%.2f s)" % (
                    " ".join("%s=%s" % kv for kv in c.params.items()), c.needed_bytes,
                    fig if fig is not None else "-", k.get("verdict"), k.get("seconds") or 0))
        out.append("best: " + (self.code().replace("\n", "; ") if self.best else "none fits"))
        return "\n".join(out)

    def __repr__(self):
        return "<FitResult %d candidates, best %s>" % (len(self.candidates), self.params)


def _progress(i, n, start, stream):
    rate = i / max(time.monotonic() - start, 1e-9)
    stream.write("\rvmemscope.jax.fit: %d/%d candidates (%.0f/s)" % (i, n, rate))
    if i == n:
        stream.write("\n")
    stream.flush()


def fit(build, *args, params, target=None, physical=False, progress=None, vmem_limit_bytes=None,
        scoped_vmem_limit_kib=None, flags=None, confirm=0, libtpu=None, compile_timeout=None, **kwargs):
    """Searches ``params`` ({"block_m": [128, 256, ...], ...}): for every
    combination, ``build(**combo)`` returns the function to check on
    ``*args``. Each candidate is lowered for TPU and sized exactly, with the
    scratch shapes and buffer counts its own code asks for, and ranked by
    the cost model of ``vmemscope fit``. With ``physical=True`` a candidate
    fits when it fits physical VMEM, and the result names the
    ``vmem_limit_bytes`` to request for the best. A combination that
    ``build`` or JAX rejects is kept as a candidate with its ``error``.
    ``progress`` (default: when stderr is a terminal) shows a line.

    With ``confirm=N`` the N best candidates by the model are compiled by
    the real compiler (libtpu, docs/compiler.md) and re-ranked by its
    verdict: those it compiles first, in the model's order; ``best`` is the
    first of them. Each confirmed candidate's ``compiler`` and ``compiles``
    say what it answered; ``confirm_seconds`` what it cost."""
    if not params:
        raise ValueError("fit needs params, e.g. params={'block_m': [128, 256, 512]}")
    names = list(params)
    combos = list(itertools.product(*[list(params[n]) for n in names]))
    t = _targets(target, None)[0]
    stream = sys.stderr
    show = progress if progress is not None else (hasattr(stream, "isatty") and stream.isatty() and len(combos) > 8)
    limit_args = _limit_args(vmem_limit_bytes, scoped_vmem_limit_kib, flags)
    phys = _target_facts(t)["vmem_bytes"] if physical else None
    checker = _Checker()
    start = time.monotonic()
    cands = []
    try:
        for i, combo in enumerate(combos, 1):
            p = dict(zip(names, combo))
            try:
                fn = build(**p)
                text = lower(fn, *args, target=t, **kwargs)
                # With physical, every kernel is sized against physical VMEM: its own limit is what to change.
                la = limit_args if not physical else ["--vmem-limit-bytes", str(phys)]
                rs, _ = checker.check(text, t, la, getattr(fn, "__name__", "candidate"))
                cands.append(Candidate(p, rs))
                cands[-1].text, cands[-1].limit_args = text, la
            except (NoKernelError, _vs.Error):
                raise
            except Exception as e:  # a combination build() or JAX rejects is a candidate that cannot be
                cands.append(Candidate(p, error="%s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e)
                                                           else "")))
            if show:
                _progress(i, len(combos), start, stream)
        # as vmemscope fit ranks them: a candidate at risk (the estimate fits, the ceiling does not) after the rest
        best = min((c for c in cands if c.fits), key=lambda c: (c.at_risk, c.time_s, c.needed_bytes), default=None)
        request = None
        if best is not None and physical:
            # The limit the best needs, by the library's own rule (remedies), when the one in force is short.
            fn = build(**best.params)
            rs, _ = checker.check(lower(fn, *args, target=t, **kwargs), t, limit_args, "best")
            over = [r.remedies["vmem_limit_bytes"] for r in rs if (not r.fits or r.at_risk) and r.remedies]
            request = max(over) if over else None
        model_seconds = time.monotonic() - start
        cands.sort(key=lambda c: (not c.fits, c.at_risk, c.time_s if c.fits else 0, c.needed_bytes))
        confirm_seconds = None
        if confirm:
            best, confirm_seconds = _confirm(checker, cands, int(confirm), t, _compile_args(libtpu, compile_timeout))
    finally:
        checker.close()
    return FitResult(cands, best, request, t, model_seconds, confirm_seconds)


def _confirm(checker, cands, n, target, compile_args):
    """Compiles the n best fitting candidates; those the compiler compiles
    move ahead of the rest, in the model's order. Returns the new best and
    the compiles' wall time."""
    start = time.monotonic()
    fitting = [c for c in cands if c.fits][:n]
    for c in fitting:
        _, doc = checker.check(c.text, target, c.limit_args, "candidate", compile_args)
        c.compiler = doc.get("compiler")
    order = {id(c): i for i, c in enumerate(cands)}
    cands.sort(key=lambda c: (c.compiles is False or not c.fits, c.compiles is not True, order[id(c)]))
    best = next((c for c in cands if c.compiles), None)
    return best, time.monotonic() - start
