"""Packaging: the licence texts and the project metadata in all three
artefacts (the sdist, the installed native wheel, the Pyodide wheel), and one
version everywhere.

The sdist is built here by scikit-build-core's own PEP 517 hook (a few
seconds, no compiler); the Pyodide wheel is brought up to date by
wasm/build.py (incremental: under a second when nothing changed); the native
wheel is the one installed in this interpreter (tools/build-native.sh, or the
wheel cibuildwheel tests).  The checks of the source tree's own artefacts need
its build tools (requirements-test.txt, the wasm toolchain): missing, they skip
saying so, and fail under CI, except in a wheel's own test environment
(cibuildwheel sets CIBUILDWHEEL), which holds only that wheel.
"""

from __future__ import annotations

import base64
import csv
import email.parser
import hashlib
import importlib
import importlib.metadata
import importlib.util
import io
import json
import os
import re
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
from packaging.licenses import canonicalize_license_expression
from packaging.metadata import Metadata

import gemmkit

REPO = Path(__file__).resolve().parents[2]
VERSION_H = REPO / "cpp" / "include" / "gemmkit" / "version.h"
VERSION = re.search(r'#define GEMMKIT_VERSION_STRING "([^"]+)"', VERSION_H.read_text()).group(1)
LICENSE_FILES = ("LICENSE-APACHE", "LICENSE-MIT")

# sha256 of the Apache License 2.0 exactly as the ASF publishes it
# (LICENSE-2.0.txt, appendix included; also Debian's common-licenses/Apache-2.0).
APACHE_2_0_SHA256 = "cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30"
# sha256 of the MIT licence's text after its copyright line, whitespace
# collapsed to single spaces (the permission, condition and disclaimer;
# attrs and anyio ship the same text, each wrapped its own way).
MIT_BODY_SHA256 = "fe2a9817987f862eaced948f0468c7f51d2fedfc48c5c505b246a49a3870e9a5"


def _load_wasm_build():
    name = "gemmkit_wasm_build"  # the key tests/wasm/wasmhelpers.py uses too
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, REPO / "wasm" / "build.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


wasm_build = _load_wasm_build()
PYPROJECT = wasm_build._pyproject(REPO)  # tomllib, or tomli before Python 3.11
PROJECT = PYPROJECT["project"]


def require(ok: bool, reason: str) -> None:
    """Skip with ``reason`` when a source-tree tool is missing; fail under CI
    unless this is a wheel's own test environment."""
    if ok:
        return
    if os.environ.get("CI") and not os.environ.get("CIBUILDWHEEL"):
        pytest.fail(reason, pytrace=False)
    pytest.skip(reason)


def _tool(module: str):
    """A module of requirements-test.txt, or a skip/fail naming it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        require(False, f"{module} is not installed (requirements-test.txt pins it)")


def _fields(text: str) -> list[tuple[str, str]]:
    """A METADATA/PKG-INFO file's header fields, in order."""
    return list(email.parser.Parser().parsestr(text, headersonly=True).items())


def _validated(text: str) -> Metadata:
    """Parsed and checked against the core metadata specification."""
    return Metadata.from_email(text, validate=True)


