"""A pytest plugin for kernel authors: one line in a conftest.py,

    pytest_plugins = ["vmemscope.pytest_plugin"]

(or ``pytest -p vmemscope.pytest_plugin``) gives every test the fixture
``vmem_fits``: ``vmem_fits(f, *args)`` lowers ``f`` for TPU, checks every
``pallas_call`` in it for each target, and fails the test with the E1001
message the compiler would print and the remedies when one does not fit.

The targets are, first found of: the test's marker
``@pytest.mark.vmem_targets("v5e", "v6e")``, the ``--vmem-targets=v5e,v6e``
option, the ``vmem_targets`` ini setting, and v5e, v6e and 7x. A kernel
"at risk" (it fits with the body's estimated values, not at their
ceiling) passes, unless ``--vmem-strict`` or the ``vmem_strict`` ini
setting asks that it fail too (``check --strict``). JAX is imported when
the fixture is first used, not when the plugin loads.

With ``--vmem-compile`` (or the ``vmem_compile`` ini setting) the guard
asks the real compiler too (libtpu, ahead of time: ``check --compile``,
docs/compiler.md) and asserts its verdict when a libtpu is installed; where
none is, it asserts the model's. The run's header says which, and so does
every failure.
"""
import pytest

DEFAULT_TARGETS = ("v5e", "v6e", "7x")


def pytest_addoption(parser):
    parser.addoption("--vmem-targets", default=None,
                     help="vmemscope: the TPU generations vmem_fits checks, comma-separated (default v5e,v6e,7x)")
    parser.addini("vmem_targets", "vmemscope: the TPU generations vmem_fits checks", type="args", default=[])
    parser.addoption("--vmem-strict", action="store_true", default=False,
                     help="vmemscope: vmem_fits fails a kernel at risk too (it fits only with the body's estimate)")
    parser.addini("vmem_strict", "vmemscope: vmem_fits fails a kernel at risk too", type="bool", default=False)
    parser.addoption("--vmem-compile", action="store_true", default=False,
                     help="vmemscope: vmem_fits asserts the real compiler's verdict (libtpu) where it is installed")
    parser.addini("vmem_compile", "vmemscope: vmem_fits asserts the real compiler's verdict", type="bool",
                  default=False)


def _judge(config):
    """Who decides: ("compiler", its version) when --vmem-compile is asked
    and a libtpu is found; else ("model", why)."""
    if not (config.getoption("--vmem-compile") or config.getini("vmem_compile")):
        return "model", "the model (--vmem-compile not asked)"
    cached = getattr(config, "_vmem_judge", None)
    if cached:
        return cached
    import vmemscope
    try:
        found = vmemscope.compiler()
        judge = ("compiler", "the compiler (%s, %s)" % (found["version"], found["path"]))
    except vmemscope.Error as e:
        judge = ("model", "the model: --vmem-compile asked, but %s" % e)
    config._vmem_judge = judge
    return judge


def pytest_report_header(config):
    if config.getoption("--vmem-compile") or config.getini("vmem_compile"):
        return "vmemscope: vmem_fits is judged by " + _judge(config)[1]
    return None


def pytest_configure(config):
    config.addinivalue_line("markers", "vmem_targets(*targets): the TPU generations vmem_fits checks in this test")


def _targets(request):
    marker = request.node.get_closest_marker("vmem_targets")
    if marker and marker.args:
        return tuple(marker.args)
    opt = request.config.getoption("--vmem-targets")
    if opt:
        return tuple(t for t in opt.split(",") if t)
    ini = request.config.getini("vmem_targets")
    return tuple(ini) if ini else DEFAULT_TARGETS


@pytest.fixture
def vmem_fits(request):
    """``vmem_fits(f, *args, **limits)``: every kernel of ``f(*args)`` must fit
    on every target; returns the vmemscope.jax.CheckResult."""
    from vmemscope import jax as vj
    targets = _targets(request)

    strict = request.config.getoption("--vmem-strict") or request.config.getini("vmem_strict")

    who, said = _judge(request.config)

    def check(f, *args, **kwargs):
        kwargs.setdefault("targets", targets)
        kwargs.setdefault("strict", strict)
        if who == "compiler":
            kwargs.setdefault("compile", True)
        try:
            result = vj.assert_fits(f, *args, **kwargs)
        except vj.VmemOverflow as e:
            pytest.fail("VMEM: a Pallas kernel does not fit (judged by %s)\n%s" % (said, e), pytrace=False)
        result.judged_by = said
        return result

    return check
