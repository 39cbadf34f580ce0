"""The JupyterLite site (tools/build_lite.py) in headless Chromium, offline:
the site is built and served on 127.0.0.1, every request to another host is
aborted and recorded, the tour notebook's code cells run in the site's REPL
(``%pip install gemmkit`` from the site's own index included), and what they
print is checked against results computed here with numpy.  A screenshot goes
to build/test-results/.

The online site (``--online``) cannot run here (no network): its
configuration is checked file by file, Chromium shows that the kernel and
Pyodide send every lock entry (micropip, numpy, matplotlib and its closure)
to Pyodide's package index and nothing to the site, and the tour's numpy and
matplotlib path runs on the host Python against numpy."""

from __future__ import annotations

import ast
import contextlib
import hashlib
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

import numpy as np
import pytest

from wasmhelpers import REPO, _load, require

RESULTS = REPO / "build" / "test-results"
SITE = REPO / "build" / "lite-site"  # not lite/_output: a site being served there survives
SITE_ONLINE = REPO / "build" / "lite-site-online"
NPM_PYODIDE = REPO / "node_modules" / "pyodide"
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


def _build(request, out, online: bool):
    """Builds the site (offline or online) into ``out``; returns (out, version)."""
    try:
        artifacts = request.getfixturevalue("artifacts")
    except pytest.fail.Exception as exc:
        # The build failure itself is reported by the wasm build step and
        # tests/wasm/test_build.py; without a wheel there is no site to test.
        pytest.skip("no JupyterLite site: gemmkit's Pyodide wheel and the web demo "
                    f"could not be built (wasm/build.py failed: {str(exc)[:300]})")
    require((NPM_PYODIDE / "pyodide.mjs").exists(),
            "node_modules/pyodide is missing: run `npm ci` in the repository root")
    try:
        import jupyterlite_core  # noqa: F401
        import jupyterlite_pyodide_kernel  # noqa: F401
    except ImportError as exc:
        require(False, f"{exc.name} is not installed: pip install -r requirements-lite.txt")
    t0 = time.perf_counter()
    try:
        built = build_lite.build_site(out, artifacts.wheel, artifacts.web_dir, online=online)
    except build_lite.LiteError as exc:
        pytest.fail(f"tools/build_lite.py: {exc}", pytrace=False)
    print(f"{'online' if online else 'offline'} site built in {time.perf_counter() - t0:.1f} s")
    return built, artifacts.wheel.name.split("-")[1]


@pytest.fixture(scope="module")
def site(request):
    """The built offline site (build/lite-site) and the gemmkit version it offers."""
    return _build(request, SITE, online=False)


@contextlib.contextmanager
def _served(directory):
    """The URL of ``directory`` served on 127.0.0.1 (web-demo/serve.py's server)."""
    serve = _load("gemmkit_web_demo_serve", REPO / "web-demo" / "serve.py")
    server = serve.serve_in_thread(port=0, quiet=True, directory=str(directory))
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def site_url(site):
    with _served(site[0]) as url:
        yield url


@pytest.fixture(scope="module")
def online_site(request):
    """The built online site (build/lite-site-online) and its gemmkit version."""
    return _build(request, SITE_ONLINE, online=True)


@pytest.fixture(scope="module")
def online_url(online_site):
    with _served(online_site[0]) as url:
        yield url


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
    # Chromium runs relaxed SIMD: available, though not the default (an opt-in).
    assert literal(text, "available ISAs:") == ["relaxed_simd", "simd128", "scalar"]
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


# --- The online site ---------------------------------------------------------

def _kernel_settings(site_dir) -> dict:
    cfg = json.loads((site_dir / "jupyter-lite.json").read_text())["jupyter-config-data"]
    return cfg["litePluginSettings"][build_lite.PYODIDE_KERNEL]


def _closure(packages: dict, names) -> set[str]:
    """``names`` and everything their lock entries depend on."""
    todo, seen = list(names), set()
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo += packages[name]["depends"]
    return seen


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=30) as resp:
        return resp.read()


def _status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=30) as resp:
            return resp.status
    except urllib.error.HTTPError as exc:
        exc.close()  # its response holds the socket
        return exc.code


