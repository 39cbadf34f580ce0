"""Buffer-protocol formats and gemmkit's element type names: one table for
the front end (recognising memoryview operands without numpy) and the
Pyodide backend (describing buffers to the C ABI).  A leaf: imports nothing
of gemmkit."""

from __future__ import annotations

import sys

#: struct-module format character -> element type name.
FORMAT_NAMES = {
    "f": "float32", "d": "float64", "e": "float16", "?": "bool",
    "b": "int8", "h": "int16", "i": "int32", "q": "int64",
    "B": "uint8", "H": "uint16", "I": "uint32", "Q": "uint64",
    "Zf": "complex64", "Zd": "complex128",
}
#: C long ('l', 'L') is 4 bytes on wasm32 and Windows, 8 elsewhere.
LONG_NAMES = {("l", 4): "int32", ("l", 8): "int64", ("L", 4): "uint32", ("L", 8): "uint64"}
#: Element type name -> the format a new buffer of that type is made with.
FORMAT_OF = {name: code for code, name in FORMAT_NAMES.items() if len(code) == 1}

# Byte order must be native: a '>' buffer on a little-endian host would
# need swapping and is not recognised.
_NATIVE_PREFIXES = ("@", "=", "<") if sys.byteorder == "little" else ("@", "=", ">")


def format_name(fmt: str | None, itemsize: int) -> str | None:
    """The element type name of a buffer's format, or None."""
    fmt = fmt or "B"
    if fmt[:1] in _NATIVE_PREFIXES:
        fmt = fmt[1:]
    return FORMAT_NAMES.get(fmt) or LONG_NAMES.get((fmt, itemsize))
