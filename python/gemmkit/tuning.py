"""The tuning knobs: blocking sizes and size thresholds of the C++ core.

Every knob lives in one registry (``cpp/src/tuning/tuning.cpp``); this
module reads it through the C ABI.  A knob's value comes from the first
of: a per-call argument where one exists (a ``threads(n)`` block for the
thread count), :func:`set` (process-wide), its ``GEMMKIT_<NAME>``
environment variable (read once), the tuning profile that
``python -m gemmkit.tune`` writes (read once, see :func:`profile`), its
built-in default.  The defaults are safe on any machine; a profile only
refines them for the CPU it was measured on.

Knobs are named by their environment variable (``"GEMMKIT_KC"``); the
short form (``"KC"``, ``"kc"``) is accepted too.  Under Pyodide the knobs
work the same (their environment variables are read from the runtime's
environment, as ``GEMMKIT_REQUIRE_ISA`` is) and there is no profile:
:func:`profile` reports ``"unsupported"``.
"""

from __future__ import annotations

import json
import operator
from typing import Any

from ._backend import backend as _backend
from ._errors import ArgumentError

__all__ = ["knobs", "get", "origin", "set", "reset", "profile"]

_PREFIX = "GEMMKIT_"


def _name(name: object) -> str:
    if not isinstance(name, str):
        raise ArgumentError(f"gemmkit: a knob name must be a str, not {type(name).__name__}")
    upper = name.upper()
    return upper if upper.startswith(_PREFIX) else _PREFIX + upper


def knobs() -> list[dict[str, Any]]:
    """Every knob in registry order, each a dict with ``"name"`` (its
    environment variable), ``"default"``, ``"max"`` (larger values are
    clamped to it), ``"doc"``, ``"value"`` (what a call uses now) and
    ``"origin"`` (``"setter"``, ``"environment"``, ``"profile"`` or
    ``"default"``).

    Examples
    --------
    >>> import gemmkit.tuning
    >>> kc = [k for k in gemmkit.tuning.knobs() if k["name"] == "GEMMKIT_KC"][0]
    >>> sorted(kc)
    ['default', 'doc', 'max', 'name', 'origin', 'value']
    """
    rows: list[dict[str, Any]] = json.loads(_backend.knobs_json())
    return rows


def _row(name: object) -> dict[str, Any]:
    full = _name(name)
    for row in knobs():
        if row["name"] == full:
            return row
    raise ArgumentError(f"gemmkit: unknown knob {name!r} (gemmkit.tuning.knobs() lists them)")


def get(name: str) -> int:
    """The value a call uses now for the knob ``name`` (e.g. ``"GEMMKIT_KC"``;
    0 means the built-in automatic choice where the knob's doc says so).

    Raises :class:`gemmkit.ArgumentError` for a name that is no knob."""
    value: int = _row(name)["value"]
    return value


def origin(name: str) -> str:
    """Where :func:`get`'s value comes from: ``"setter"``, ``"environment"``,
    ``"profile"`` or ``"default"``."""
    where: str = _row(name)["origin"]
    return where


def set(name: str, value: int) -> None:  # noqa: A001 - the registry's own word
    """Sets the knob ``name`` process-wide, above its environment variable
    and the profile; a value above the knob's ``"max"`` is clamped to it.

    Raises :class:`gemmkit.ArgumentError` for a name that is no knob or a
    value that is not a non-negative integer."""
    full = _name(name)
    if isinstance(value, bool):
        raise ArgumentError(f"gemmkit: the value of {full} must be an integer, not bool")
    try:
        number = operator.index(value)
    except TypeError:
        raise ArgumentError(
            f"gemmkit: the value of {full} must be an integer, not {type(value).__name__}"
        ) from None
    if number < 0:
        raise ArgumentError(f"gemmkit: the value of {full} must be >= 0, got {number}")
    _backend.knob_set(full, min(number, 2**64 - 1))


def reset(name: str) -> None:
    """Drops :func:`set`'s value: the knob falls back to its environment
    variable, the profile, its default."""
    _backend.knob_reset(_name(name))


def profile() -> dict[str, Any]:
    """The tuning profile as the core read it (once, at the first call that
    needed a knob): ``"status"`` (``"loaded"``, ``"missing"``, ``"none"``
    when ``GEMMKIT_PROFILE`` is set empty, ``"other_cpu"`` when it was
    measured on another CPU and so ignored, ``"unreadable"``,
    ``"unsupported"``), ``"path"`` (``GEMMKIT_PROFILE``, else
    ``$XDG_CONFIG_HOME/gemmkit/profile.env``, else
    ``~/.config/gemmkit/profile.env``), ``"cpu"`` (the CPU the file names),
    ``"this_cpu"`` (what a profile for this machine names) and ``"values"``
    ({knob name: value}, empty unless loaded)."""
    info: dict[str, Any] = json.loads(_backend.profile_json())
    return info
