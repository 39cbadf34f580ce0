"""pytest plugin: gemmkit's in-Pyodide runs on top of pytest-pyodide.

pytest-pyodide (pinned 0.59.2) is the runner: its ``--run-in-pyodide``
collects a suite on the host and runs every test inside Pyodide, on the
runtime ``--runtime`` names (node, or chrome through Playwright), with the
``--dist-dir`` Pyodide, the test folder copied into Pyodide's file system
and the wheels of ``./dist`` installed with micropip.  Its ``@run_in_pyodide``
decorator runs single functions there (tests/pyodide/test_in_pyodide.py).
This plugin (``-p pyodide_plugin``, tests/pyodide on the path) adds what
0.59.2 gets wrong or lacks, and nothing else:

- **Outcomes.** 0.59.2 reports a test as passed unless the JUnit XML of its
  run inside Pyodide holds a failure, so a test skipped inside Pyodide, a
  collection error, or a test Pyodide never found passes on the host (a
  test that cannot fail).  Here each outcome is read: failure and error
  fail (with the text pytest wrote inside Pyodide: its assertion rewriting
  and traceback), skipped skips with its reason, absent fails.
- **One pytest run per module.** 0.59.2 starts ``pytest.main`` once per
  test (the module is imported and collected again each time: seconds per
  test); here a module runs once and its results are reported test by test.
- **Copied items.** With ``--run-in-pyodide`` 0.59.2 puts shallow copies of
  the items in place whose fixture requests still name the originals, so
  every parametrized test errors in setup under pytest 9; with one runtime
  per session the original item can carry the runtime itself.
- **Closing.** 0.59.2 closes its Pyodide sessions at unconfigure and again
  when their wrappers are collected, and the second close raises
  (``'ContextManagerUnwrapper' object has no attribute 'value'``), which
  pytest turns into an error at exit; closing is made idempotent.
- ``--pyodide-env NAME=VALUE``: set in ``os.environ`` inside Pyodide before
  the first test (the core reads ``GEMMKIT_REQUIRE_ISA`` once, at its first
  GEMM; Pyodide does not see the host's environment).
- ``--chromium PATH``: Playwright's Chromium launch uses this executable
  (Debian's ``chromium``; the default is ``chromium`` on PATH): 0.59.2 has
  no option for it and this project downloads no browser.
"""

from __future__ import annotations

import ast
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

_RESULTS: dict = {}  # (runtime, module path) -> {junit test key: outcome}
_ENV_SET: set = set()  # runtimes whose Pyodide has the --pyodide-env values


def pytest_addoption(parser):
    group = parser.getgroup("gemmkit pyodide")
    group.addoption("--pyodide-env", action="append", default=[], metavar="NAME=VALUE",
                    help="set in os.environ inside Pyodide before the first test")
    group.addoption("--chromium", default=None,
                    help="the Chromium executable Playwright launches (default: chromium)")


def pytest_configure(config):
    # pytest-pyodide's web servers (spawn_web_server: a multiprocessing.Queue
    # to the server process) leave a connection to the garbage collector now
    # and then, or let the queue's feeder thread write to a pipe already
    # closed (EBADF after the last test); pytest would report either at exit.
    config.addinivalue_line(
        "filterwarnings",
        "ignore:Exception ignored in.*_ConnectionBase:pytest.PytestUnraisableExceptionWarning")
    config.addinivalue_line(
        "filterwarnings",
        "ignore:Exception in thread QueueFeederThread:pytest.PytestUnhandledThreadExceptionWarning")
    if config.option.runner == "playwright":
        _use_chromium(config.option.chromium or shutil.which("chromium"))
    from pytest_pyodide.run_tests_inside_pyodide import ContextManagerUnwrapper

    def close_once(self):
        manager, self.ctx_manager = self.ctx_manager, None
        if manager is not None:
            manager.__exit__(None, None, None)
            self.__dict__.pop("value", None)

    ContextManagerUnwrapper.close = close_once


