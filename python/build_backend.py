"""A PEP 517 build backend for the vmemscope package, from the standard
library alone, so that `pip install ./python` needs no download (setuptools
would be fetched into pip's isolated build environment).

The wheel holds the pure-Python package; libvmemscope.so comes from
`make install`, $VMEMSCOPE_LIBRARY, or a copy beside the package.
"""
import base64
import hashlib
import io
import os
import tarfile
import zipfile

NAME, VERSION = "vmemscope", "0.1.0"
HERE = os.path.dirname(os.path.abspath(__file__))
DIST_INFO = "%s-%s.dist-info" % (NAME, VERSION)
METADATA = ("Metadata-Version: 2.1\nName: %s\nVersion: %s\nSummary: TPU VMEM accounting offline over "
            "libvmemscope.so\nRequires-Python: >=3.8\nLicense: Apache-2.0\n" % (NAME, VERSION))
WHEEL = "Wheel-Version: 1.0\nGenerator: vmemscope build_backend\nRoot-Is-Purelib: true\nTag: py3-none-any\n"


def _package_files():
    root = os.path.join(HERE, NAME)
    for name in sorted(os.listdir(root)):
        if name.endswith(".py"):
            yield os.path.join(root, name), "%s/%s" % (NAME, name)


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
        f.write(WHEEL)
    return DIST_INFO


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    name = "%s-%s-py3-none-any.whl" % (NAME, VERSION)
    record = []
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w", zipfile.ZIP_DEFLATED) as whl:
        entries = [(arc, open(src, "rb").read()) for src, arc in _package_files()]
        entries += [(DIST_INFO + "/METADATA", METADATA.encode()), (DIST_INFO + "/WHEEL", WHEEL.encode())]
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
        info = tarfile.TarInfo(base + "/PKG-INFO")
        data = METADATA.encode()
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return name
