"""Native suite: operands other than numpy arrays, and a large-shape oracle.

torch CPU tensors through DLPack (no copy: out= is written in place, and an
out overlapping an input is detected, which only works on the original
memory; bfloat16 tensors through gemmkit's own capsule reader, also
exercised with hand-made capsules; results come back as torch tensors over
the result's memory when every operand is a tensor), buffer-protocol
objects (array.array, strided memoryviews), and BLIS's residual check
||C t - (beta C0 t + alpha A (B t))|| on a shape too big for an elementwise
wide reference.
"""

import ctypes
import gc
from array import array

import pytest

np = pytest.importorskip("numpy", reason="numpy is not installed")

import gemmkit
from apihelpers import EPS, assert_gemm_close, rand

# ---------------------------------------------------------------- torch

@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch", reason="torch is not installed (pip install torch==2.13.0)")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_torch_inputs(torch, dtype):
    tdt = getattr(torch, dtype)
    g = torch.Generator().manual_seed(0)
    a = torch.rand(37, 53, generator=g, dtype=tdt) - 0.5
    b = torch.rand(53, 29, generator=g, dtype=tdt) - 0.5
    got = np.asarray(gemmkit.gemm(a, b))
    assert got.shape == (37, 29)
    assert_gemm_close(got, a.numpy(), b.numpy())
    # Non-contiguous views: a transposed tensor and a row-stepped one.
    at = (torch.rand(53, 37, generator=g, dtype=tdt) - 0.5).t()
    bs = (torch.rand(106, 29, generator=g, dtype=tdt) - 0.5)[::2]
    got = np.asarray(gemmkit.gemm(at, bs))
    assert_gemm_close(got, at.numpy(), bs.numpy())


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_torch_out_written_in_place(torch, dtype):
    tdt = getattr(torch, dtype)
    g = torch.Generator().manual_seed(1)
    a = torch.rand(20, 30, generator=g, dtype=tdt)
    b = torch.rand(30, 10, generator=g, dtype=tdt)
    out = torch.full((20, 10), float("nan"), dtype=tdt)
    ptr = out.data_ptr()
    res = gemmkit.gemm(a, b, out=out)
    assert out.data_ptr() == ptr
    assert_gemm_close(out.numpy(), a.numpy(), b.numpy())
    # out=c in place, through a transposed tensor view.
    c = torch.rand(10, 20, generator=g, dtype=tdt).t()
    c0 = c.numpy().copy()
    gemmkit.gemm(a, b, c, alpha=2.0, beta=-1.0, out=c)
    assert_gemm_close(c.numpy(), a.numpy(), b.numpy(), c0, 2.0, -1.0)
    # Like numpy's out=, the object passed as out is what comes back.
    assert res is out, f"gemm(out=tensor) returned a {type(res).__name__}, not the tensor"


def test_torch_inputs_not_copied(torch):
    # If gemmkit copied a torch input, an out aliasing it could not be
    # detected; OverlapError proves it looked at the tensor's own memory.
    x = torch.rand(8, 8, dtype=torch.float64)
    y = torch.rand(8, 8, dtype=torch.float64)
    before = x.clone()
    with pytest.raises(gemmkit.OverlapError):
        gemmkit.gemm(x, y, out=x)
    with pytest.raises(gemmkit.OverlapError):
        gemmkit.gemm(y, x[:, :4], out=x[:, 3:7])
    assert torch.equal(x, before)


def test_torch_bad_dtype(torch):
    # gemm converts nothing: mixed dtypes are refused (matmul would convert).
    with pytest.raises(gemmkit.DTypeError):
        gemmkit.gemm(torch.ones(3, 4, dtype=torch.int64), torch.ones(4, 2, dtype=torch.int32))


def test_torch_int64_and_complex(torch):
    a = torch.arange(12, dtype=torch.int64).reshape(3, 4) - 5
    b = torch.arange(8, dtype=torch.int64).reshape(4, 2) * 3
    assert np.array_equal(gemmkit.matmul(a, b), (a @ b).numpy())
    z = torch.complex(torch.ones(3, 4), torch.arange(12.0).reshape(3, 4))
    assert np.allclose(gemmkit.matmul(z, z.T), (z @ z.T).numpy(), rtol=1e-5)


