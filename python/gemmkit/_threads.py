"""Thread limits: ``gemmkit.threads(n)`` and the threadpoolctl controller.

gemmkit has one worker pool per process, so its thread count is
process-wide, like the BLAS pools threadpoolctl controls.  The count comes
from the first of: ``set_num_threads(n)`` (or a ``threads(n)`` block),
``GEMMKIT_NUM_THREADS``, ``OMP_NUM_THREADS`` (its first entry), the cores
available; the C++ core resolves it (cpp/src/tuning) and
``dispatch_info()["threads_source"]`` names the step that gave it.

threadpoolctl finds libraries by scanning the shared objects loaded in the
process for a file-name prefix, then checking for symbols; gemmkit's
extension exports ``gemmkit_get_num_threads`` and ``gemmkit_set_num_threads``
(the C ABI), which the controller calls through ctypes; it remembers the
setting it read before a limit, so leaving a ``threadpool_limits`` block
restores that setting exactly (the default stays the default, not a copy of
its count), as ``threads(n)`` does.  The controller is
registered whichever is imported first: at ``import gemmkit`` when
threadpoolctl is already imported, else by a ``sys.meta_path`` finder that
registers it the moment threadpoolctl is imported.  Importing threadpoolctl
eagerly would cost every ``import gemmkit`` about 10 ms (it pulls in
``dataclasses``; measured against a 110 ms ``import gemmkit``), so it is
not done.  Under Pyodide there is no threadpoolctl and no pool: nothing is
registered there.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import sys
import weakref

from . import _api
from . import _dtypes as _dt
from ._errors import ArgumentError, IsaError

# The extension's file name, as threadpoolctl lowercases it:
# "_native.cpython-311-x86_64-linux-gnu.so", "_native.cp311-win_amd64.pyd".
# The check symbols tell it from other packages' "_native" modules.
_EXTENSION_PREFIX = "_native."
_GET = "gemmkit_get_num_threads"
_SET = "gemmkit_set_num_threads"
_VERSION = "gemmkit_version"
_INFO = "gemmkit_dispatch_info_json"


def _restore_value():
    """What ``set_num_threads`` must be given to return to the current
    setting: the count when it was set explicitly, else 0 (the default:
    ``GEMMKIT_NUM_THREADS``, ``OMP_NUM_THREADS``, the cores)."""
    try:
        info = _api.dispatch_info()
    except IsaError:
        # An unusable GEMMKIT_REQUIRE_ISA pin withholds the report (and
        # every GEMM); setting the count itself restores the same count.
        return _api.get_num_threads()
    return info["threads"] if info["threads_source"] == "set_num_threads" else 0


class _ThreadLimit(contextlib.ContextDecorator):
    """The object ``threads(n)`` returns: a context manager and a decorator."""

    def __init__(self, n: int):
        self._n = n
        # One saved setting per entry still open: a decorated function may
        # recurse, and one object may be entered again inside its own block.
        self._saved: list[int] = []

    def __repr__(self) -> str:
        return f"gemmkit.threads({self._n})"

    def __enter__(self) -> None:
        saved = _restore_value()
        _api.set_num_threads(self._n)
        self._saved.append(saved)

    def __exit__(self, *exc_info) -> bool:
        _api.set_num_threads(self._saved.pop())
        return False  # an exception raised in the block propagates


def threads(n):
    """Use at most ``n`` worker threads within a block or a decorated function.

    On exit the previous setting comes back exactly, also when the block
    raises: an explicit ``set_num_threads`` value, or the default
    (``GEMMKIT_NUM_THREADS``, else ``OMP_NUM_THREADS``, else the cores
    available) when none was set.  Blocks nest.  Results are bit-identical
    for every thread count, so a limit changes only the speed.

    Parameters
    ----------
    n : int
        The most worker threads a GEMM may use, >= 1 (above 1024 it is
        clamped to 1024).

    Returns
    -------
    contextlib.ContextDecorator
        A context manager that is also a function decorator.

    Raises
    ------
    ArgumentError
        ``n`` is not an integer >= 1; raised at the call, before any block
        runs.

    See Also
    --------
    set_num_threads, get_num_threads, dispatch_info

    Notes
    -----
    The setting is process-wide, like ``set_num_threads`` and the thread
    pools threadpoolctl controls: a block in one Python thread also limits
    the GEMMs other threads run meanwhile, and overlapping blocks from
    several threads restore in the order they end.  Under Pyodide gemmkit
    runs on the calling thread whatever the count.

    Examples
    --------
    >>> with gemmkit.threads(1):      # e.g. inside a joblib worker
    ...     gemmkit.get_num_threads()
    1
    >>> @gemmkit.threads(2)
    ... def limited():
    ...     return gemmkit.get_num_threads()
    >>> limited()
    2
    """
    n = _dt.integer_value(n, "thread count")
    if n < 1:
        raise ArgumentError(f"gemmkit: threads(n) needs a thread count >= 1, got {n}")
    return _ThreadLimit(n)


# ------------------------------------------------------------ threadpoolctl

def _controller_class(tpc):
    """gemmkit's LibController subclass for one threadpoolctl module object
    (``threadpoolctl``, or ``__main__`` under ``python -m threadpoolctl``)."""

    class GemmkitController(tpc.LibController):
        """threadpoolctl's handle on gemmkit's worker pool (the C ABI's
        thread-count getter and setter, called through ctypes)."""

        user_api = "gemmkit"
        internal_api = "gemmkit"
        filename_prefixes = (_EXTENSION_PREFIX,)
        check_symbols = (_GET, _SET)

        def _function(self, name, restype, argtypes):
            # None in another package's "_native" module: threadpoolctl
            # builds the controller (asking its version) before it looks
            # for check_symbols.
            fn = getattr(self.dynlib, name, None)  # (_get_symbol is 3.5+ only)
            if fn is not None:
                fn.restype = restype
                fn.argtypes = argtypes
            return fn

        def _setting(self):
            """(count, the value set_num_threads restores it with): the
            C ABI's twin of _restore_value()."""
            info = self._function(_INFO, ctypes.c_char_p, [])
            text = info() if info is not None else None
            if text is None:  # an unusable pin withholds the report
                count = int(self._function(_GET, ctypes.c_size_t, [])())
                return count, count
            report = json.loads(text)
            explicit = report["threads_source"] == "set_num_threads"
            return report["threads"], report["threads"] if explicit else 0

        def get_num_threads(self):
            if self._function(_GET, ctypes.c_size_t, []) is None:
                return None
            setting = self._setting()
            seen = _seen.setdefault(self, _Seen())
            # What this controller set itself is a limit, not a setting to
            # come back to: reading it inside a block keeps the one before.
            if seen.setting is None or setting != seen.limit:
                seen.setting = setting
            return setting[0]

        def set_num_threads(self, num_threads):
            set_ = self._function(_SET, ctypes.c_int, [ctypes.c_size_t])
            if set_ is None:
                return
            n = int(num_threads)
            seen = _seen.setdefault(self, _Seen())
            if seen.setting is not None and n == seen.setting[0]:
                # threadpoolctl restores a limit by setting the count it
                # read before: restore the setting that count came from
                # (the default stays the default, not a copy of its count).
                set_(seen.setting[1])
                seen.limit = None
            else:
                # A count below 1 means the default, as OpenBLAS takes it;
                # the core clamps the rest to its range (1024).
                set_(min(n, 2**31 - 1) if n >= 1 else 0)
                seen.limit = self._setting()

        def get_version(self):
            version = self._function(_VERSION, ctypes.c_char_p, [])
            return None if version is None else version().decode("ascii")

    return GemmkitController


