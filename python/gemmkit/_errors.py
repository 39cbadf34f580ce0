"""Error hierarchy shared by the native and the Pyodide backends.

Every error gemmkit raises derives from :class:`GemmkitError` and from the
built-in exception an ordinary ``except`` clause would expect, so both
``except gemmkit.GemmkitError`` and ``except ValueError`` work.

The C++ core reports failures as a status code plus a message (see
``cpp/include/gemmkit/gemmkit.h``); :func:`error_from_status` is the one place
that maps a code to its class, for both backends.
"""

from __future__ import annotations


class GemmkitError(Exception):
    """Base class of every error raised by gemmkit.

    Each subclass is also the built-in exception an ordinary ``except``
    clause expects (``ValueError``, ``TypeError``, ``RuntimeError``,
    ``MemoryError``), and each message starts with ``"gemmkit: "`` and
    names the problem.  Nothing is written to an ``out`` when a call
    raises.

    Examples
    --------
    >>> try:
    ...     gemmkit.set_num_threads(-1)
    ... except gemmkit.GemmkitError as exc:
    ...     print(type(exc).__name__, isinstance(exc, ValueError), exc)
    ArgumentError True gemmkit: thread count must be >= 0
    """


class ShapeError(GemmkitError, ValueError):
    """Operand dimensions do not agree, an operand has the wrong ndim, or
    something does not broadcast.  A ``ValueError``."""


class DTypeError(GemmkitError, TypeError):
    """An unsupported element type, operands whose types do not match, or
    an object that is not an array where one is needed.  A ``TypeError``
    (numpy raises ``TypeError`` for these)."""


class LayoutError(GemmkitError, ValueError):
    """A bad memory layout: an output aliasing itself, an extent that
    overflows, a read-only or non-strided output.  A ``ValueError``."""


class OverlapError(GemmkitError, ValueError):
    """The output overlaps an input (gemmkit never copies behind your
    back).  A ``ValueError``."""


class ArgumentError(GemmkitError, ValueError):
    """An argument of the wrong kind or outside its domain (alpha, scale,
    zero point, activation, casting, thread count...).  A ``ValueError``."""


class IsaError(GemmkitError, RuntimeError):
    """``GEMMKIT_REQUIRE_ISA`` names an unknown ISA or one this machine or
    build cannot run.  Pins never fall back.  A ``RuntimeError``."""


class WorkspaceError(GemmkitError, MemoryError):
    """A workspace or result allocation failed.  A ``MemoryError``."""


class InternalError(GemmkitError, RuntimeError):
    """A bug in gemmkit; please report it.  A ``RuntimeError``."""


# Classes by the status names of the C ABI's code table
# (gemmkit_codes_json()["status"]); each backend installs the codes it
# reads from its library with install_status_codes().
_CLASS_BY_STATUS_NAME = {
    "shape": ShapeError,
    "dtype": DTypeError,
    "stride": LayoutError,
    "overlap": OverlapError,
    "value": ArgumentError,
    "isa": IsaError,
    "alloc": WorkspaceError,
    "internal": InternalError,
}
_CLASS_BY_CODE: dict = {}


def install_status_codes(table: dict) -> None:
    """Learn the status codes (name -> code) of the loaded library."""
    for name, code in table.items():
        if name in _CLASS_BY_STATUS_NAME:
            _CLASS_BY_CODE[code] = _CLASS_BY_STATUS_NAME[name]


def error_from_status(status: int, message: str) -> GemmkitError:
    """The exception for a non-zero gemmkit_status and its message."""
    cls = _CLASS_BY_CODE.get(status, InternalError)
    return cls(message)


__all__ = [
    "GemmkitError",
    "ShapeError",
    "DTypeError",
    "LayoutError",
    "OverlapError",
    "ArgumentError",
    "IsaError",
    "WorkspaceError",
    "InternalError",
    "error_from_status",
    "install_status_codes",
]