# ---------------------------------------------------------------- buffers

def test_array_array_inputs_numpy_out():
    m, n, k = 5, 4, 3
    a = array("d", [float(i % 7) - 3 for i in range(m * k)])
    b = array("d", [float(i % 5) - 2 for i in range(k * n)])
    av = memoryview(a).cast("B").cast("d", (m, k))
    bv = memoryview(b).cast("B").cast("d", (k, n))
    out = np.full((m, n), np.nan)
    res = gemmkit.gemm(av, bv, out=out)
    assert res is out
    ref = np.frombuffer(a).reshape(m, k) @ np.frombuffer(b).reshape(k, n)
    assert np.array_equal(out, ref)  # small integers: exact


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_strided_memoryview_inputs(dtype):
    # A memoryview of a strided numpy view keeps its strides; gemmkit must
    # honour them through the buffer protocol.
    rng = np.random.default_rng(4)
    big_a = rand(rng, (20, 30), dtype)
    big_b = rand(rng, (30, 12), dtype)
    a = big_a[::2, ::3]      # (10, 10)
    b = big_b[5:15, ::-2]    # (10, 6), negative column stride
    got = np.asarray(gemmkit.gemm(memoryview(a), memoryview(b)))
    assert_gemm_close(got, a, b)
    out_base = np.full((10, 12), np.nan, dtype)
    gemmkit.gemm(a, b, out=memoryview(out_base[:, ::2]))
    assert_gemm_close(out_base[:, ::2], a, b)
    assert np.isnan(out_base[:, 1::2]).all()


def test_readonly_buffer_inputs():
    a = np.arange(12.0).reshape(3, 4)
    ro = memoryview(a.tobytes()).cast("d", (3, 4))
    assert ro.readonly
    assert np.array_equal(np.asarray(gemmkit.gemm(ro, np.eye(4))), a)


# ---------------------------------------------------------------- large shape

@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_large_residual(dtype):
    # BLIS-style second oracle: project the result on random vectors.  A
    # wrong element shifts C t by about |a||b||t|, far above this bound.
    m, n, k = 1500, 1200, 1100
    rng = np.random.default_rng(11)
    a = rand(rng, (m, k), dtype)
    b = np.asfortranarray(rand(rng, (k, n), dtype))
    c0 = rand(rng, (m, n), dtype)
    alpha, beta = 0.7, -1.3
    c = gemmkit.gemm(a, b, c0, alpha=alpha, beta=beta)
    al, be = float(np.dtype(dtype).type(alpha)), float(np.dtype(dtype).type(beta))
    a64, b64, c64, c064 = (x.astype(np.float64) for x in (a, b, c, c0))
    eps = EPS[dtype]
    for _ in range(2):
        t = rng.uniform(-1, 1, n)
        lhs = c64 @ t
        rhs = be * (c064 @ t) + al * (a64 @ (b64 @ t))
        bound = 4 * (k + n + 2) * eps * (
            abs(al) * (np.abs(a64) @ (np.abs(b64) @ np.abs(t)))
            + abs(be) * (np.abs(c064) @ np.abs(t))
        )
        err = np.abs(lhs - rhs)
        worst = int(np.argmax(err / bound))
        assert np.all(err <= bound), f"row {worst}: residual {err[worst]:.3g} > {bound[worst]:.3g}"


@pytest.mark.parametrize("make", ["requires_grad", "meta"])
def test_torch_out_that_cannot_be_written_is_gemmkits_error(torch, make):
    out = (torch.zeros(2, 2, requires_grad=True) if make == "requires_grad"
           else torch.zeros(2, 2, device="meta"))
    with pytest.raises(gemmkit.DTypeError, match="out could not be written via DLPack"):
        gemmkit.gemm(np.ones((2, 2), np.float32), np.ones((2, 2), np.float32), out=out)


def test_an_alpha_no_float_holds_is_an_argument_error():
    a = np.ones((2, 2), np.float16)
    with pytest.raises(gemmkit.ArgumentError, match=r"alpha must be a real number.*\.\.\.$"):
        gemmkit.gemm(a, a, alpha=10**400)


# ---------------------------------------------------------------- torch in, torch out

