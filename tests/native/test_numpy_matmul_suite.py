"""Native suite: numpy's own matmul tests, run against gemmkit.matmul.

The tests are not copied here: they come from the installed numpy's test
modules, each run with gemmkit.matmul in place of numpy's where the test
picks its matmul up. The mechanisms:

  [attr]  the class attribute ``matmul`` the tests call as ``self.matmul``
          is gemmkit's (a staticmethod, so that it does not bind).
  [np]    while the test runs, the global ``np`` of numpy's test module (the
          module the test function's code reads its globals from) is a
          stand-in for numpy whose ``matmul`` is gemmkit's; every other name
          is numpy's own. numpy.matmul itself is left alone on purpose:
          gemmkit calls it (numpy's type resolution, deferring to operands
          that override ufuncs), and numpy's functions under test hold their
          own references; patching the numpy module would have gemmkit call
          itself.
  [np.linalg] the same, for ``np.linalg.matmul``.
  [linalg] test_linalg's global ``matmul`` (it did ``from numpy import
          matmul``) is gemmkit's.
  [umt]   test_ufunc's global ``umt`` (numpy._core._umath_tests) is a
          stand-in whose ``matmul`` (numpy's test gufunc with matmul's
          signature) is gemmkit's.
  [param] the test is parametrized over several functions: only the np.matmul
          case is collected, and gemmkit's is passed in its place.
  [operator] see GemmkitArray.
  [inplace] the test's np.arange/np.ones hand out GemmkitInplaceArray views,
          whose ``@=`` is gemmkit's (its ``@``, the reference, numpy's).
  [skip]  no seam: skipped with the reason recorded (_NO_OPERATOR_SEAM,
          _UFUNC_OBJECT).

  numpy/_core/tests/test_multiarray.py
    TestMatmul (with the MatmulCommon tests it inherits)     [attr] + [np]
        (test_dot_equivalent*, test_matmul_empty, test_matmul_bool, ...
        call np.matmul in their bodies)
    TestMatmulOperator (with MatmulCommon)                   [operator]
    TestMatmulInplace                                        [inplace]
    test_matmul_axes; TestMethods.test_dot_matmul_out,
        test_dot_matmul_inner_array_casting_fails, test_matmul_out   [np]
    TestMethods.test_arr_mult, test_no_dgemv (over np.dot, np.matmul)  [param]
  numpy/_core/tests/test_ufunc.py
    TestUfunc.test_vecdot_matvec_vecmat_complex (np.matmul case)       [param]
    TestUfunc.test_axes_argument (np.matmul is the reference for
        umt.matrix_multiply)                                 [np]
    TestUfunc.test_can_ignore_signature                      [umt]
    TestUfunc.test_at_not_none_signature, test_ufunc_types[matmul],
        TestUFuncInspectSignature.test_params_common_gufunc[matmul]  [skip]
  numpy/linalg/tests/test_linalg.py
    TestSolve, TestInv, TestEig, TestSVD, TestSVDHermitian, TestPinv,
        TestPinvHermitian, TestEighCases (their case-driven tests, whose
        ``do`` checks the result with matmul), TestMatrixPower
        .test_power_is_two/.test_power_is_minus_one, TestQR.test_stacked_inputs,
        TestCholesky.test_basic_property                   [linalg] + [np]
        (the linalg functions under test stay numpy's; only the checks
        multiply with gemmkit)
    test_matmul                                              [np.linalg]
  numpy/linalg/tests/test_regression.py
    TestRegression.test_openblas_threading (``src @ matrix``)  [skip]
  numpy/lib/tests/test_mixins.py
    TestNDArrayOperatorsMixin.test_matmul                    [np]
        (its operator.matmul lines exercise numpy's mixin and ndarray)
  numpy/lib/tests/test_function_base.py
    TestVectorize.test_subclasses (``np.vectorize(np.matmul)``)  [np]

Outcomes. gemmkit computes every numeric dtype (and hands object,
longdouble and clongdouble products to numpy.matmul, as documented), so
every test is expected to pass. A test that fails because gemmkit raised
gemmkit.DTypeError naming a dtype gemmkit does not compute but numpy does
would be reported as xfailed with that dtype in the reason; every other
outcome stands as it is (pass or fail). The xfail is imperative, given only
once the test has failed that way, so it can never pass unnoticed (what
xfail_strict guards against); xfail_strict still governs numpy's own xfail
marks. The counts are printed at the end of the run (section "numpy matmul
suite").

GEMMKIT_NUMPY_SUITE_DELEGATE=1 (diagnostics, off by default): a gemmkit call
refused for such a dtype is answered by numpy.matmul instead, so the rest of
the test still runs against gemmkit. Failures hidden behind the first
unsupported dtype of a test (most numpy tests loop over all dtypes) then show;
a test that passes only thanks to numpy's answers is xfailed, naming the dtype.
(A test that passed because gemmkit's DTypeError is the TypeError it expects
may then show as xfailed: diagnostics only.)
"""