def test_online_site_configuration(online_site, online_url):
    site_dir, version = online_site
    kernel = _kernel_settings(site_dir)
    index = kernel["loadPyodideOptions"]["packageBaseUrl"]
    npm_version = json.loads((NPM_PYODIDE / "package.json").read_text())["version"]
    assert npm_version.startswith("314."), npm_version

    # Pyodide from the site, gemmkit from the site's index, no PyPI, and the
    # one remote setting: where the lock's packages live.
    assert kernel["pyodideUrl"] == "./static/pyodide/pyodide.mjs"
    assert kernel["disablePyPIFallback"] is True
    assert kernel["loadPyodideOptions"] == {"packageBaseUrl": index}
    assert [u.split("?")[0] for u in kernel["pipliteUrls"]][0] == "./pypi/all.json"
    # That URL is the pinned pyodide.mjs's own default (its version spliced
    # into the template), and the kernel addon's CDN default for its release:
    # two sources that agree, neither written here.
    parts = urllib.parse.urlsplit(index)
    assert parts.scheme == "https" and index.endswith("/") and parts.hostname != "127.0.0.1", index
    template = re.escape(index).replace(re.escape(npm_version), r"\$\{[\w$]+\}")
    assert re.search(rf"packageBaseUrl\s*\?\?\s*`{template}`",
                     (NPM_PYODIDE / "pyodide.mjs").read_text()), index
    from jupyterlite_pyodide_kernel import constants
    assert constants.PYODIDE_CDN_URL.replace(constants.PYODIDE_VERSION, npm_version) + "/" == index

    # The lock is the upstream one, byte for byte; nothing it lists is on the site.
    dist = site_dir / "static" / "pyodide"
    digest = hashlib.sha256((dist / "pyodide-lock.json").read_bytes()).hexdigest()
    assert digest == hashlib.sha256((NPM_PYODIDE / "pyodide-lock.json").read_bytes()).hexdigest()
    assert sorted(p.name for p in dist.glob("*.whl")) == []
    lock = json.loads((dist / "pyodide-lock.json").read_text())
    assert json.loads(_get(f"{online_url}/static/pyodide/package.json"))["version"] == npm_version
    for name in sorted(_closure(lock["packages"], ["numpy", "matplotlib", "micropip"])):
        file_name = lock["packages"][name]["file_name"]
        # A bare file name resolves against packageBaseUrl, so to the index ...
        assert "/" not in file_name and ":" not in file_name, (name, file_name)
        assert urllib.parse.urljoin(index, file_name) == index + file_name
        # ... and the site does not have it.
        assert _status(f"{online_url}/static/pyodide/{urllib.parse.quote(file_name)}") == 404, name

    # gemmkit's wheel: on the site, offered by its index, found at the URL the
    # index gives, and tagged for this Pyodide's ABI.
    all_json_url = f"{online_url}/pypi/all.json"
    offered = json.loads(_get(all_json_url))
    (release,) = offered["gemmkit"]["releases"][version]
    wheel = site_dir / "pypi" / release["filename"]
    assert wheel.is_file()
    got = _get(urllib.parse.urljoin(all_json_url, release["url"]))
    assert got == wheel.read_bytes()
    assert hashlib.sha256(got).hexdigest() == release["digests"]["sha256"]
    platform = release["filename"].removesuffix(".whl").split("-")[-1]
    assert f"pyemscripten_{lock['info']['abi_version']}_wasm32" in platform.split("."), platform
    # The kernel installs comm at start and the upstream lock lacks it.
    assert "comm" not in lock["packages"] and "comm" in offered


def test_online_site_sends_pyodide_packages_to_pyodide_index(online_site, online_url):
    site_dir, _ = online_site
    index = build_lite.pyodide_package_index()  # the configuration test checks the site names it
    lock = json.loads((site_dir / "static" / "pyodide" / "pyodide-lock.json").read_text())
    packages = lock["packages"]
    with OfflineBrowser(online_url) as browser:
        # 1. The real kernel: its first package (micropip) is asked of the
        #    index, so the kernel hands packageBaseUrl to loadPyodide.  It
        #    stops there (the index is unreachable here).
        query = urllib.parse.urlencode([("kernel", "python"), ("code", "import numpy")],
                                       quote_via=urllib.parse.quote)
        browser.page.goto(f"{online_url}/repl/index.html?{query}")
        site_pyodide = f"{online_url}/static/pyodide/"

        def local_wheel():  # a wheel asked of the site's Pyodide folder
            return [u for u in browser.seen if u.startswith(site_pyodide) and ".whl" in u]

        deadline = time.monotonic() + TIMEOUT_MS / 1000
        while not (browser.outside or local_wheel()) and time.monotonic() < deadline:
            browser.page.wait_for_timeout(500)
        browser.page.wait_for_timeout(2000)  # anything it asks next is recorded too
        kernel_outside, kernel_seen = list(browser.outside), list(browser.seen)

        # 2. Pyodide as the kernel's worker starts it (indexURL next to
        #    pyodideUrl, loadPyodideOptions on top), asked for the tour's
        #    imports: every package it fetches must come from the index.
        browser.outside.clear()
        page = browser.ctx.new_page()
        page.goto(f"{online_url}/jupyter-lite.json")
        result = page.evaluate(
            """async ([plugin, code]) => {
              const cfg = (await (await fetch("./jupyter-lite.json")).json())["jupyter-config-data"];
              const k = cfg.litePluginSettings[plugin];
              const mjs = new URL(k.pyodideUrl, location.href).href;
              const { loadPyodide } = await import(mjs);
              const py = await loadPyodide({ indexURL: mjs.slice(0, mjs.lastIndexOf("/") + 1),
                                             ...k.loadPyodideOptions });
              const errors = [];
              try {
                await py.loadPackagesFromImports(code, { errorCallback: e => errors.push(e),
                                                         messageCallback: () => {} });
              } catch (e) { errors.push(String(e)); }
              return { errors, loaded: Object.keys(py.loadedPackages) };
            }""", [build_lite.PYODIDE_KERNEL, "import numpy\nimport matplotlib.pyplot as plt\n"])
        pyodide_outside = list(browser.outside)

    print(f"kernel asked outside: {kernel_outside}")
    print(f"Pyodide asked outside: {pyodide_outside}; errors: {result['errors'][:3]}")
    assert kernel_outside, "the kernel asked nothing of Pyodide's package index"
    assert kernel_outside[0] == index + packages["micropip"]["file_name"], kernel_outside
    assert all(u.startswith(index) for u in kernel_outside), kernel_outside
    for name in ("pyodide.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json"):
        assert site_pyodide + name in [u.split("?")[0] for u in kernel_seen], name
    assert not local_wheel(), local_wheel()

    want = {index + packages[n]["file_name"] for n in _closure(packages, ["numpy", "matplotlib"])}
    assert index + packages["numpy"]["file_name"] in pyodide_outside
    assert set(pyodide_outside) == want, sorted(set(pyodide_outside) ^ want)
    assert result["errors"] and "numpy" not in result["loaded"]  # the fetches were refused


