"""API suite: the docstrings' examples run, and the public namespace is clean.

Every public name's docstring (numpydoc; Sphinx renders them) is collected
with doctest's own finder and its examples run as one test per docstring,
natively and under Pyodide.  Examples that ``import numpy`` are skipped
where numpy is absent (Pyodide's default); the others use buffers and run
everywhere.  numpy's print options are reset to numpy's defaults for each
example set, so an earlier test's ``set_printoptions`` cannot change what
an array prints.
"""

import doctest
import importlib.util
import inspect
from typing import ClassVar

import gemmkit
import pytest

HAVE_NUMPY = importlib.util.find_spec("numpy") is not None

# The docstrings Sphinx shows: the module's and those of its public
# functions and classes (a class's methods and properties with it); only
# gemmkit's own objects (inspect.getmodule), not what a class inherits.
def _collect():
    globs = {"gemmkit": gemmkit}
    tests = doctest.DocTestFinder(recurse=False).find(gemmkit, "gemmkit", globs=globs)
    for name in gemmkit.__all__:
        obj = getattr(gemmkit, name)
        if inspect.isclass(obj) or inspect.isroutine(obj):
            tests += doctest.DocTestFinder().find(obj, f"gemmkit.{name}",
                                                  module=inspect.getmodule(obj), globs=globs)
    return [t for t in tests if t.examples]


_TESTS = _collect()
# The documented entries: each must show at least one example.
_DOCUMENTED = ["gemm", "gemm_batched", "matmul", "gemm_requant", "prepack_rhs", "PackedRhs",
               "dispatch_info", "available_isas", "set_num_threads", "get_num_threads",
               "threads"]


def _uses_numpy(test):
    return any("import numpy" in ex.source for ex in test.examples)


@pytest.mark.parametrize("test", _TESTS, ids=lambda t: t.name)
def test_docstring_examples(test):
    if _uses_numpy(test) and not HAVE_NUMPY:
        pytest.skip("the examples use numpy, which is not installed")
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    with _numpy_print_defaults():
        try:
            result = runner.run(test, out=_Report.write)
        finally:
            gemmkit.set_num_threads(0)  # set_num_threads's example sets 1
    assert result.failed == 0, _Report.take()
    assert result.attempted > 0
    _Report.take()


@pytest.mark.parametrize("name", _DOCUMENTED)
def test_public_entries_have_examples_and_sections(name):
    doc = getattr(gemmkit, name).__doc__
    assert any(t.name == f"gemmkit.{name}" and t.examples for t in _TESTS), \
        f"{name} has no doctest examples"
    for section in ("Examples\n", "See Also\n"):
        assert section in doc, f"{name}'s docstring has no {section.strip()!r} section"


def test_docstring_sections_are_underlined():
    # numpydoc reads a section only with its dashes underneath, as long as
    # the title; Sphinx would otherwise render the title as running text.
    for name in ["gemmkit", *gemmkit.__all__]:
        obj = gemmkit if name == "gemmkit" else getattr(gemmkit, name)
        lines = [line.strip() for line in (getattr(obj, "__doc__", None) or "").splitlines()]
        for i, line in enumerate(lines[:-1]):
            if line in _SECTIONS:
                assert lines[i + 1] == "-" * len(line), (name, line, lines[i + 1])


_SECTIONS = {"Parameters", "Returns", "Raises", "See Also", "Notes", "Examples", "Attributes"}


def test_dir_lists_the_public_names_only():
    assert dir(gemmkit) == sorted(gemmkit.__all__)
    for name in gemmkit.__all__:
        assert hasattr(gemmkit, name), name
    assert "annotations" not in dir(gemmkit)


class _Report:
    """Collects the runner's failure report for the assertion message."""

    parts: ClassVar[list] = []

    @classmethod
    def write(cls, text):
        cls.parts.append(text)

    @classmethod
    def take(cls):
        text, cls.parts[:] = "".join(cls.parts), []
        return text


class _numpy_print_defaults:
    """numpy's default print options for the duration (no-op without numpy)."""

    def __enter__(self):
        if not HAVE_NUMPY:
            return
        import numpy as np

        self._saved = np.get_printoptions()
        np.set_printoptions(edgeitems=3, infstr="inf", linewidth=75, nanstr="nan",
                            precision=8, suppress=False, threshold=1000, formatter=None,
                            sign="-", floatmode="maxprec", legacy=False)

    def __exit__(self, *exc):
        if HAVE_NUMPY:
            import numpy as np

            np.set_printoptions(**self._saved)
        return False