def _use_chromium(path):
    if not path:
        raise pytest.UsageError("no Chromium executable: install Debian's chromium or pass "
                                "--chromium PATH")
    from playwright.sync_api import BrowserType

    launch = BrowserType.launch

    def launch_with_executable(self, *args, **kwargs):
        if self.name == "chromium":
            kwargs.setdefault("executable_path", path)
        return launch(self, *args, **kwargs)

    BrowserType.launch = launch_with_executable


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    if not config.option.run_in_pyodide:
        return
    runtimes = {getattr(item, "pyodide_runtime", None) for item in items}
    if len(runtimes) > 1:
        raise pytest.UsageError("run one --runtime per session with --run-in-pyodide")
    originals = []
    for item in items:
        request = getattr(item, "_request", None)
        original = getattr(request, "_pyfuncitem", item)
        original.pyodide_runtime = item.pyodide_runtime
        originals.append(original)
    items[:] = originals


@pytest.hookimpl(hookwrapper=True, trylast=True)
def pytest_runtest_call(item):
    # Inside pytest-pyodide's wrapper, which has just set item.runtest.
    if item.config.option.run_in_pyodide:
        item.runtest = lambda: _run_inside(item)
    yield


def _item_key(item) -> tuple[str, str]:
    """The (classname, name) pytest's JUnit XML gives ``item``."""
    parts = item.nodeid.split("::")
    module = parts[0][: -len(".py")].replace("/", ".")
    return ".".join([module, *parts[1:-1]]), parts[-1]


def _selenium(item):
    from pytest_pyodide.run_tests_inside_pyodide import get_browser_pyodide

    class Request:  # what get_browser_pyodide reads of a fixture request
        config = item.config
        node = item

    runtime = item.pyodide_runtime
    selenium = get_browser_pyodide(request=Request, runtime=runtime)
    if runtime not in _ENV_SET:
        env = dict(v.split("=", 1) for v in item.config.option.pyodide_env)
        selenium.run(f"import os\nos.environ.update({env!r})")
        _ENV_SET.add(runtime)
    return selenium


def _run_module(item) -> dict:
    selenium = _selenium(item)
    module = Path(item.path).relative_to(Path.cwd()).as_posix()
    # pytest-pyodide copied the module's folder to test_files/<its path>;
    # rooted there, the node ids inside are the host's.
    args = [module, "--rootdir=.", "--color=no", "-p", "no:cacheprovider",
            "--junitxml", "/tmp/junit.xml", "-o", "junit_logging=out-err"]
    xml = selenium.run_async(
        f"""
        import os, pytest
        home = os.getcwd()
        os.chdir("test_files")
        try:
            pytest.main({args!r})
        finally:
            os.chdir(home)
        open("/tmp/junit.xml").read()
        """
    )
    results = {}
    for case in ET.fromstring(xml).iter("testcase"):
        key = (case.get("classname", ""), case.get("name", ""))
        outcome = ("passed", "")
        for tag in ("failure", "error", "skipped"):
            node = case.find(tag)
            if node is not None:
                outcome = (tag, (node.text or "").strip() or node.get("message", ""))
                break
        out = case.find("system-out")
        results[key] = (*outcome, "" if out is None else (out.text or ""))
    return results


def _skip_reason(text: str) -> str:
    """The reason of a JUnit skip: its text is "file:line: reason" for a
    test and the repr of (file, line, "Skipped: reason") for a module."""
    if text.startswith("("):
        try:
            text = str(ast.literal_eval(text)[2])
        except (ValueError, SyntaxError, IndexError):
            return text
    return text.removeprefix("Skipped: ").rsplit(": ", 1)[-1] if ".py:" in text else \
        text.removeprefix("Skipped: ")


def _run_inside(item):
    key = (item.pyodide_runtime, str(item.path))
    if key not in _RESULTS:
        _RESULTS[key] = _run_module(item)
    results = _RESULTS[key]
    classname, name = _item_key(item)
    got = results.get((classname, name))
    if got is None:
        # A module skipped or broken at collection has one entry for itself.
        module = Path(item.path).relative_to(Path.cwd()).as_posix()[: -len(".py")]
        got = results.get(("", module.replace("/", ".")))
    if got is None:
        pytest.fail(f"{item.nodeid} did not run inside Pyodide (not collected there)",
                    pytrace=False)
    outcome, text, stdout = got
    if stdout.strip():
        print(stdout)
    if outcome == "skipped":
        pytest.skip(_skip_reason(text))
    if outcome in ("failure", "error"):
        pytest.fail(f"inside Pyodide ({item.pyodide_runtime}), {outcome}:\n{text}", pytrace=False)