def test_tour_numpy_path_on_the_host():
    # What the online site adds to the tour (numpy arrays, gemmkit.matmul
    # against numpy.matmul, the plot) runs in the host Python with the native
    # gemmkit: the same cells, checked the same way.  The buffer cells stay
    # with the browser tests (the host's memoryview may lack float16).
    try:
        import gemmkit  # noqa: F401
        import matplotlib  # noqa: F401
    except ImportError as exc:
        require(False, f"{exc.name} is not importable on the host")
    nb = json.loads((REPO / "lite" / "files" / "gemmkit-tour.ipynb").read_text())
    cells = {c["id"]: "".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"}
    chosen = ["tour-02", "tour-04", "tour-12", "tour-20", "tour-21"]  # imports .. plot
    script = ("import os, sys\nscalar = None\n"
              + "\n".join(cells[i] for i in chosen)
              + "\nfig = plt.gcf()\n"
              + "print('figure:', [[line.get_label() for line in ax.lines] for ax in fig.axes])\n")
    env = dict(os.environ, MPLBACKEND="Agg")
    env.pop("GEMMKIT_REQUIRE_ISA", None)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=env, timeout=600, cwd=tempfile.gettempdir())
    text = proc.stdout
    print(text)
    assert proc.returncode == 0, proc.stderr[-3000:]
    find(text, r"^numpy \S+ is available: the numpy cells run too$")
    find(text, r"^matplotlib \S+ is available: the timing cell draws a plot$")
    for what in (r"matmul\(A\.T, B\): float32 \(48, 32\)",
                 r"matmul\(A\[::2, :32\], B\[1::2, ::-1\]\.T\): float32 \(32, 32\)",
                 r"matmul batch X @ Y: float64 \(5, 8, 4\)"):
        find(text, rf"^{what}, max \|gemmkit - numpy\.matmul\| = \S+, agree: True$")
    find(text, r"^'gemmkit' is gemmkit\.matmul, 'numpy' is numpy\.matmul, on the same numpy arrays$")
    rows = re.findall(r"^(float32|float64)\s+(\d+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)$", text, re.M)
    assert {(d, int(n)) for d, n, *_ in rows} == \
        {(d, n) for d in ("float32", "float64") for n in (32, 64, 128, 256)}, rows
    assert all(float(gk) > 0 and float(npy) > 0 for *_, gk, _, npy in rows), rows
    for dtype in ("float64", "float32"):
        find(text, rf"^{dtype} n=\[32, 64, 128, 256\]: max \|gemmkit\.matmul - numpy\.matmul\| "
                   r"= \S+, \S+, \S+, \S+; agree: True$")
        find(text, rf"^{dtype} n=\[32, 64, 128, 256\]: gemmkit\.matmul runs at "
                   r"(\S+x, ){3}\S+x the speed of numpy\.matmul$")
    figure = literal(text, "figure:")
    assert len(figure) == 2 and all("numpy.matmul" in labels for labels in figure), figure
    assert all(any(label.startswith("gemmkit.matmul (") for label in labels) for labels in figure)