from __future__ import annotations

import functools
import importlib
import inspect
import operator
import os
import re
import sys
import types
import typing

import pytest

np = pytest.importorskip("numpy", reason="numpy is not installed")

import gemmkit  # noqa: E402

_NP_MATMUL = np.matmul  # numpy's ufunc
_DELEGATE = os.environ.get("GEMMKIT_NUMPY_SUITE_DELEGATE", "") not in ("", "0")

# ------------------------------------------------------------ numpy's test modules
#
# numpy's conftest registers the markers its tests use (thread_unsafe,
# leaks_references, valgrind_error, slow, ...), and the decorators run when
# the test modules are imported: under --strict-markers an unknown one fails
# that import. So the missing ones are registered first, on the running
# session's config. No public API reaches it from a test module at import
# time (pytest_plugins registers plugins only after the import), hence
# pytest.mark._config, pytest's own handle on it while a session runs.
# numpy's conftest itself is not loaded as a plugin: it would switch the
# hypothesis profile and add autouse fixtures for the whole session, and the
# tests selected here use neither hypothesis nor any of its fixtures.
_NUMPY_MARKERS = (
    "valgrind_error: numpy: tests known to error under valgrind",
    "leaks_references: numpy: tests known to leak references",
    "slow: numpy: very slow tests",
    "slow_pypy: numpy: tests very slow on pypy",
    "thread_unsafe: numpy (pytest-run-parallel): single-threaded test",
    "parallel_threads(n): numpy (pytest-run-parallel): run in n threads",
    "iterations(n): numpy (pytest-run-parallel): run n times per thread",
)
_CONFIG = getattr(pytest.mark, "_config", None)
if _CONFIG is not None:
    _known = {line.split(":")[0].split("(")[0].strip() for line in _CONFIG.getini("markers")}
    for _line in _NUMPY_MARKERS:
        if _line.split(":")[0].split("(")[0] not in _known:
            _CONFIG.addinivalue_line("markers", _line)

_NUMPY_TEST_MODULES = (
    "numpy._core.tests.test_multiarray",
    "numpy._core.tests.test_ufunc",
    "numpy.linalg.tests.test_linalg",
    "numpy.linalg.tests.test_regression",
    "numpy.lib.tests.test_mixins",
    "numpy.lib.tests.test_function_base",
)
# Plain `assert`s in numpy's tests get pytest's introspection (only modules not
# imported yet can be rewritten; asking for the others would warn).
_fresh = [m for m in _NUMPY_TEST_MODULES if m not in sys.modules]
if _fresh:
    pytest.register_assert_rewrite(*_fresh)
try:
    tm, tu, tl, tlr, tmx, tfb = (importlib.import_module(m) for m in _NUMPY_TEST_MODULES)
except ImportError as exc:  # a numpy build without its tests
    pytest.skip(f"numpy's test modules are not installed: {exc}", allow_module_level=True)
umt = tu.umt  # numpy._core._umath_tests, as test_ufunc imported it


# ------------------------------------------------------------- gemmkit in place

# What gemmkit answers: its own kernels' dtypes and the ones it documents as
# numpy's (object, longdouble, clongdouble).
_SUPPORTED = frozenset([np.dtype(n) for n in gemmkit._dtypes.PAIRS if n != "bfloat16"] +
                       [np.dtype(c) for c in "OgG"])


def _computed_by_gemmkit(dt) -> bool:
    return dt in _SUPPORTED or (dt.name == "bfloat16" and dt.isnative)


def _dtype_of(x):
    dt = getattr(x, "dtype", None)
    if isinstance(dt, np.dtype):
        return dt
    try:
        return np.asarray(x).dtype
    except Exception:  # noqa: BLE001 - an operand numpy cannot read either
        return None


