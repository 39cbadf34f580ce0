"""PackedRhs: a right-hand side packed once for many products.

Front-end layer.  The packed memory belongs to the C++ core (a
``gemmkit::PackedRhs``); this object holds the backend's handle to it, which
frees it when the last reference goes (the pybind11 class's destructor
natively, ``gemmkit_packed_rhs_free`` from ``__del__`` under Pyodide).  The
core never writes to a packed operand after making it, so one PackedRhs may
be used by any number of threads at once; this wrapper is immutable too.
"""

from __future__ import annotations

from types import GenericAlias
from typing import Any

from ._errors import DTypeError  # a TypeError too

try:
    import numpy as _np
except ImportError:  # pragma: no cover - exercised in the Pyodide suite
    _np = None

_MADE_BY = "gemmkit: PackedRhs objects are made by gemmkit.prepack_rhs(b)"


class PackedRhs:
    """A right-hand side ``b`` (k, n) packed once for many products.

    Laid out for the kernel this process dispatches for its dtype; pass it
    as ``b`` to :func:`gemmkit.gemm`, :func:`gemmkit.gemm_batched`,
    :func:`gemmkit.matmul` or :func:`gemmkit.gemm_requant`.  Made by
    :func:`gemmkit.prepack_rhs` only (calling the class raises
    :class:`gemmkit.DTypeError`).  Its properties say what it holds:
    ``shape`` (k, n), ``ndim``, ``dtype``, the ``isa`` and ``kernel`` it
    was laid out for, and ``nbytes``.

    See Also
    --------
    gemmkit.prepack_rhs : Makes one.

    Notes
    -----
    Immutable and thread-safe: it holds a private copy of ``b`` (no
    reference to ``b`` itself, so later changes to ``b`` do not show
    through), and any number of threads may use it at once.  It cannot be
    pickled (the layout belongs to this process's dispatch choice);
    ``copy.copy`` and ``copy.deepcopy`` return it unchanged.

    Examples
    --------
    >>> import numpy as np
    >>> packed = gemmkit.prepack_rhs(np.eye(3, dtype=np.float64))
    >>> packed.shape, packed.ndim, packed.nbytes > 0
    ((3, 3), 2, True)
    >>> a = np.arange(6.0).reshape(2, 3)
    >>> bool((gemmkit.matmul(a, packed) == a).all())
    True
    """

    # PackedRhs[numpy.float32] in annotations, as the stubs type it.
    __class_getitem__ = classmethod(GenericAlias)

    __slots__ = ("_handle", "_dtype_name", "_shape", "_isa", "_kernel", "_nbytes",
                 "__weakref__")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise DTypeError(_MADE_BY)

    @classmethod
    def _make(cls, handle: Any, info: dict) -> PackedRhs:
        self = object.__new__(cls)
        init = object.__setattr__
        init(self, "_handle", handle)
        init(self, "_dtype_name", str(info["dtype"]))
        init(self, "_shape", (int(info["k"]), int(info["n"])))
        init(self, "_isa", str(info["isa"]))
        init(self, "_kernel", str(info["kernel"]))
        init(self, "_nbytes", int(info["bytes"]))
        return self

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"gemmkit: PackedRhs is immutable (cannot set {name!r})")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"gemmkit: PackedRhs is immutable (cannot delete {name!r})")

    @property
    def shape(self) -> tuple[int, int]:
        """(k, n) of the ``b`` it was made from."""
        return self._shape

    @property
    def ndim(self) -> int:
        """2, as for the matrix it replaces."""
        return 2

    @property
    def dtype(self) -> Any:
        """Element type: a numpy dtype where numpy is importable, else its name."""
        if _np is None:
            return self._dtype_name
        from ._dtypes import numpy_dtype

        return numpy_dtype(self._dtype_name)

    @property
    def isa(self) -> str:
        """ISA whose kernel layout it holds (e.g. "avx512vnni"; as in
        :func:`gemmkit.dispatch_info`)."""
        return self._isa

    @property
    def kernel(self) -> str:
        """Kernel it was laid out for (e.g. "f32_gemm_32x12__avx512f")."""
        return self._kernel

    @property
    def nbytes(self) -> int:
        """Bytes of packed memory held."""
        return self._nbytes

    def __repr__(self) -> str:
        k, n = self._shape
        return (f"<gemmkit.PackedRhs shape=({k}, {n}) dtype={self._dtype_name} "
                f"isa={self._isa} kernel={self._kernel} nbytes={self._nbytes}>")

    def __reduce__(self) -> Any:
        raise DTypeError(
            "gemmkit: a PackedRhs cannot be pickled (its layout belongs to this "
            "process's dispatch choice); pickle b and call prepack_rhs(b) again"
        )

    def __copy__(self) -> PackedRhs:
        return self  # immutable: a copy would be indistinguishable

    def __deepcopy__(self, memo: dict) -> PackedRhs:
        return self


__all__ = ["PackedRhs"]