# (torch dtype, gemm's result dtype, matmul's result dtype): gemm converts
# nothing (int8 sums are int32); matmul is numpy's (bfloat16 @ bfloat16 is
# float32, as numpy's loop for ml_dtypes.bfloat16 gives).
TORCH_CASES = [("float32", "float32", "float32"), ("float64", "float64", "float64"),
               ("float16", "float16", "float16"), ("bfloat16", "bfloat16", "float32"),
               ("int8", "int32", "int8"), ("int16", "int16", "int16"),
               ("complex64", "complex64", "complex64"), ("complex128", "complex128", "complex128")]


def _torch_operands(torch, name, shape_a=(5, 7), shape_b=(7, 3), seed=0):
    g = torch.Generator().manual_seed(seed)
    tdt = getattr(torch, name)
    if name.startswith("int"):
        return (torch.randint(-4, 5, shape_a, generator=g, dtype=tdt),
                torch.randint(-4, 5, shape_b, generator=g, dtype=tdt))
    real = torch.float64 if name != "complex64" else torch.float32
    a = torch.randint(-4, 5, shape_a, generator=g).to(real)
    b = torch.randint(-4, 5, shape_b, generator=g).to(real)
    if name.startswith("complex"):
        a, b = torch.complex(a, -a), torch.complex(b, b)
    return a.to(tdt), b.to(tdt)  # small integers: every product below is exact


def _exact(torch, x):
    """A tensor's values in a wide type numpy reads (bfloat16 included)."""
    return (x.to(torch.complex128) if x.is_complex() else x.to(torch.float64)).numpy()


@pytest.fixture
def from_dlpack_calls(torch, monkeypatch):
    """The numpy arrays gemmkit hands to torch.from_dlpack, in order."""
    calls = []
    real = torch.from_dlpack

    def spy(x, *args, **kwargs):
        calls.append(x)
        return real(x, *args, **kwargs)

    monkeypatch.setattr(torch, "from_dlpack", spy)
    return calls


def _shares_the_result(torch, got, calls):
    """``got`` is the tensor torch made of the last result handed over."""
    assert calls, "no result went through torch.from_dlpack"
    handed = calls[-1]
    assert isinstance(handed, np.ndarray)
    assert got.data_ptr() == handed.ctypes.data, "the tensor is a copy of the result"


@pytest.mark.parametrize("name, gemm_out, matmul_out", TORCH_CASES, ids=[c[0] for c in TORCH_CASES])
def test_torch_in_torch_out(torch, from_dlpack_calls, name, gemm_out, matmul_out):
    a, b = _torch_operands(torch, name)
    ref = _exact(torch, a) @ _exact(torch, b)
    got = gemmkit.gemm(a, b)
    assert isinstance(got, torch.Tensor) and got.dtype == getattr(torch, gemm_out)
    _shares_the_result(torch, got, from_dlpack_calls)
    assert np.array_equal(_exact(torch, got), ref)
    got = gemmkit.matmul(a, b)
    assert isinstance(got, torch.Tensor) and got.dtype == getattr(torch, matmul_out)
    _shares_the_result(torch, got, from_dlpack_calls)
    assert np.array_equal(_exact(torch, got), ref)
    stack = torch.stack([a, a])
    got = gemmkit.gemm_batched(stack, b)
    assert isinstance(got, torch.Tensor) and got.shape == (2, 5, 3)
    _shares_the_result(torch, got, from_dlpack_calls)
    assert np.array_equal(_exact(torch, got), np.stack([ref, ref]))


def test_torch_requant_and_packed_b(torch, from_dlpack_calls):
    a, b = _torch_operands(torch, "int8")
    got = gemmkit.gemm_requant(a, b, scale=0.5, zero_point=1)
    assert isinstance(got, torch.Tensor) and got.dtype == torch.int8
    _shares_the_result(torch, got, from_dlpack_calls)
    want = gemmkit.gemm_requant(a.numpy(), b.numpy(), scale=0.5, zero_point=1)
    assert np.array_equal(got.numpy(), want)
    # A PackedRhs is gemmkit's own: the tensor a decides.
    packed = gemmkit.prepack_rhs(b)
    got = gemmkit.gemm(a, packed)
    assert isinstance(got, torch.Tensor)
    assert np.array_equal(got.numpy(), a.numpy().astype(np.int32) @ b.numpy().astype(np.int32))


