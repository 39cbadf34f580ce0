"""Native suite: gemmkit under threadpoolctl (python/gemmkit/_threads.py).

threadpool_info() must list gemmkit's extension with its live thread count
and version, threadpool_limits() must limit it and restore the previous
setting exactly (the count and where it came from), whichever of gemmkit and
threadpoolctl is imported first (and under `python -m threadpoolctl`), and
another package's "_native" module must not be taken for gemmkit's.
"""

import ctypes
import json
import os
import shutil
import subprocess

import pytest
import threadpoolctl

np = pytest.importorskip("numpy", reason="numpy is not installed")

import gemmkit  # noqa: E402
from gemmkit import _native  # noqa: E402
from apihelpers import restore_thread_setting, thread_setting  # noqa: E402
from nativehelpers import clean_env, run_json, run_python  # noqa: E402

EXTENSION = os.path.realpath(_native.__file__)
setting = thread_setting


def gemmkit_entries(info=None):
    info = threadpoolctl.threadpool_info() if info is None else info
    return [lib for lib in info if lib["internal_api"] == "gemmkit"]


@pytest.fixture
def original():
    """The setting before the test, put back afterwards (some tests change it)."""
    before = setting()
    yield before
    restore_thread_setting(before)


def test_threadpool_info_lists_gemmkit(original):
    (entry,) = gemmkit_entries()
    assert entry["user_api"] == "gemmkit"
    assert entry["internal_api"] == "gemmkit"
    assert entry["num_threads"] == gemmkit.get_num_threads()
    assert entry["version"] == gemmkit.__version__
    assert os.path.realpath(entry["filepath"]) == EXTENSION
    assert os.path.basename(EXTENSION).lower().startswith(entry["prefix"])
    # The count is live, not read once.
    with gemmkit.threads(3):
        assert gemmkit_entries()[0]["num_threads"] == 3
    assert setting() == original


def _default_count():
    gemmkit.set_num_threads(0)
    return gemmkit.get_num_threads()


# Settings to start from: the default, an explicit count equal to the
# default's (which must stay explicit), another explicit count.
STARTS = {
    "default": lambda: gemmkit.set_num_threads(0),
    "explicit-default-count": lambda: gemmkit.set_num_threads(_default_count()),
    "explicit-3": lambda: gemmkit.set_num_threads(3),
}


@pytest.mark.parametrize("start", list(STARTS))
def test_thread_limit_scope_is_the_process(original, start):
    STARTS[start]()
    before = setting()
    (entry,) = gemmkit_entries(threadpoolctl.threadpool_info(debugging_info=True))
    assert entry["thread_limit_scope"] == "process"
    assert setting() == before, "threadpoolctl's scope probe changed the setting"


@pytest.mark.parametrize("start", list(STARTS))
def test_threadpool_limits_one(original, start):
    STARTS[start]()
    before = setting()
    with threadpoolctl.threadpool_limits(1):
        assert gemmkit.get_num_threads() == 1
        assert gemmkit_entries()[0]["num_threads"] == 1
    assert setting() == before
    # Reading the limit inside the block (on the limiter's own controller)
    # does not make it the setting to come back to.
    controller = threadpoolctl.ThreadpoolController().select(internal_api="gemmkit")
    with controller.limit(limits=1):
        assert controller.info()[0]["num_threads"] == 1
        with controller.limit(limits=2):
            assert controller.info()[0]["num_threads"] == 2
        assert gemmkit.get_num_threads() == 1
    assert setting() == before


def test_user_api_gemmkit_leaves_blas_alone(original):
    blas_before = {lib["filepath"]: lib["num_threads"] for lib in threadpoolctl.threadpool_info()
                   if lib["user_api"] == "blas"}
    with threadpoolctl.threadpool_limits(limits=1, user_api="gemmkit"):
        assert gemmkit.get_num_threads() == 1
        blas_inside = {lib["filepath"]: lib["num_threads"]
                       for lib in threadpoolctl.threadpool_info() if lib["user_api"] == "blas"}
        assert blas_inside == blas_before
    with threadpoolctl.threadpool_limits(limits=1, user_api="blas"):
        assert setting() == original
    assert setting() == original


def test_other_limit_forms(original):
    with threadpoolctl.threadpool_limits({"gemmkit": 2}):
        assert gemmkit.get_num_threads() == 2
    with threadpoolctl.threadpool_limits({EXTENSION: 3}):
        assert gemmkit.get_num_threads() == 3
    assert setting() == original
    controller = threadpoolctl.ThreadpoolController().select(internal_api="gemmkit")
    assert len(controller.lib_controllers) == 1
    with controller.limit(limits=1):
        assert gemmkit.get_num_threads() == 1
    assert setting() == original

    @threadpoolctl.threadpool_limits.wrap(limits=1, user_api="gemmkit")
    def count():
        return gemmkit.get_num_threads()

    assert count() == 1
    assert setting() == original


def test_limit_at_the_default_count_stays_the_default(original):
    gemmkit.set_num_threads(0)
    default = setting()
    with threadpoolctl.threadpool_limits(default[0]):
        assert setting() == default
    assert setting() == default


