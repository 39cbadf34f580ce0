"""Native backend: the pybind11 extension ``gemmkit._native`` (CPython).

Implements the backend contract described in ``_backend.py``.  A leaf: it
imports nothing of the front end.  The extension turns numpy arrays into the
C ABI's operand descriptors; the C++ core checks and computes.
"""

from __future__ import annotations

import json

import numpy as _np

from . import _native
from ._errors import install_status_codes

NAME = "native"

#: The C ABI's code tables (gemmkit_codes_json).
CODES = json.loads(_native.codes_json())
install_status_codes(CODES["status"])

gemm = _native.gemm
matmul2d = _native.matmul2d
gemm_requant = _native.gemm_requant
set_num_threads = _native.set_num_threads
get_num_threads = _native.get_num_threads
version = _native.version
knobs_json = _native.knobs_json
knob_set = _native.knob_set
knob_reset = _native.knob_reset
profile_json = _native.profile_json
array_from_dlpack = _native.array_from_dlpack
may_share_memory = _np.may_share_memory


def prepack_rhs(b):
    handle = _native.prepack_rhs(b)
    return handle, json.loads(handle.describe_json())


def dispatch_info() -> dict:
    info = json.loads(_native.dispatch_info_json())
    info["backend"] = NAME
    return info


def available_isas() -> list:
    """Usable here whatever the pin, best first (the C ABI's ISA table)."""
    rows = json.loads(_native.isa_table_json())
    return [row["name"] for row in reversed(rows) if row["usable"]]