@pytest.fixture(scope="module")
def sdist(tmp_path_factory) -> Path:
    _tool("scikit_build_core.build")
    out = tmp_path_factory.mktemp("sdist")
    # PEP 517 hooks run in the source tree; no network and no build isolation.
    proc = subprocess.run(
        [sys.executable, "-c",
         "import sys, scikit_build_core.build as b; print(b.build_sdist(sys.argv[1]))", str(out)],
        cwd=REPO, capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return out / proc.stdout.split()[-1]


@pytest.fixture(scope="module")
def sdist_files(sdist) -> dict[str, bytes]:
    with tarfile.open(sdist) as tf:
        return {m.name: tf.extractfile(m).read() for m in tf.getmembers() if m.isfile()}


@pytest.fixture(scope="module")
def pyodide_wheel() -> Path:
    try:
        tc = wasm_build.detect_toolchain()
    except wasm_build.BuildError as exc:
        require(False, f"no wasm toolchain: {exc}")
    out = wasm_build.build(REPO, {"wheel"}, 2, REPO / "dist", REPO / "web-demo",
                           REPO / "build" / "wasm", tc)
    return out["wheel"]


# --------------------------------------------------------------------------
# the texts and pyproject.toml
# --------------------------------------------------------------------------

def test_licence_texts_are_complete():
    # Line ends as committed (a Windows checkout may convert them).
    apache = (REPO / "LICENSE-APACHE").read_bytes().replace(b"\r\n", b"\n")
    assert hashlib.sha256(apache).hexdigest() == APACHE_2_0_SHA256, (
        "LICENSE-APACHE is not the ASF's Apache-2.0 text")
    text = apache.decode()
    for n, title in enumerate(["Definitions", "Grant of Copyright License",
                               "Grant of Patent License", "Redistribution",
                               "Submission of Contributions", "Trademarks",
                               "Disclaimer of Warranty", "Limitation of Liability",
                               "Accepting Warranty or Additional Liability"], 1):
        assert f"{n}. {title}." in text
    assert "END OF TERMS AND CONDITIONS" in text

    mit = (REPO / "LICENSE-MIT").read_text().splitlines()
    assert mit[0] == "MIT License"
    assert mit[2] == "Copyright (c) 2026 The gemmkit developers"
    body = " ".join(" ".join(mit[3:]).split())
    assert body.startswith("Permission is hereby granted, free of charge,")
    assert body.endswith("OR OTHER DEALINGS IN THE SOFTWARE.")
    assert hashlib.sha256(body.encode()).hexdigest() == MIT_BODY_SHA256


def test_pyproject_licence_is_pep_639():
    assert PROJECT["license"] == "MIT OR Apache-2.0"
    assert canonicalize_license_expression(PROJECT["license"]) == PROJECT["license"]
    assert tuple(wasm_build.license_files(REPO)) == LICENSE_FILES
    # PEP 639: a licence expression replaces the License :: classifiers.
    assert not [c for c in PROJECT["classifiers"] if c.startswith("License ::")]


def test_classifiers_exist_and_match_requires_python():
    known = _tool("trove_classifiers").classifiers
    unknown = [c for c in PROJECT["classifiers"] if c not in known]
    assert not unknown, f"not trove classifiers: {unknown}"
    minors = sorted(int(m) for m in re.findall(r"^Programming Language :: Python :: 3\.(\d+)$",
                                               "\n".join(PROJECT["classifiers"]), re.MULTILINE))
    assert minors == list(range(minors[0], minors[-1] + 1)), minors
    assert PROJECT["requires-python"] == f">=3.{minors[0]}"


def test_metadata_is_complete():
    assert PROJECT["authors"] == [{"name": "The gemmkit developers"}]
    assert set(PROJECT["urls"]) == {"Homepage", "Documentation", "Source", "Changelog", "Issues"}
    assert PROJECT["keywords"] and PROJECT["description"] and PROJECT["readme"]
    for prefix in ("Development Status", "Operating System", "Programming Language :: C++",
                   "Typing :: Typed", "Topic ::"):
        assert any(c.startswith(prefix) for c in PROJECT["classifiers"]), prefix


# --------------------------------------------------------------------------
# one version
# --------------------------------------------------------------------------

def test_version_is_semver_from_version_h():
    # MAJOR.MINOR.PATCH only: the form SemVer and PEP 440 spell alike, so
    # gemmkit.__version__ and the distribution's version are the same string.
    assert re.fullmatch(r"(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)", VERSION), VERSION
    assert "version" in PROJECT["dynamic"] and "version" not in PROJECT
    provider = PYPROJECT["tool"]["scikit-build"]["metadata"]["version"]
    assert (REPO / provider["input"]) == VERSION_H
    assert wasm_build.read_version(REPO) == VERSION


def test_installed_library_and_distribution_carry_that_version():
    assert gemmkit.__version__ == VERSION
    assert importlib.metadata.version("gemmkit") == VERSION


def test_node_package_states_no_version_and_the_same_licence():
    # package.json only pins the test tools (never published): a version there
    # would be a second copy to bump.
    package = json.loads((REPO / "package.json").read_text())
    lock = json.loads((REPO / "package-lock.json").read_text())
    assert "version" not in package
    assert "version" not in lock and "version" not in lock["packages"][""]
    assert package["license"] == lock["packages"][""]["license"] == PROJECT["license"]


def test_changelog_has_unreleased_and_this_version():
    text = (REPO / "CHANGELOG.md").read_text()
    headings = re.findall(r"^## \[([^\]]+)\]", text, re.MULTILINE)
    assert headings[:2] == ["Unreleased", VERSION], headings
    assert re.search(rf"^## \[{re.escape(VERSION)}\] - \d{{4}}-\d{{2}}-\d{{2}}$", text, re.MULTILINE)
    for name in headings:  # keep-a-changelog: every heading links somewhere
        assert re.search(rf"^\[{re.escape(name)}\]: \S+$", text, re.MULTILINE), name


# --------------------------------------------------------------------------
# the artefacts
# --------------------------------------------------------------------------

def test_sdist_ships_the_licences_and_metadata(sdist, sdist_files):
    top = f"gemmkit-{VERSION}"
    assert sdist.name == f"{top}.tar.gz"
    for name in LICENSE_FILES:
        assert sdist_files[f"{top}/{name}"] == (REPO / name).read_bytes(), name
    for name in ("CHANGELOG.md", "CONTRIBUTING.md", "README.md", "pyproject.toml",
                 "cpp/include/gemmkit/version.h"):
        assert f"{top}/{name}" in sdist_files, name
    meta = _validated(sdist_files[f"{top}/PKG-INFO"].decode())
    assert meta.metadata_version == "2.4"
    assert str(meta.version) == VERSION
    assert meta.license_expression == PROJECT["license"]
    assert tuple(meta.license_files) == LICENSE_FILES
    assert meta.classifiers == PROJECT["classifiers"]
    assert meta.project_urls == PROJECT["urls"]
    assert meta.author == "The gemmkit developers"
    assert str(meta.requires_python) == PROJECT["requires-python"]


def test_native_wheel_dist_info_has_the_licences():
    dist = importlib.metadata.distribution("gemmkit")
    meta = _validated(dist.read_text("METADATA"))
    assert meta.license_expression == PROJECT["license"]
    assert tuple(meta.license_files) == LICENSE_FILES
    files = {f.as_posix() for f in dist.files}
    for name in LICENSE_FILES:
        assert f"gemmkit-{VERSION}.dist-info/licenses/{name}" in files, sorted(files)
        assert dist.read_text(f"licenses/{name}") == (REPO / name).read_text(), name


def test_native_wheel_metadata_is_the_trees():
    # core_metadata() is scikit-build-core's METADATA of this tree; a
    # difference here means the installed wheel was built from another
    # pyproject.toml (run tools/build-native.sh).
    dist = importlib.metadata.distribution("gemmkit")
    assert dist.read_text("METADATA") == wasm_build.core_metadata(REPO)


def test_sdist_metadata_is_what_the_pyodide_writer_writes(sdist_files):
    assert sdist_files[f"gemmkit-{VERSION}/PKG-INFO"].decode() == (
        wasm_build.core_metadata(REPO))


def test_pyodide_wheel_metadata_equals_the_native_writers(pyodide_wheel, sdist_files):
    assert re.fullmatch(rf"gemmkit-{re.escape(VERSION)}-py3-none-pyemscripten_\w+_wasm32\.whl",
                        pyodide_wheel.name), pyodide_wheel.name
    distinfo = f"gemmkit-{VERSION}.dist-info"
    with zipfile.ZipFile(pyodide_wheel) as zf:
        ours = zf.read(f"{distinfo}/METADATA").decode()
        texts = {name: zf.read(f"{distinfo}/licenses/{name}") for name in LICENSE_FILES}
    native = sdist_files[f"gemmkit-{VERSION}/PKG-INFO"].decode()
    # Field by field first, for a readable failure; then the description too.
    assert _fields(ours) == _fields(native)
    assert ours == native
    meta = _validated(ours)
    assert meta.license_expression == PROJECT["license"]
    assert tuple(meta.license_files) == LICENSE_FILES
    for name, data in texts.items():
        assert data == (REPO / name).read_bytes(), name


def test_pyodide_wheel_record_matches_its_contents(pyodide_wheel):
    distinfo = f"gemmkit-{VERSION}.dist-info"
    with zipfile.ZipFile(pyodide_wheel) as zf:
        contents = {info.filename: zf.read(info) for info in zf.infolist() if not info.is_dir()}
    rows = list(csv.reader(io.StringIO(contents[f"{distinfo}/RECORD"].decode())))
    listed = [row[0] for row in rows]
    assert len(listed) == len(set(listed)), "RECORD lists a file twice"
    assert set(listed) == set(contents), set(listed) ^ set(contents)
    for path, digest, size in rows:
        if path == f"{distinfo}/RECORD":
            assert (digest, size) == ("", "")
            continue
        data = contents[path]
        algo, _, value = digest.partition("=")
        assert algo == "sha256", path
        expected = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        assert value == expected, path
        assert int(size) == len(data), path
    wheel_meta = email.parser.Parser().parsestr(contents[f"{distinfo}/WHEEL"].decode())
    assert pyodide_wheel.name.endswith(f"-{wheel_meta['Tag']}.whl")