def test_torch_mixed_with_numpy_gives_numpy(torch):
    a, b = _torch_operands(torch, "float32")
    for got in (gemmkit.gemm(a, b.numpy()), gemmkit.gemm(a.numpy(), b),
                gemmkit.matmul(a, b.numpy()), gemmkit.gemm(a, b, np.zeros((5, 3), np.float32)),
                gemmkit.gemm(a, b, np.float32([0, 1, 2])), gemmkit.gemm(a, memoryview(b.numpy()))):
        assert type(got) is np.ndarray
    # A scalar c is not an operand of its own: still torch.
    assert isinstance(gemmkit.gemm(a, b, 1.0, beta=1.0), torch.Tensor)
    assert isinstance(gemmkit.gemm(a, b, torch.ones(3), beta=1.0), torch.Tensor)


def test_torch_out_is_returned_itself(torch):
    a, b = _torch_operands(torch, "bfloat16")
    out = torch.full((5, 3), float("nan"), dtype=torch.bfloat16)
    ptr = out.data_ptr()
    assert gemmkit.gemm(a, b, out=out) is out
    assert out.data_ptr() == ptr
    assert np.array_equal(_exact(torch, out), _exact(torch, a) @ _exact(torch, b))
    out32 = torch.zeros(5, 3)
    assert gemmkit.gemm(a, b, out=(out32,), out_dtype=np.float32) is out32
    assert np.array_equal(out32.numpy(), _exact(torch, a) @ _exact(torch, b))
    out_mm = torch.zeros(5, 3, dtype=torch.float64)
    assert gemmkit.matmul(a.double(), b.double(), out=out_mm) is out_mm


def test_torch_views_are_read_through_their_strides(torch):
    g = torch.Generator().manual_seed(3)
    for name in ("float32", "bfloat16", "float16"):
        tdt = getattr(torch, name)
        base = torch.randint(-4, 5, (12, 16), generator=g).to(tdt)
        views = [base.t()[:5, :7], base[1:11:2, 3:10], base.flip(1)[:5, :7], base[3:8, 2:9]]
        for x in views:  # 5x7
            for y in (base[:7, 2:5], base.t()[4:11, ::4]):  # 7x3
                got = gemmkit.gemm(x, y)
                assert isinstance(got, torch.Tensor) and got.is_contiguous()
                ref = _exact(torch, x) @ _exact(torch, y)
                assert np.array_equal(_exact(torch, got), ref), (name, x.stride(), y.stride())


def test_torch_bfloat16_inputs_are_read_in_place(torch):
    # OverlapError proves gemmkit looked at the tensor's own memory.
    x = torch.ones(6, 6, dtype=torch.bfloat16)
    before = x.clone()
    with pytest.raises(gemmkit.OverlapError):
        gemmkit.gemm(x, torch.ones(6, 6, dtype=torch.bfloat16), out=x)
    with pytest.raises(gemmkit.OverlapError):
        gemmkit.gemm(x[:, :3], x[:3, :4], out=x[:, 2:6])
    assert torch.equal(x, before)


def test_torch_bfloat16_memory_outlives_the_tensor(torch):
    # The array over a tensor's memory keeps the tensor's storage: dropping
    # the tensor and filling a new one of the same size changes nothing.
    t = torch.arange(4096, dtype=torch.float32).to(torch.bfloat16).reshape(64, 64)
    want = t.float().numpy().copy()
    view = gemmkit._api._operand(t, "a")
    del t
    gc.collect()
    fill = [torch.full((64, 64), -3.0, dtype=torch.bfloat16) for _ in range(8)]
    assert np.array_equal(view.astype(np.float32), want)
    del fill


def test_torch_matmul_vectors(torch):
    v = torch.tensor([1.0, 2.0, 3.0])
    m = torch.arange(6.0).reshape(3, 2)
    dot = gemmkit.matmul(v, v)
    assert isinstance(dot, torch.Tensor) and dot.shape == () and dot.item() == 14.0
    row = gemmkit.matmul(v, m)
    assert isinstance(row, torch.Tensor) and row.shape == (2,)
    assert torch.equal(row, v @ m)
    col = gemmkit.matmul(m.t(), v)
    assert isinstance(col, torch.Tensor) and torch.equal(col, m.t() @ v)
    with pytest.raises(gemmkit.ShapeError):
        gemmkit.matmul(torch.tensor(2.0), v)
    dot16 = gemmkit.matmul(v.to(torch.bfloat16), v.to(torch.bfloat16))
    assert isinstance(dot16, torch.Tensor) and dot16.dtype == torch.float32 and dot16.item() == 14.0