def _culprit_dtypes(args, kwargs):
    """The dtypes of a matmul call that gemmkit does not compute although
    numpy.matmul does: the operands', out's and those of numpy's loop for
    the call. Empty when numpy has no loop for the call either (then a
    DTypeError is a refusal numpy shares, not a gemmkit limitation)."""
    a, b = (list(args[:2]) + [None, None])[:2]
    out = args[2] if len(args) > 2 else kwargs.get("out")
    if isinstance(out, tuple) and len(out) == 1:
        out = out[0]
    dts = [_dtype_of(x) for x in (a, b)] + [None if out is None else _dtype_of(out)]
    if dts[0] is None or dts[1] is None or (out is not None and dts[2] is None):
        return []
    kw = {"casting": kwargs.get("casting", "same_kind")}
    if kwargs.get("dtype") is not None:
        kw["signature"] = (None, None, np.dtype(kwargs["dtype"]))
    try:
        loop = _NP_MATMUL.resolve_dtypes(tuple(dts), **kw)
    except (TypeError, ValueError):
        return []
    return [dt for dt in dict.fromkeys([*dts, *loop]) if dt is not None
            and not _computed_by_gemmkit(dt)]


def _without_supported_lists(text: str) -> str:
    """The message less the parenthesised lists of what gemmkit does compute
    ("(supported pairs: ..., int8->int32)"), which name no culprit."""
    out, i = [], 0
    for m in re.finditer(r"\((?=\s*(?:supported|it computes))", text, re.IGNORECASE):
        if m.start() < i:
            continue
        depth, j = 0, m.start()
        while j < len(text):
            depth += {"(": 1, ")": -1}.get(text[j], 0)
            j += 1
            if depth == 0:
                break
        out.append(text[i:m.start()])
        i = j
    out.append(text[i:])
    return "".join(out)


def _names_in(message: str, culprits) -> list[str]:
    """The culprit dtypes that ``message`` names."""
    msg = _without_supported_lists(message)
    found = []
    for dt in culprits:
        for name in dict.fromkeys((str(dt), dt.name)):
            if re.search(r"(?<![\w<>|=])" + re.escape(name) + r"(?![\w\[])", msg):
                found.append(name)
                break
    return found


# When a DTypeError did not come through gemmkit_matmul (no record of the
# call): the dtype names numpy prints, other than the ones gemmkit computes.
_DTYPE_WORD = re.compile(
    r"(?<![\w<>|=])(bool|u?int(?:16|32|64)|uint8|float(?:96|128)|longdouble|"
    r"complex(?:64|128|192|256)|clongdouble|object|str\d*|bytes\d*|void\d*|"
    r"datetime64(?:\[\w+\])?|timedelta64(?:\[\w+\])?|[<>|=][a-zA-Z]\d*)(?![\w\[])"
)


def _unsupported_dtype(exc: BaseException) -> str | None:
    """The unsupported dtype a gemmkit.DTypeError in ``exc`` names, or None.

    Follows explicit chaining (``raise ... from e``, as numpy's linalg
    check_cases does) but not implicit context: an assertion raised while a
    DTypeError was being handled (assert_raises_regex with the wrong message)
    is a failure of its own."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, gemmkit.DTypeError):
            culprits = getattr(exc, "_numpy_suite_culprits", None)
            if culprits is not None:
                names = _names_in(str(exc), culprits)
            else:
                names = [m.group(1) for m in
                         _DTYPE_WORD.finditer(_without_supported_lists(str(exc)))]
            if names:
                return names[0]
        exc = exc.__cause__
    return None


class _TestState:
    """The running test's calls that numpy answered (delegate mode)."""

    delegated: typing.ClassVar[list[str]] = []


def gemmkit_matmul(*args, **kwargs):
    """gemmkit.matmul (looked up at each call), recording on a DTypeError the
    call's dtypes that numpy computes and gemmkit does not; with
    GEMMKIT_NUMPY_SUITE_DELEGATE=1 numpy answers the calls refused for one."""
    try:
        return gemmkit.matmul(*args, **kwargs)
    except gemmkit.DTypeError as exc:
        culprits = _culprit_dtypes(args, kwargs)
        exc._numpy_suite_culprits = culprits
        if _DELEGATE:
            names = _names_in(str(exc), culprits)
            if names:
                _TestState.delegated.append(names[0])
                return _NP_MATMUL(*args, **kwargs)
        raise


