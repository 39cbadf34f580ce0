"""The JupyterLite site (tools/build_lite.py) in headless Chromium, offline:
the site is built and served on 127.0.0.1, every request to another host is
aborted and recorded, the tour notebook's code cells run in the site's REPL
(``%pip install gemmkit`` from the site's own index included), and what they
print is checked against results computed here with numpy.  A screenshot goes
to build/test-results/."""

from __future__ import annotations

import ast
import json
import random
import re
import shutil
import sys
import tempfile
import time
import urllib.parse

import numpy as np
import pytest

from wasmhelpers import REPO, _load, require

RESULTS = REPO / "build" / "test-results"
SITE = REPO / "build" / "lite-site"  # not lite/_output: a site being served there survives
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 # Second fence behind the request routing: no other host even resolves.
                 "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"]
# Fetched from inside the kernel (a Web Worker) after the tour: proves that
# requests of the kernel's worker are seen and aborted too, so the "no
# outside request" assertion below could fail.
PROBE_URL = "http://gemmkit-offline-probe.invalid/ping"
PROBE_CELL = f"""
from pyodide.http import pyfetch
try:
    await pyfetch({PROBE_URL!r})
    print("probe: fetched")
except Exception as exc:
    print("probe: blocked,", type(exc).__name__)
"""
DONE = "GEMMKIT-TOUR-" + "FINISHED"
DONE_CELL = 'print("GEMMKIT-TOUR-" + "FINISHED")'  # the source itself never matches DONE
TIMEOUT_MS = 240_000

build_lite = _load("gemmkit_build_lite", REPO / "tools" / "build_lite.py")


@pytest.fixture(scope="module")
def site(request):
    """The built site (build/lite-site) and the gemmkit version it offers."""
    try:
        artifacts = request.getfixturevalue("artifacts")
    except pytest.fail.Exception as exc:
        # The build failure itself is reported by the wasm build step and
        # tests/wasm/test_build.py; without a wheel there is no site to test.
        pytest.skip("no JupyterLite site: gemmkit's Pyodide wheel and the web demo "
                    f"could not be built (wasm/build.py failed: {str(exc)[:300]})")
    require((REPO / "node_modules" / "pyodide" / "pyodide.mjs").exists(),
            "node_modules/pyodide is missing: run `npm ci` in the repository root")
    try:
        import jupyterlite_core  # noqa: F401
        import jupyterlite_pyodide_kernel  # noqa: F401
    except ImportError as exc:
        require(False, f"{exc.name} is not installed: pip install -r requirements-lite.txt")
    t0 = time.perf_counter()
    try:
        out = build_lite.build_site(SITE, artifacts.wheel, artifacts.web_dir)
    except build_lite.LiteError as exc:
        pytest.fail(f"tools/build_lite.py: {exc}", pytrace=False)
    print(f"site built in {time.perf_counter() - t0:.1f} s")
    version = artifacts.wheel.name.split("-")[1]
    return out, version


@pytest.fixture(scope="module")
def site_url(site):
    serve = _load("gemmkit_web_demo_serve", REPO / "web-demo" / "serve.py")
    server = serve.serve_in_thread(port=0, quiet=True, directory=str(site[0]))
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def tour_cells(site_dir) -> list[str]:
    nb = json.loads((site_dir / "files" / "gemmkit-tour.ipynb").read_text())
    cells = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]
    assert cells and cells[0].strip() == "%pip install gemmkit", cells[:1]
    return cells


class OfflineBrowser:
    """Headless Chromium on a fresh profile whose every request to anything
    but ``base_url`` is aborted and recorded (``outside``); ``seen`` lists
    every request, pages' and workers' alike."""

    def __init__(self, base_url: str):
        try:
            from playwright.sync_api import sync_playwright
        except ImportError:
            require(False, "playwright is not installed (pip install playwright==1.65.2)")
        self.exe = shutil.which("chromium")
        require(self.exe is not None, "Debian chromium is not installed (apt-get install chromium)")
        self.base_url = base_url
        self.outside: list[str] = []
        self.seen: list[str] = []
        self.page_errors: list[str] = []
        self._playwright = sync_playwright()
        self._profile = ""

    def __enter__(self):
        self._profile = tempfile.mkdtemp(prefix="gemmkit-lite-chromium-")
        p = self._playwright.__enter__()
        try:
            self.ctx = p.chromium.launch_persistent_context(
                self._profile, executable_path=self.exe, headless=True, args=CHROMIUM_ARGS,
                viewport={"width": 1200, "height": 1600})
        except BaseException:
            self.__exit__(*sys.exc_info())
            raise
        self.ctx.route("**/*", self._only_local)
        self.ctx.on("request", lambda req: self.seen.append(req.url))
        self.page = self.ctx.new_page()
        self.page.on("pageerror", lambda exc: self.page_errors.append(str(exc)))
        return self

    def _only_local(self, route):
        url = route.request.url
        if url.startswith(self.base_url + "/"):
            route.continue_()
        else:
            self.outside.append(url)
            route.abort()

    def screenshot(self, name: str) -> None:
        RESULTS.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(RESULTS / name), full_page=True)
        print(f"screenshot: {RESULTS / name}")

    def __exit__(self, *exc):
        try:
            if hasattr(self, "ctx"):
                self.ctx.close()
            self._playwright.__exit__(*exc)
        finally:
            shutil.rmtree(self._profile, ignore_errors=True)


