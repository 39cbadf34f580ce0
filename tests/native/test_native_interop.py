"""Native suite: operands other than numpy arrays, and a large-shape oracle.

torch CPU tensors through DLPack (no copy: out= is written in place, and an
out overlapping an input is detected, which only works on the original
memory), buffer-protocol objects (array.array, strided memoryviews), and
BLIS's residual check ||C t - (beta C0 t + alpha A (B t))|| on a shape too big
for an elementwise wide reference.
"""

from array import array

import pytest

np = pytest.importorskip("numpy", reason="numpy is not installed")

import gemmkit  # noqa: E402
from apihelpers import EPS, assert_gemm_close, rand  # noqa: E402


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