class GemmkitArray(np.ndarray):
    """An ndarray whose ``@`` is gemmkit.matmul: the operator tests' operands.

    Why: ``a @ b`` on plain ndarrays is ndarray.__matmul__, a C slot that
    calls numpy's ufunc; nothing can put gemmkit behind it (numpy 2 dropped
    set_numeric_ops). TestMatmulOperator takes its operator from a class
    attribute, so there its ndarray operands can be handed over as views of
    this subclass, whose Python-level __matmul__/__rmatmul__ play the part of
    ndarray's operator with gemmkit as the ufunc: gemmkit.matmul gets the
    plain ndarray views and its result is what ``@`` returns, so the
    MatmulCommon checks test gemmkit through the operator. The deferral rule
    (binop_should_defer in numpy's C code: give way to an operand with
    __array_ufunc__ = None, or one without __array_ufunc__ that has a higher
    __array_priority__) lives in the operator, not in the ufunc, so it is
    reproduced here; test_array_priority_override thus checks this harness,
    and the numpy-scalar operands of test_matmul_raises stay numpy's.
    """

    def __matmul__(self, other):
        if _defers(self, other):
            return NotImplemented
        return gemmkit_matmul(_plain(self), _plain(other))

    def __rmatmul__(self, other):
        if _defers(self, other):
            return NotImplemented
        return gemmkit_matmul(_plain(other), _plain(self))


def _plain(x):
    return x.view(np.ndarray) if isinstance(x, (GemmkitArray, GemmkitInplaceArray)) else x


def _defers(self, other) -> bool:
    if isinstance(other, np.ndarray) or type(other) in (int, float, complex, bool):
        return False
    array_ufunc = getattr(type(other), "__array_ufunc__", _defers)
    if array_ufunc is not _defers:
        return array_ufunc is None
    return getattr(other, "__array_priority__", -float("inf")) > self.__array_priority__


class GemmkitInplaceArray(np.ndarray):
    """An ndarray whose ``@=`` is gemmkit.matmul with ``out=`` itself, as
    ndarray.__imatmul__ is numpy.matmul(a, b, out=a).

    TestMatmulInplace makes its operands with np.arange/np.ones in the test
    body; its module's ``np`` hands them out as views of this class, so
    ``a @= b`` runs gemmkit in place while ``a @ b``, the test's reference,
    stays numpy's own operator.
    """

    def __imatmul__(self, other):
        # numpy's in-place rule: the matrix axes of a, b and a itself, so the
        # result must have a's shape (no broadcasting into it).
        axes = [(-2, -1)] * 3 if self.ndim >= 2 else [(-1,), (-2, -1), (-1,)]
        gemmkit_matmul(_plain(self), _plain(other), out=(_plain(self),), axes=axes)
        return self


def _inplace_maker(make):
    def made(*args, **kwargs):
        return make(*args, **kwargs).view(GemmkitInplaceArray)
    return made


def gemmkit_operator_matmul(a, b):
    """``a @ b`` with exact-ndarray operands viewed as GemmkitArray."""
    def wrap(x):
        return x.view(GemmkitArray) if type(x) is np.ndarray else x
    return operator.matmul(wrap(a), wrap(b))


# ------------------------------------------------------------ running the tests

_XFAIL_PREFIX = "unsupported dtype"
_NO_OPERATOR_SEAM = (
    "tests numpy's own `@`/`@=` on plain ndarrays created in the test body: "
    "ndarray.__matmul__/__imatmul__ are C slots calling numpy's ufunc, and "
    "nothing can route them to gemmkit without editing the test (no "
    "set_numeric_ops in numpy 2); gemmkit behind `@` is covered by "
    "TestMatmulOperator"
)
_UFUNC_OBJECT = (
    "tests the np.ufunc object itself (.at / .types loop table / .signature and "
    "ufunc keyword parameters), not matmul's results; gemmkit.matmul is a function "
    "with matmul's call semantics, not a ufunc object"
)