def test_torch_requires_grad_is_refused(torch):
    # gemmkit computes no gradients: a result cut off from the graph would
    # be silently wrong, so the tensor is refused (torch's own DLPack
    # export refuses it too) and the message says to detach.
    a = torch.ones(3, 3, requires_grad=True)
    with pytest.raises(gemmkit.DTypeError, match="a could not be read via DLPack.*detach"):
        gemmkit.gemm(a, torch.ones(3, 3))
    with pytest.raises(gemmkit.DTypeError, match="b could not be read via DLPack.*detach"):
        gemmkit.matmul(torch.ones(3, 3), a)
    assert isinstance(gemmkit.gemm(a.detach(), torch.ones(3, 3)), torch.Tensor)


def test_torch_tensors_on_other_devices_are_refused(torch):
    meta = torch.zeros(2, 2, dtype=torch.bfloat16, device="meta")
    with pytest.raises(gemmkit.DTypeError, match="a could not be read via DLPack"):
        gemmkit.gemm(meta, torch.ones(2, 2, dtype=torch.bfloat16))


# ---------------------------------------------------------------- DLPack capsules by hand
# The capsule reader against the specification's structs: strides, byte
# offsets, flags, devices and the deleter, with a producer of our own.

class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


_DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class _DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32),
                ("manager_ctx", ctypes.c_void_p), ("deleter", _DELETER),
                ("flags", ctypes.c_uint64), ("dl_tensor", _DLTensor)]


class _DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p),
                ("deleter", _DELETER)]


_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_NAMES = {True: b"dltensor_versioned", False: b"dltensor"}
_ALIVE: list = []
BF16_ONE = 0x3F80  # 1.0 in bfloat16


class _Producer:
    """A DLPack producer of bfloat16 bits held in a uint16 numpy array.

    Each one stays alive for the process (_ALIVE): its struct and deleter
    stand for a real producer's C allocations, which an array over the
    memory may outlive the Python object by."""

    def __init__(self, bits, *, versioned=True, device=1, flags=0, strides=None,
                 byte_offset=0, shape=None, code=4, version=1):
        _ALIVE.append(self)
        self.bits, self.versioned = bits, versioned
        self.device, self.deleted = device, 0
        shape = bits.shape if shape is None else shape
        self._shape = (ctypes.c_int64 * len(shape))(*shape)
        self._strides = None if strides is None else (ctypes.c_int64 * len(strides))(*strides)
        self._deleter = _DELETER(self._delete)
        managed = _DLManagedTensorVersioned() if versioned else _DLManagedTensor()
        t = managed.dl_tensor
        t.data = bits.ctypes.data - byte_offset
        t.byte_offset = byte_offset
        t.device = _DLDevice(device, 0)
        t.ndim = len(shape)
        t.dtype = _DLDataType(code, 16, 1)
        t.shape = self._shape
        t.strides = self._strides if strides is not None else None
        managed.deleter = self._deleter
        if versioned:
            managed.major, managed.flags = version, flags
        self._managed = managed

    def _delete(self, _ptr):
        self.deleted += 1

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        versioned = self.versioned and max_version is not None
        return _capsule_new(ctypes.addressof(self._managed), _NAMES[versioned], None)

    def __dlpack_device__(self):
        return (self.device, 0)


def _bf16_bits(values):
    return np.asarray(values, np.float32).view(np.uint32).__rshift__(16).astype(np.uint16)


