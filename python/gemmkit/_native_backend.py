"""Native backend: the pybind11 extension ``gemmkit._native`` (CPython).

Implements the backend contract described in ``_backend.py``.  Shape, stride
and overlap checks run in the C++ core; this module only adapts (element
type names to the gemmkit_dtype codes the extension takes).
"""

from __future__ import annotations

import json

import numpy as _np

from . import _native
from ._dtypes import CODES

NAME = "native"

gemm2d = _native.gemm2d
set_num_threads = _native.set_num_threads
get_num_threads = _native.get_num_threads
version = _native.version
may_share_memory = _np.may_share_memory


def gemm_typed(in_dtype, out_dtype, a, b, c, alpha, beta, out):
    _native.gemm_typed(CODES[in_dtype], CODES[out_dtype], a, b, c, alpha, beta, out)


def gemm_requant(out_dtype, a, b, scale_kind, scale, zero_point, bias_kind, bias, out):
    _native.gemm_requant(CODES[out_dtype], a, b, scale_kind, scale, zero_point, bias_kind,
                         bias, out)


def prepack_rhs(in_dtype, b):
    handle = _native.prepack_rhs(CODES[in_dtype], b)
    return handle, handle.describe()


def dispatch_info() -> dict:
    info = json.loads(_native.dispatch_info_json())
    info["backend"] = NAME
    return info


def available_isas() -> list:
    return list(json.loads(_native.dispatch_info_json())["available_isas"])
