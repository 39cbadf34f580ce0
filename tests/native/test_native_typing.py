"""Native suite: the type stubs (python/gemmkit/__init__.pyi) against the code.

Three checks, each able to fail when a stub is wrong:

- ``mypy --strict`` on the stub itself and on typing_sample.py, whose
  ``assert_type`` lines state what the stubs promise (and whose
  ``type: ignore`` lines, under ``--warn-unused-ignores``, what they refuse);
- the same sample run, so each promised type is also the type returned;
- ``mypy.stubtest`` of the installed package: every public name, parameter
  and default of the stub against the runtime objects.

mypy is pinned in requirements-test.txt.  The two mypy runs go in parallel.
"""

import runpy
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mypy", reason="mypy is not installed (requirements-test.txt pins it)")
pytest.importorskip("numpy", reason="numpy is not installed")

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
STUB = ROOT / "python" / "gemmkit" / "__init__.pyi"
SAMPLE = HERE / "typing_sample.py"

# stubtest type-checks every submodule of the package, and the private
# ones (gemmkit._api, ...) are untyped implementation without stubs of their
# own: their mypy errors are not the stub's, and their names are not API.
STUBTEST_CONFIG = "[mypy]\n[mypy-gemmkit.*]\nignore_errors = True\n"
STUBTEST_ALLOWLIST = "gemmkit\\._.*\n"


@pytest.fixture(scope="module")
def mypy_runs(tmp_path_factory):
    """(returncode, output) of the strict check and of stubtest, run at once."""
    tmp = tmp_path_factory.mktemp("mypy")
    config = tmp / "stubtest.ini"
    config.write_text(STUBTEST_CONFIG)
    allowlist = tmp / "allowlist.txt"
    allowlist.write_text(STUBTEST_ALLOWLIST)
    commands = {
        "strict": [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp / "cache"),
                   str(STUB), str(SAMPLE)],
        "stubtest": [sys.executable, "-m", "mypy.stubtest", "gemmkit", "--mypy-config-file",
                     str(config), "--allowlist", str(allowlist)],
    }
    procs = {name: subprocess.Popen(cmd, cwd=tmp, stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, text=True)
             for name, cmd in commands.items()}
    outputs = {name: p.communicate(timeout=300)[0] for name, p in procs.items()}
    return {name: (procs[name].returncode, outputs[name]) for name in procs}


def test_stub_and_typed_sample_pass_mypy_strict(mypy_runs):
    rc, output = mypy_runs["strict"]
    assert rc == 0, output


def test_stub_matches_the_runtime(mypy_runs):
    rc, output = mypy_runs["stubtest"]
    assert rc == 0, output


def test_typed_sample_runs():
    # Its run-time checks mirror each assert_type.
    runpy.run_path(str(SAMPLE), run_name="typing_sample")