class _ModuleWith(types.ModuleType):
    """A stand-in for module ``real`` in a numpy test module's globals: the
    given attributes replaced, every other one read from ``real``."""

    def __init__(self, real, **overrides):
        super().__init__(real.__name__, real.__doc__)
        self.__dict__.update(overrides)
        self.__dict__["_real_module"] = real

    def __getattr__(self, name):
        return getattr(self.__dict__["_real_module"], name)


_NP_WITH_GEMMKIT = _ModuleWith(np, matmul=gemmkit_matmul)
_NP_WITH_GEMMKIT_LINALG = _ModuleWith(np, linalg=_ModuleWith(np.linalg, matmul=gemmkit_matmul))
_UMT_WITH_GEMMKIT = _ModuleWith(umt, matmul=gemmkit_matmul)
_NP_INPLACE = _ModuleWith(np, arange=_inplace_maker(np.arange), ones=_inplace_maker(np.ones))

# What a test's own module globals get while it runs (see the module docstring).
_PATCHES = {
    "np": ("np", _NP_WITH_GEMMKIT),                   # `np.matmul` in test bodies
    "np.linalg": ("np", _NP_WITH_GEMMKIT_LINALG),     # `np.linalg.matmul`
    "linalg": ("matmul", gemmkit_matmul),             # test_linalg: from numpy import matmul
    "umt": ("umt", _UMT_WITH_GEMMKIT),                # test_ufunc: umt.matmul
    "np_inplace": ("np", _NP_INPLACE),                # operands whose @= is gemmkit's
}


def _keep_matmul_param(marks, argname):
    """The marks with the parametrization of ``argname`` narrowed to its
    np.matmul values (np.dot, np.vecdot, ... cases test other functions)."""
    out = []
    for mark in marks:
        if mark.name != "parametrize":
            out.append(mark)
            continue
        names = mark.args[0]
        names = [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)
        if argname not in names:
            out.append(mark)
            continue
        i = names.index(argname)
        kept = []
        for value in mark.args[1]:
            values = value.values if hasattr(value, "marks") else (
                value if len(names) > 1 else (value,))
            if values[i] is _NP_MATMUL:
                kept.append(value)
        if not kept or "ids" in mark.kwargs:
            raise RuntimeError(f"numpy's parametrization of {argname!r} changed: {mark!r}")
        kwargs = dict(mark.kwargs, ids=lambda v: "matmul" if v is _NP_MATMUL else None)
        out.append(pytest.mark.parametrize(mark.args[0], kept, **kwargs).mark)
    return out


def _adapt(fn, *, patch=(), param=None, skip=None):
    """numpy's test function ``fn`` with gemmkit in place (see the module
    docstring), turning a failure caused by an unsupported dtype into xfail."""
    if isinstance(fn, staticmethod):
        fn = fn.__func__
    if not inspect.isfunction(fn):
        raise RuntimeError(f"not a test function: {fn!r}")
    patches = [_PATCHES[name] for name in patch]
    for global_name, _ in patches:
        if global_name not in fn.__globals__:
            raise RuntimeError(f"{fn.__module__}.{fn.__qualname__}: no global {global_name!r}")

    @functools.wraps(fn)
    def run(*args, **kwargs):
        if param is not None and kwargs.get(param) is _NP_MATMUL:
            kwargs[param] = gemmkit_matmul
        _TestState.delegated = []
        reason = None
        try:
            with pytest.MonkeyPatch.context() as mp:
                for global_name, value in patches:
                    mp.setitem(fn.__globals__, global_name, value)
                result = fn(*args, **kwargs)
        except Exception as exc:  # Skipped/XFailed/KeyboardInterrupt pass through
            name = _unsupported_dtype(exc)
            if name is None:
                raise
            reason = f"{_XFAIL_PREFIX} '{name}': gemmkit raised DTypeError: {_short(exc, name)}"
            del exc
        if reason is None and _TestState.delegated:
            reason = (f"{_XFAIL_PREFIX} '{_TestState.delegated[0]}': answered by numpy.matmul "
                      "(GEMMKIT_NUMPY_SUITE_DELEGATE); the rest passed against gemmkit")
        if reason is not None:
            # Outside the except block: pytest formats the xfail's traceback,
            # and the DTypeError's chain through numpy's big files is slow.
            pytest.xfail(reason)
        return result

    marks = list(getattr(fn, "pytestmark", []))
    if param is not None:
        marks = _keep_matmul_param(marks, param)
    if skip is not None:
        marks.append(pytest.mark.skip(reason=skip).mark)
    run.pytestmark = marks
    return run


