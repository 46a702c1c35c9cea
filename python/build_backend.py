"""A PEP 517 build backend for the vmemscope package, from the standard
library alone, so that `pip install ./python` needs no download (setuptools
would be fetched into pip's isolated build environment).

The wheel holds the package and libvmemscope-cli.so beside it, so that an
installed package needs no $VMEMSCOPE_LIBRARY: the library is built here
with CMake from the checkout this folder sits in (or taken from
$VMEMSCOPE_WHEEL_LIBRARY, a built libvmemscope-cli.so). Without either (an
sdist, no CMake) the wheel is the pure-Python package, and the library comes
from `make install` or $VMEMSCOPE_LIBRARY at run time.
"""
import base64
import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))


def _version():
    """The library's version, read where it is written: the public header
    of the checkout this folder sits in, or (an sdist) its PKG-INFO."""
    header = os.path.join(HERE, "..", "include", "vmemscope.h")
    if os.path.exists(header):
        with open(header) as f:
            parts = dict(re.findall(r"^#define VMEM_VERSION_(MAJOR|MINOR|PATCH) (\d+)$", f.read(), re.M))
        return "%s.%s.%s" % (parts["MAJOR"], parts["MINOR"], parts["PATCH"])
    with open(os.path.join(HERE, "PKG-INFO")) as f:
        return re.search(r"^Version: (\S+)$", f.read(), re.M).group(1)


NAME, VERSION = "vmemscope", _version()
DIST_INFO = "%s-%s.dist-info" % (NAME, VERSION)
METADATA = ("Metadata-Version: 2.1\nName: %s\nVersion: %s\nSummary: TPU VMEM accounting offline over "
            "libvmemscope-cli.so\nRequires-Python: >=3.8\nLicense: Apache-2.0\n" % (NAME, VERSION))
VERSION_PY = "# Written by build_backend.py from include/vmemscope.h.\nversion = %r\n" % VERSION
WHEEL = "Wheel-Version: 1.0\nGenerator: vmemscope build_backend\nRoot-Is-Purelib: %s\nTag: py3-none-%s\n"


def _package_files():
    root = os.path.join(HERE, NAME)
    for name in sorted(os.listdir(root)):
        if name.endswith(".py") and name != "_version.py":  # the backend writes that one
            yield os.path.join(root, name), "%s/%s" % (NAME, name)


def _shared_library():
    """libvmemscope-cli.so's bytes, built from the checkout (or given), or None."""
    given = os.environ.get("VMEMSCOPE_WHEEL_LIBRARY")
    if given:
        with open(given, "rb") as f:
            return f.read()
    root = os.path.dirname(HERE)
    if not os.path.exists(os.path.join(root, "CMakeLists.txt")) or not shutil.which("cmake"):
        return None
    with tempfile.TemporaryDirectory(prefix="vmemscope-wheel-") as build:
        run = [["cmake", "-S", root, "-B", build, "-DCMAKE_BUILD_TYPE=Release", "-DVMEM_TESTS=OFF"],
               ["cmake", "--build", build, "--target", "vmemscope_cli_shared", "-j2"]]
        for cmd in run:
            r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            if r.returncode != 0:
                sys.stderr.write("vmemscope: building libvmemscope-cli.so failed; the wheel goes without it\n" + r.stdout[-2000:])
                return None
        for name in sorted(os.listdir(build)):
            path = os.path.join(build, name)
            if name.startswith("libvmemscope-cli.so") and not os.path.islink(path):
                with open(path, "rb") as f:
                    return f.read()
    return None


def _platform_tag():
    return sysconfig.get_platform().replace("-", "_").replace(".", "_")


def _record_line(arcname, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (arcname, digest, len(data))


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    path = os.path.join(metadata_directory, DIST_INFO)
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, "METADATA"), "w") as f:
        f.write(METADATA)
    with open(os.path.join(path, "WHEEL"), "w") as f:
        f.write(WHEEL % ("true", "any"))  # build_wheel writes the real tag beside its library
    return DIST_INFO


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    lib = _shared_library()
    tag = _platform_tag() if lib else "any"
    wheel = WHEEL % ("false" if lib else "true", tag)
    name = "%s-%s-py3-none-%s.whl" % (NAME, VERSION, tag)
    record = []
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w", zipfile.ZIP_DEFLATED) as whl:
        entries = [(arc, open(src, "rb").read()) for src, arc in _package_files()]
        entries.append(("%s/_version.py" % NAME, VERSION_PY.encode()))
        if lib:
            entries.append(("%s/libvmemscope-cli.so" % NAME, lib))  # found beside the package (__init__.py)
        entries += [(DIST_INFO + "/METADATA", METADATA.encode()), (DIST_INFO + "/WHEEL", wheel.encode())]
        for arc, data in entries:
            whl.writestr(arc, data)
            record.append(_record_line(arc, data))
        record.append(DIST_INFO + "/RECORD,,")
        whl.writestr(DIST_INFO + "/RECORD", "\n".join(record) + "\n")
    return name


def build_sdist(sdist_directory, config_settings=None):
    base = "%s-%s" % (NAME, VERSION)
    name = base + ".tar.gz"
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz") as tar:
        for rel in ("pyproject.toml", "build_backend.py"):
            tar.add(os.path.join(HERE, rel), base + "/" + rel)
        for src, arc in _package_files():
            tar.add(src, base + "/" + arc)
        for arc, data in (("%s/_version.py" % NAME, VERSION_PY.encode()),):
            entry = tarfile.TarInfo(base + "/" + arc)
            entry.size = len(data)
            tar.addfile(entry, io.BytesIO(data))
        info = tarfile.TarInfo(base + "/PKG-INFO")
        data = METADATA.encode()
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return name