def test_limits_below_one_mean_the_default(original):
    gemmkit.set_num_threads(0)
    default = setting()
    with gemmkit.threads(3):
        with threadpoolctl.threadpool_limits({"gemmkit": 0}):
            assert setting() == default
        assert setting() == (3, "set_num_threads")


def test_threads_inside_threadpool_limits(original):
    with threadpoolctl.threadpool_limits(1):
        with gemmkit.threads(2):
            assert gemmkit.get_num_threads() == 2
        assert gemmkit.get_num_threads() == 1
    assert setting() == original


def test_results_bit_identical_under_limits(original):
    rng = np.random.default_rng(5)
    for dtype in (np.float32, np.float64):
        a = rng.standard_normal((400, 700)).astype(dtype)
        b = np.asfortranarray(rng.standard_normal((700, 600)).astype(dtype))
        gemmkit.set_num_threads(2)
        two = gemmkit.matmul(a, b)
        gemmkit.set_num_threads(0)
        with threadpoolctl.threadpool_limits(1):
            assert gemmkit.get_num_threads() == 1
            one = gemmkit.matmul(a, b)
        with gemmkit.threads(1):
            one_again = gemmkit.matmul(a, b)
        default = gemmkit.matmul(a, b)
        assert one.tobytes() == two.tobytes() == one_again.tobytes() == default.tobytes()


_ORDER_SCRIPT = """
import json, os, sys
first = sys.argv[1]
if first == "threadpoolctl":
    import threadpoolctl
    import gemmkit
else:
    import gemmkit
    from threadpoolctl import threadpool_info, threadpool_limits
    import threadpoolctl
from gemmkit import _threads
entries = [lib for lib in threadpoolctl.threadpool_info() if lib["internal_api"] == "gemmkit"]
with threadpoolctl.threadpool_limits(1):
    inside = gemmkit.get_num_threads()
print(json.dumps({
    "entries": entries, "inside": inside, "after": gemmkit.get_num_threads(),
    "source": gemmkit.dispatch_info()["threads_source"],
    "version": gemmkit.__version__, "extension": os.path.realpath(gemmkit._native.__file__),
    "hooks": [type(f).__name__ for f in sys.meta_path if isinstance(f, _threads._RegisterOnImport)],
}))
"""


@pytest.mark.parametrize("first", ["gemmkit", "threadpoolctl"])
def test_import_orders(first):
    report = run_json(["-c", _ORDER_SCRIPT, first], clean_env(OMP_NUM_THREADS="3"))
    assert len(report["entries"]) == 1, report["entries"]
    (entry,) = report["entries"]
    assert entry["num_threads"] == 3
    assert entry["version"] == report["version"]
    assert os.path.realpath(entry["filepath"]) == report["extension"]
    assert report["inside"] == 1
    assert (report["after"], report["source"]) == (3, "OMP_NUM_THREADS")
    # The import hook leaves sys.meta_path once threadpoolctl is in.
    assert report["hooks"] == []


def test_gemmkit_without_threadpoolctl_never_imports_it():
    script = ("import sys, gemmkit; "
              "gemmkit.matmul(*[__import__('numpy').ones((8, 8))] * 2); "
              "print('threadpoolctl' in sys.modules)")
    proc = run_python(["-c", script], clean_env())
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "False"


def test_threadpoolctl_command_line():
    proc = run_python(["-m", "threadpoolctl", "-i", "gemmkit"], clean_env(GEMMKIT_NUM_THREADS="2"))
    assert proc.returncode == 0, proc.stderr
    entries = gemmkit_entries(json.loads(proc.stdout))
    assert len(entries) == 1, proc.stdout
    assert entries[0]["num_threads"] == 2
    assert entries[0]["version"] == gemmkit.__version__


_OTHER_NATIVE = """
import ctypes, json, sys
ctypes.CDLL(sys.argv[1])          # another package's "_native" module, loaded first
import gemmkit, threadpoolctl
print(json.dumps(threadpoolctl.threadpool_info()))
"""


def test_another_native_module_is_not_gemmkit(tmp_path):
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        pytest.skip("no C compiler to build a look-alike shared library")
    source = tmp_path / "other.c"
    source.write_text("int other_native_answer(void) { return 42; }\n")
    lib = tmp_path / "_native.cpython-311-x86_64-linux-gnu.so"
    subprocess.run([cc, "-shared", "-fPIC", "-o", str(lib), str(source)], check=True)
    info = run_json(["-c", _OTHER_NATIVE, str(lib)], clean_env())
    paths = [os.path.realpath(x["filepath"]) for x in gemmkit_entries(info)]
    assert paths == [EXTENSION], info


def test_extension_exports_the_check_symbols():
    from gemmkit import _threads

    lib = ctypes.CDLL(EXTENSION)
    for name in ("gemmkit_get_num_threads", "gemmkit_set_num_threads", "gemmkit_version"):
        assert hasattr(lib, name), name
    assert os.path.basename(EXTENSION).lower().startswith(_threads._EXTENSION_PREFIX)