def _short(exc, name):
    while exc is not None and not isinstance(exc, gemmkit.DTypeError):
        exc = exc.__cause__
    return str(exc) if exc is not None else name


def _suite_class(orig, tests="all", *, attrs=None, **adapt):
    """A subclass of numpy's test class ``orig`` that collects only ``tests``
    (its other test methods are masked), each adapted by _adapt(**adapt)."""
    names = [n for n in dir(orig) if n.startswith("test") and callable(getattr(orig, n))]
    selected = names if tests == "all" else list(tests)
    missing = sorted(set(selected) - set(names))
    if missing:
        raise RuntimeError(f"{orig.__qualname__} has no {missing} in this numpy")
    ns = {n: None for n in names if n not in selected}
    for n in selected:
        ns[n] = _adapt(inspect.getattr_static(orig, n), **adapt)
    ns.update(attrs or {})
    ns["__module__"] = __name__
    ns["__doc__"] = f"{orig.__module__}.{orig.__qualname__}, gemmkit.matmul in place."
    return type(orig.__name__, (orig,), ns)


def _function_class(name, module, tests, **adapt):
    """numpy's module-level test functions, grouped in a class as static methods."""
    ns = {n: staticmethod(_adapt(getattr(module, n), **adapt)) for n in tests}
    ns["__module__"] = __name__
    ns["__doc__"] = f"Module-level tests of {module.__name__}, gemmkit.matmul in place."
    return type(name, (), ns)


# ---- numpy/_core/tests/test_multiarray.py

TestMatmul = _suite_class(tm.TestMatmul, attrs={"matmul": staticmethod(gemmkit_matmul)},
                          patch=["np"])
TestMatmulOperator = _suite_class(tm.TestMatmulOperator,
                                  attrs={"matmul": staticmethod(gemmkit_operator_matmul)})
TestMatmulInplace = _suite_class(tm.TestMatmulInplace, patch=["np_inplace"])
TestMultiarrayFunctions = _function_class("TestMultiarrayFunctions", tm, ["test_matmul_axes"],
                                          patch=["np"])
TestMethods = _suite_class(tm.TestMethods, ["test_dot_matmul_out",
                                            "test_dot_matmul_inner_array_casting_fails",
                                            "test_matmul_out"], patch=["np"])
TestMethodsDotOrMatmul = _suite_class(tm.TestMethods, ["test_arr_mult", "test_no_dgemv"],
                                      param="func")

# ---- numpy/_core/tests/test_ufunc.py

TestUfunc = _suite_class(tu.TestUfunc, ["test_axes_argument"], patch=["np"])
TestUfuncMatmulParam = _suite_class(tu.TestUfunc, ["test_vecdot_matvec_vecmat_complex"],
                                    param="ufunc")
TestUfuncUmtMatmul = _suite_class(tu.TestUfunc, ["test_can_ignore_signature"], patch=["umt"])
TestUfuncObject = _suite_class(tu.TestUfunc, ["test_at_not_none_signature"],
                               skip=_UFUNC_OBJECT)
TestUFuncInspectSignature = _suite_class(tu.TestUFuncInspectSignature,
                                         ["test_params_common_gufunc"], param="gufunc",
                                         skip=_UFUNC_OBJECT)
TestUfuncFunctions = _function_class("TestUfuncFunctions", tu, ["test_ufunc_types"],
                                     param="ufunc", skip=_UFUNC_OBJECT)

# ---- numpy/linalg/tests/test_linalg.py

_CASE_TESTS = ("test_sq_cases", "test_empty_sq_cases", "test_generalized_sq_cases",
               "test_generalized_empty_sq_cases", "test_nonsq_cases", "test_empty_nonsq_cases",
               "test_generalized_nonsq_cases", "test_generalized_empty_nonsq_cases",
               "test_herm_cases", "test_empty_herm_cases", "test_generalized_herm_cases",
               "test_generalized_empty_herm_cases")


def _linalg_case_class(orig):
    return _suite_class(orig, [n for n in _CASE_TESTS if hasattr(orig, n)],
                        patch=["linalg", "np"])


