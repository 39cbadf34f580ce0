"""The web demo in headless Chromium (Debian ``chromium`` driven by Playwright):
results verified, simd128 faster than scalar, the page responsive while the
worker runs, and the refusal on a V8 without SIMD (--no-enable-sse4-1).
Screenshots go to test-results/."""

from __future__ import annotations

import shutil
import tempfile

import pytest

from wasmhelpers import REPO, _load, require

SIMD_REFUSAL = ("gemmkit: gemmkit-simd128.wasm needs WebAssembly SIMD (simd128), which this "
                'engine does not support; load the scalar build instead: loadGemmkit({ isa: "scalar" })')
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
RESULTS = REPO / "test-results"

# Main-thread responsiveness: the largest gap between 20 ms timer ticks.
GAP_PROBE = """
window.__maxGap = 0;
let last = performance.now();
setInterval(() => {
  const now = performance.now();
  window.__maxGap = Math.max(window.__maxGap, now - last);
  last = now;
}, 20);
"""


@pytest.fixture(scope="module")
def demo_url(artifacts):
    serve = _load("gemmkit_web_demo_serve", REPO / "web-demo" / "serve.py")
    server = serve.serve_in_thread(port=0, quiet=True, directory=str(artifacts.web_dir))
    yield f"http://127.0.0.1:{server.server_address[1]}/index.html"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def chromium():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        require(False, "playwright is not installed (pip install playwright==1.65.2)")
    exe = shutil.which("chromium")
    require(exe is not None, "Debian chromium is not installed (apt-get install chromium)")
    with sync_playwright() as p:
        def launch(extra_args=()):
            profile = tempfile.mkdtemp(prefix="gemmkit-chromium-")
            ctx = p.chromium.launch_persistent_context(
                profile, executable_path=exe, headless=True,
                args=CHROMIUM_ARGS + list(extra_args), viewport={"width": 1100, "height": 1100})
            blocked = []

            def only_local(route):
                url = route.request.url
                if url.startswith("http://127.0.0.1:"):
                    route.continue_()
                else:
                    blocked.append(url)
                    route.abort()

            ctx.route("**/*", only_local)
            ctx.blocked = blocked
            return ctx, profile

        yield launch


def run_demo(launch, url, extra_args=(), shot="web-demo.png"):
    ctx, profile = launch(extra_args)
    try:
        page = ctx.new_page()
        errors = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.add_init_script(GAP_PROBE)
        page.goto(url)
        page.wait_for_function(
            "window.gemmkitDemo && ['done', 'error'].includes(window.gemmkitDemo.state)",
            timeout=180_000)
        state = page.evaluate("window.gemmkitDemo")
        state["maxGap"] = page.evaluate("window.__maxGap")
        state["badge"] = page.text_content("#simd")
        state["refusalText"] = page.text_content("#refusal")
        state["refusalHidden"] = page.evaluate("document.getElementById('refusal').hidden")
        state["tableRows"] = page.locator("#rows tr").count()
        RESULTS.mkdir(exist_ok=True)
        page.screenshot(path=str(RESULTS / shot), full_page=True)
        print(f"screenshot: {RESULTS / shot}")
        state["pageErrors"] = errors
        state["blocked"] = list(ctx.blocked)
        return state
    finally:
        ctx.close()
        shutil.rmtree(profile, ignore_errors=True)


def test_demo_benchmarks_and_verifies(chromium, demo_url):
    sizes = [64, 128, 256]
    state = run_demo(chromium, f"{demo_url}?sizes={','.join(map(str, sizes))}&minMs=80&rounds=2",
                     shot="web-demo-simd128.png")
    assert state["state"] == "done", state.get("error")
    assert state["pageErrors"] == [] and state["blocked"] == []
    assert state["simd128"] is True and state["badge"] == "supported"
    assert state["refusal"] is None and state["refusalHidden"] is True
    rows = state["rows"]
    assert state["tableRows"] == len(rows) == 2 * len(sizes)
    for row in rows:
        assert row["verified"], row
        assert set(row["checks"]) == {"simd128 vs float64", "scalar vs float64",
                                      "simd128 vs scalar"}, row
        print(f"{row['dtype']} {row['n']}: simd128 {row['gflops']['simd128']:.2f} "
              f"scalar {row['gflops']['scalar']:.2f} GFLOP/s ({row['speedup']:.2f}x)")
    mid = next(r for r in rows if r["dtype"] == "float32" and r["n"] == 256)
    assert mid["gflops"]["simd128"] > 1.5 * mid["gflops"]["scalar"], mid
    for isa, kernel32 in (("simd128", "f32_gemm_8x4__simd128"), ("scalar", "f32_gemm_4x4__scalar")):
        assert state["builds"][isa]["dispatch"]["float32"]["kernel"] == kernel32
    # The worker did the computing: the page's timers kept ticking.
    assert state["maxGap"] < 1000, state["maxGap"]


def test_demo_refuses_simd128_without_wasm_simd(chromium, demo_url):
    state = run_demo(chromium, f"{demo_url}?sizes=64,128&dtypes=float32&minMs=40&rounds=1",
                     extra_args=["--js-flags=--no-enable-sse4-1"], shot="web-demo-no-simd.png")
    assert state["state"] == "done", state.get("error")
    assert state["pageErrors"] == [] and state["blocked"] == []
    assert state["simd128"] is False and state["badge"] == "not supported"
    assert state["refusal"] == SIMD_REFUSAL
    assert state["refusalText"] == SIMD_REFUSAL and state["refusalHidden"] is False
    assert list(state["builds"]) == ["scalar"]
    assert [r["n"] for r in state["rows"]] == [64, 128]
    for row in state["rows"]:
        assert row["verified"] and set(row["gflops"]) == {"scalar"}, row