@pytest.mark.parametrize("versioned", [True, False], ids=["versioned", "unversioned"])
def test_capsule_reader_strides_offset_and_deleter(versioned):
    pytest.importorskip("ml_dtypes", reason="ml_dtypes is not installed")
    values = np.arange(12, dtype=np.float32).reshape(3, 4)
    bits = _bf16_bits(values)
    # The transpose through explicit strides (in elements), data reached
    # through a byte offset.
    producer = _Producer(bits, versioned=versioned, shape=(4, 3), strides=(1, 4), byte_offset=64)
    got = gemmkit.gemm(producer, np.eye(3, dtype=bits.dtype).astype(np.float32).astype(
        gemmkit._dtypes.numpy_dtype("bfloat16")), out_dtype=np.float32)
    assert np.array_equal(got, values.T)
    gc.collect()
    assert producer.deleted == 1, "the deleter must run once the array over the memory goes"


def test_capsule_reader_refusals():
    pytest.importorskip("ml_dtypes", reason="ml_dtypes is not installed")
    b = np.ones((2, 2), gemmkit._dtypes.numpy_dtype("bfloat16"))
    bits = _bf16_bits(np.ones((2, 2)))
    with pytest.raises(gemmkit.DTypeError, match="device type 2, not in CPU memory"):
        gemmkit.gemm(_Producer(bits, device=2), b)
    with pytest.raises(gemmkit.DTypeError, match="DLPack version 2"):
        gemmkit.gemm(_Producer(bits, version=2), b)
    # A read-only tensor is read, never written.
    ro = _Producer(bits.copy(), flags=1)
    assert np.array_equal(gemmkit.gemm(ro, b, out_dtype=np.float32), np.full((2, 2), 2.0))
    with pytest.raises(gemmkit.LayoutError):
        gemmkit.gemm(b, b, out=_Producer(bits.copy(), flags=1))
    # A copy made by the producer cannot receive a result.
    with pytest.raises(gemmkit.DTypeError, match="handed over a copy"):
        gemmkit.gemm(b, b, out=_Producer(bits.copy(), flags=2))
    # Not bfloat16 (an opaque handle here): numpy's refusal stands.
    with pytest.raises(gemmkit.DTypeError, match="a could not be read via DLPack"):
        gemmkit.gemm(_Producer(bits, code=3), b)


def test_capsule_reader_writes_out_in_place():
    pytest.importorskip("ml_dtypes", reason="ml_dtypes is not installed")
    bf16 = gemmkit._dtypes.numpy_dtype("bfloat16")
    bits = np.zeros((2, 3), np.uint16)
    out = _Producer(bits)
    a = np.full((2, 4), 1.0, bf16)
    assert gemmkit.gemm(a, np.ones((4, 3), bf16), out=out) is out
    assert (bits == _bf16_bits(np.full((2, 3), 4.0))).all()


# ---------------------------------------------------------------- array-API producers
# jax-style producers name their library through __array_namespace__ (the
# array API standard); a stand-in shows which one takes the result back.

class _Namespace:
    """An array library whose from_dlpack records what it was handed."""

    def __init__(self, has_from_dlpack=True):
        self.handed = []
        if has_from_dlpack:
            self.from_dlpack = self._from_dlpack

    def _from_dlpack(self, x):
        self.handed.append(x)
        return ("imported", x)


class _ArrayApiProducer:
    """A CPU DLPack producer (a numpy array underneath) of a namespace."""

    def __init__(self, values, namespace):
        self._values, self._ns = values, namespace

    def __dlpack__(self, **kwargs):
        return self._values.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._values.__dlpack_device__()

    def __array_namespace__(self, api_version=None):
        return self._ns


def test_array_namespace_producers_get_their_own_type_back():
    ns = _Namespace()
    a = _ArrayApiProducer(np.arange(6.0).reshape(2, 3), ns)
    b = _ArrayApiProducer(np.ones((3, 2)), ns)
    tag, result = gemmkit.gemm(a, b)
    assert tag == "imported" and ns.handed == [result]
    assert np.array_equal(result, np.arange(6.0).reshape(2, 3) @ np.ones((3, 2)))
    tag, _ = gemmkit.matmul(a, b)
    assert tag == "imported"
    # Two libraries, or one without from_dlpack: numpy's array.
    other = _ArrayApiProducer(np.ones((3, 2)), _Namespace())
    assert type(gemmkit.gemm(a, other)) is np.ndarray
    plain = _ArrayApiProducer(np.ones((3, 2)), _Namespace(has_from_dlpack=False))
    assert type(gemmkit.gemm(plain.__class__(np.ones((2, 3)), plain._ns), plain)) is np.ndarray