TestSolve = _linalg_case_class(tl.TestSolve)
TestInv = _linalg_case_class(tl.TestInv)
TestEig = _linalg_case_class(tl.TestEig)
TestSVD = _linalg_case_class(tl.TestSVD)
TestSVDHermitian = _linalg_case_class(tl.TestSVDHermitian)
TestPinv = _linalg_case_class(tl.TestPinv)
TestPinvHermitian = _linalg_case_class(tl.TestPinvHermitian)
TestEighCases = _linalg_case_class(tl.TestEighCases)
TestMatrixPower = _suite_class(tl.TestMatrixPower, ["test_power_is_two",
                                                    "test_power_is_minus_one"],
                               patch=["linalg", "np"])
TestQR = _suite_class(tl.TestQR, ["test_stacked_inputs"], patch=["linalg", "np"])
TestCholesky = _suite_class(tl.TestCholesky, ["test_basic_property"], patch=["linalg", "np"])
TestLinalgFunctions = _function_class("TestLinalgFunctions", tl, ["test_matmul"],
                                      patch=["np.linalg"])

# ---- numpy/linalg/tests/test_regression.py

TestRegression = _suite_class(tlr.TestRegression, ["test_openblas_threading"],
                              skip=_NO_OPERATOR_SEAM)

# ---- numpy/lib/tests/test_mixins.py, test_function_base.py

TestNDArrayOperatorsMixin = _suite_class(tmx.TestNDArrayOperatorsMixin, ["test_matmul"],
                                         patch=["np"])
TestVectorize = _suite_class(tfb.TestVectorize, ["test_subclasses"], patch=["np"])


# ------------------------------------------------------------------ the counts

class _SuiteReport:
    """Counts this file's outcomes and prints them in the terminal summary."""

    def __init__(self):
        self.outcomes = {}
        self.dtypes = {}

    def pytest_runtest_logreport(self, report):
        if os.path.basename(report.nodeid.split("::")[0]) != os.path.basename(__file__):
            return
        prev = self.outcomes.get(report.nodeid)
        if report.failed:
            self.outcomes[report.nodeid] = "failed"
        elif prev == "failed":
            return
        elif report.skipped and hasattr(report, "wasxfail"):
            m = re.match(_XFAIL_PREFIX + r" '([^']*)'", report.wasxfail)
            if m:
                self.outcomes[report.nodeid] = "xfailed (unsupported dtype)"
                self.dtypes[report.nodeid] = m.group(1)
            else:
                self.outcomes[report.nodeid] = "xfailed (numpy's own mark)"
        elif report.skipped:
            self.outcomes[report.nodeid] = "skipped"
        elif report.when == "call" and report.passed:
            self.outcomes[report.nodeid] = "passed"

    def pytest_terminal_summary(self, terminalreporter):
        if not self.outcomes:
            return
        counts = {}
        for outcome in self.outcomes.values():
            counts[outcome] = counts.get(outcome, 0) + 1
        per_dtype = {}
        for name in self.dtypes.values():
            per_dtype[name] = per_dtype.get(name, 0) + 1
        tr = terminalreporter
        tr.section("numpy matmul suite")
        impl = gemmkit.matmul
        impl = (f"{impl.__module__}.{impl.__qualname__}"
                if inspect.isfunction(impl) else repr(impl))
        tr.line(f"implementation: {impl}"
                + (" (GEMMKIT_NUMPY_SUITE_DELEGATE=1)" if _DELEGATE else ""))
        order = ["passed", "xfailed (unsupported dtype)", "failed", "skipped",
                 "xfailed (numpy's own mark)"]
        tr.line(", ".join(f"{counts.get(k, 0)} {k}" for k in order
                          if k in counts or k in order[:3]))
        if per_dtype:
            tr.line("unsupported dtypes (first one met per test): " + ", ".join(
                f"{k} {v}" for k, v in sorted(per_dtype.items(), key=lambda kv: -kv[1])))


_PLUGIN_NAME = "gemmkit-numpy-matmul-suite"


def _register_report(config):
    if config.pluginmanager.get_plugin(_PLUGIN_NAME) is None:
        config.pluginmanager.register(_SuiteReport(), _PLUGIN_NAME)


if _CONFIG is not None:
    _register_report(_CONFIG)


@pytest.fixture(autouse=True, scope="module")
def _numpy_suite_report(request):
    _register_report(request.config)  # when pytest.mark had no config at import