def run_in_repl(browser: OfflineBrowser, cells: list[str]) -> tuple[list, float]:
    """Runs ``cells`` in the site's REPL app (one kernel); returns each output
    as (mime type, text) and the seconds from page load to the last one."""
    query = urllib.parse.urlencode([("kernel", "python"), ("toolbar", "1")]
                                   + [("code", c) for c in cells], quote_via=urllib.parse.quote)
    page = browser.page
    t0 = time.perf_counter()
    page.goto(f"{browser.base_url}/repl/index.html?{query}")
    # Done when the last cell printed its marker, or as soon as any cell
    # shows an error (a traceback is rendered as stderr).
    page.wait_for_function(
        """done => {
          const outs = [...document.querySelectorAll('.jp-CodeConsole .jp-OutputArea-output')];
          return outs.some(o => o.innerText.includes(done) ||
                                o.dataset.mimeType === 'application/vnd.jupyter.stderr');
        }""", arg=DONE, timeout=TIMEOUT_MS, polling=500)
    elapsed = time.perf_counter() - t0
    outputs = page.eval_on_selector_all(
        ".jp-CodeConsole .jp-OutputArea-output",
        "els => els.map(e => [e.getAttribute('data-mime-type') || '', e.innerText])")
    return outputs, elapsed


def find(text: str, pattern: str) -> re.Match:
    m = re.search(pattern, text, re.M)
    assert m, f"no line matching {pattern!r} in the tour's output:\n{text}"
    return m


def literal(text: str, prefix: str):
    return ast.literal_eval(find(text, rf"^{re.escape(prefix)}(.*)$").group(1).strip())


