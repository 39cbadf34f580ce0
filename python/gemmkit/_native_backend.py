"""Native backend: the pybind11 extension ``gemmkit._native`` (CPython).

Implements the backend contract described in ``_backend.py``.  Shape, stride
and overlap checks run in the C++ core; this module only adapts.
"""

from __future__ import annotations

import json

from . import _native

NAME = "native"

gemm2d = _native.gemm2d
set_num_threads = _native.set_num_threads
get_num_threads = _native.get_num_threads
version = _native.version


def dispatch_info() -> dict:
    info = json.loads(_native.dispatch_info_json())
    info["backend"] = NAME
    return info


def available_isas() -> list:
    return list(json.loads(_native.dispatch_info_json())["available_isas"])