class _Seen:
    """A controller's memory: the last setting it read that it did not make
    itself, and the limit it last set (threadpoolctl reads the count, sets
    a limit, then sets the count it read)."""

    __slots__ = ("limit", "setting")

    def __init__(self):
        # Both (count, restore value) pairs, as _setting() returns them.
        self.setting = None
        self.limit = None


# Kept beside the controllers, not on them: threadpoolctl lists every
# instance attribute in threadpool_info().
_seen: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

# threadpoolctl module objects the controller is registered with.
_registered: list = []


def _register(tpc) -> None:
    tpc.register(_controller_class(tpc))
    if not any(m is tpc for m in _registered):
        _registered.append(tpc)


def _is_threadpoolctl(module) -> bool:
    spec = getattr(module, "__spec__", None)
    return (getattr(spec, "name", None) == "threadpoolctl"
            and hasattr(module, "register") and hasattr(module, "LibController"))


class _RegisteringLoader:
    """Wraps threadpoolctl's loader: registers the controller once the
    module has run; everything else is the wrapped loader's."""

    def __init__(self, loader):
        self._loader = loader

    def __getattr__(self, name):
        return getattr(self._loader, name)

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        if _is_threadpoolctl(module):
            _register(module)


class _RegisterOnImport:
    """A ``sys.meta_path`` finder that only ever answers for threadpoolctl:
    it asks the other finders for the spec and wraps the loader.  It leaves
    ``sys.meta_path`` once it has found threadpoolctl."""

    def find_spec(self, name, path=None, target=None):
        if name != "threadpoolctl":
            return None
        for finder in list(sys.meta_path):
            find = getattr(finder, "find_spec", None)
            if finder is self or find is None:
                continue
            spec = find(name, path, target)
            if spec is not None:
                break
        else:
            return None  # not installed (yet): keep watching
        with contextlib.suppress(ValueError):
            sys.meta_path.remove(self)
        if spec.loader is not None and hasattr(spec.loader, "exec_module"):
            spec.loader = _RegisteringLoader(spec.loader)
        return spec


def _install_threadpoolctl_controller() -> None:
    if sys.platform == "emscripten":
        return
    # "__main__" is threadpoolctl itself under `python -m threadpoolctl -i gemmkit`.
    for name in ("threadpoolctl", "__main__"):
        module = sys.modules.get(name)
        if _is_threadpoolctl(module) and not any(m is module for m in _registered):
            _register(module)
    if "threadpoolctl" not in sys.modules and not any(
            isinstance(f, _RegisterOnImport) for f in sys.meta_path):
        sys.meta_path.insert(0, _RegisterOnImport())


_install_threadpoolctl_controller()