def test_tour_runs_offline_in_jupyterlite(site, site_url):
    site_dir, version = site
    with OfflineBrowser(site_url) as browser:
        outputs, elapsed = run_in_repl(browser, tour_cells(site_dir) + [PROBE_CELL, DONE_CELL])
        browser.screenshot("jupyterlite-tour.png")
    text = "\n".join(t for _, t in outputs)
    print(f"tour finished in {elapsed:.1f} s after page load; output:\n{text}")
    print(f"{len(browser.seen)} requests; page errors: {browser.page_errors}")
    errors = [t for mime, t in outputs if "stderr" in mime or "Traceback" in t]
    assert not errors, "a cell failed:\n" + "\n".join(errors)
    assert DONE in text

    # Nothing left 127.0.0.1, except the probe that shows the guard works
    # for the kernel's worker too.
    assert browser.outside == [PROBE_URL], browser.outside
    assert "probe: blocked" in text
    assert all(u.startswith(site_url + "/") or u == PROBE_URL for u in browser.seen), \
        [u for u in browser.seen if not u.startswith(site_url + "/")]
    # gemmkit came from the site's own index (pypi/), Pyodide from static/pyodide.
    wheel_url = re.compile(r"/pypi/gemmkit-[^/?]+\.whl(\?.*)?$")
    assert any(wheel_url.search(u) for u in browser.seen), "gemmkit's wheel was not fetched"
    assert any(u.split("?")[0].endswith("/static/pyodide/pyodide.asm.wasm") for u in browser.seen)

    find(text, rf"^gemmkit {re.escape(version)}, backend 'pyodide', on emscripten/wasm32$")
    # The offline site has no numpy and no matplotlib: the tour says so and works.
    find(text, r"^numpy is not available here")
    find(text, r"^numpy is not importable here: skipping the numpy examples$")
    find(text, r"^matplotlib is not available here: skipping the plot")

    a = np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float64)
    b = np.array([[7, 8], [9, 10], [11, 12]], dtype=np.float64)
    assert literal(text, "gemm(a, b) =") == (a @ b).tolist()
    find(text, r"^result: memoryview, format 'd', shape \(2, 2\)$")
    a32 = np.array([[1, 2], [3, 4]], np.float32)
    b32 = np.array([[0.5, -1], [2, 0.25]], np.float32)
    assert literal(text, "c32 <- 2*a32@b32 - c32 =") == (2 * a32 @ b32 - 1).tolist()
    assert literal(text, "matmul(a, b) =") == (a @ b).tolist()
    assert literal(text, "matmul(a, v) =") == (a @ np.array([1.0, 0, -1])).tolist()
    find(text, r"^ShapeError: gemmkit: shape mismatch")
    find(text, r"^DTypeError: gemmkit: ")
    qa = np.array([[1, -2, 3], [-4, 5, -6]], np.int64)
    qb = np.array([[7, -8], [9, 10], [-11, 12]], np.int64)
    assert literal(text, "int8 gemm(qa, qb) =") == (qa @ qb).tolist()
    requant = np.clip(np.rint((qa @ qb) * 0.5) + 1, -128, 127).astype(int)
    assert literal(text, "gemm_requant(qa, qb, scale=0.5, zero_point=1) =") == requant.tolist()
    ha = np.array([[0.5, 1.5, -2], [1, 0.25, 4]], np.float16)
    hb = np.array([[1, 2], [3, 4], [0.5, -1]], np.float16)
    want = (ha.astype(np.float64) @ hb.astype(np.float64)).astype(np.float16).tolist()
    assert literal(text, "float16 gemm(ha, hb) =") == want
    find(text, r"^float16 result: format 'e'$")

    # dispatch_info: simd128 kernels, pinned to simd128.
    find(text, r"^backend: pyodide$")
    find(text, r"^pin: simd128$")
    find(text, r"^float32: simd128, kernel f32_gemm_8x4__simd128, tile 8x4$")
    find(text, r"^float64: simd128, kernel f64_gemm_4x4__simd128, tile 4x4$")
    find(text, r"^float16: simd128, kernel f16_gemm_8x4__simd128, tile 8x4$")
    find(text, r"^int8: simd128, kernel int8_gemm_8x4__simd128, tile 8x4$")
    assert literal(text, "available ISAs:") == ["simd128", "scalar"]
    # The pin is read once: the module in use keeps simd128; fresh copies
    # honour scalar and refuse an x86 ISA.
    find(text, r"^after setting GEMMKIT_REQUIRE_ISA=scalar, the module in use still runs "
               r"f32_gemm_8x4__simd128$")
    find(text, r"^GEMMKIT_REQUIRE_ISA=scalar: f32_gemm_4x4__scalar f64_gemm_4x4__scalar$")
    find(text, r"^GEMMKIT_REQUIRE_ISA=avx512f: IsaError: gemmkit: GEMMKIT_REQUIRE_ISA=avx512f, "
               r"but avx512f exists only on x86_64")

    # The timing cell's correctness lines, against numpy on the same inputs.
    rng = random.Random(2024)
    n = 64
    ah = np.array([[rng.uniform(-1, 1) for _ in range(n)] for _ in range(n)])
    bh = np.array([[rng.uniform(-1, 1) for _ in range(n)] for _ in range(n)])
    diff = float(find(text, r"^n=64 float64: max \|gemmkit - python loop\| = (\S+)$").group(1))
    assert 0 <= diff < 1e-12
    checksum = float(find(text, r"^n=64 float64: sum of gemmkit's C = (\S+)$").group(1))
    expected = float((ah @ bh).sum())
    tol = 4 * n * np.finfo(np.float64).eps * float((np.abs(ah) @ np.abs(bh)).sum())
    assert abs(checksum - expected) <= tol, (checksum, expected, tol)
    # The table: every (dtype, n) row, simd128 and scalar measured, and the
    # loop rows where the table promises them.
    find(text, r"^GFLOP/s; 'gemmkit' runs the simd128 kernels, 'scalar' the scalar ones$")
    rows = re.findall(r"^(float32|float64)\s+(\d+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)$", text, re.M)
    got = {(d, int(n_)): (loop, simd, scal, npy) for d, n_, loop, simd, scal, npy in rows}
    assert set(got) == {(d, s) for d in ("float32", "float64") for s in (32, 64, 128, 256)}, rows
    for (dtype, size), (loop, simd, scal, npy) in got.items():
        assert float(simd) > 0 and float(scal) > 0 and npy == "-", (dtype, size)
        assert (loop != "-") == (dtype == "float64" and size <= 64), (dtype, size, loop)
    # Loose on purpose (a shared, busy machine): compiled code beats the
    # interpreted triple loop by far more than 5x at n = 64.
    assert float(got["float64", 64][1]) > 5 * float(got["float64", 64][0]), got["float64", 64]


def test_web_demo_is_served_with_the_site(site, site_url):
    # The demo's own behaviour is tested in test_web_demo.py; here: it works
    # from the site's demo/ folder, offline, with verified results.
    with OfflineBrowser(site_url) as browser:
        browser.page.goto(f"{site_url}/demo/index.html?sizes=64&dtypes=float32&minMs=20&rounds=1")
        browser.page.wait_for_function(
            "window.gemmkitDemo && ['done', 'error'].includes(window.gemmkitDemo.state)",
            timeout=60_000)
        state = browser.page.evaluate("window.gemmkitDemo")
        browser.screenshot("jupyterlite-site-demo.png")
    assert state["state"] == "done", state.get("error")
    assert browser.outside == [] and browser.page_errors == []
    assert [(r["dtype"], r["n"]) for r in state["rows"]] == [("float32", 64)]
    assert all(r["verified"] for r in state["rows"]), state["rows"]
    assert any(u.endswith("/demo/gemmkit-simd128.wasm") for u in browser.seen)
