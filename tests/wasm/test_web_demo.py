"""The web demo in headless Chromium (Debian ``chromium`` driven by Playwright):
results verified, simd128 faster than scalar, the threaded column on a
cross-origin isolated page and the fall back to one thread on a page that is
not, the summary line, the noisy marks, the page responsive while the worker
runs, the refusals on a V8 without SIMD (--no-enable-sse4-1) and on one
without relaxed SIMD only, the layout of a 390 px wide phone, and the
threaded builds' bit-identity with one thread on the main thread of an
isolated page.  Screenshots go to test-results/."""

from __future__ import annotations

import re
import shutil
import tempfile

import pytest

from wasmhelpers import REPO, _load, require

SIMD_REFUSAL = ("gemmkit: gemmkit-simd128.wasm needs WebAssembly SIMD (simd128), which this "
                "engine does not support; load the scalar build instead: "
                'loadGemmkit({ isa: "scalar" })')
# The relaxed refusal is the loader's own text (read from it in the page);
# the page must show it as is.
RELAXED_REFUSAL_START = "gemmkit: gemmkit-relaxed_simd.wasm needs WebAssembly relaxed SIMD"
# The single-threaded columns; the threaded one, "simd128 ×N" (N: the
# machine's logical cores, at least 2), comes first where the page may share
# memory.
COLUMNS = ["relaxed_simd", "simd128", "scalar"]
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

# Chromium 156's V8 has relaxed SIMD on with no flag to turn it off alone
# (`--js-flags=--help` lists none; --no-enable-sse4-1 takes all of SIMD), so
# this makes the engine refuse relaxed opcodes (0xfd prefix, 0x100..0x113 as
# a LEB128) in WebAssembly.validate, the loader's probe, in the page and, by
# prefixing the served worker script, in the worker.
NO_RELAXED_SIMD = """
{
  const validate = WebAssembly.validate;
  WebAssembly.validate = (bytes, ...rest) => {
    const b = new Uint8Array(bytes.buffer ?? bytes, bytes.byteOffset ?? 0, bytes.byteLength);
    for (let i = 0; i + 2 < b.length; i++) {
      if (b[i] === 0xfd && b[i + 1] >= 0x80 && b[i + 1] <= 0x93 && b[i + 2] === 0x02) return false;
    }
    return validate(bytes, ...rest);
  };
}
"""


def _serve_demo(artifacts, isolated):
    serve = _load("gemmkit_web_demo_serve", REPO / "web-demo" / "serve.py")
    server = serve.serve_in_thread(port=0, quiet=True, directory=str(artifacts.web_dir),
                                   isolated=isolated)
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/index.html"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def demo_url(artifacts):
    """The demo as web-demo/serve.py serves it: cross-origin isolated."""
    yield from _serve_demo(artifacts, isolated=True)


@pytest.fixture(scope="module")
def plain_demo_url(artifacts):
    """The demo from a server that does not isolate the page (no COOP/COEP)."""
    yield from _serve_demo(artifacts, isolated=False)


@pytest.fixture(scope="module")
def chromium():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        require(False, "playwright is not installed (pip install playwright==1.65.2)")
    exe = shutil.which("chromium")
    require(exe is not None, "Debian chromium is not installed (apt-get install chromium)")
    with sync_playwright() as p:
        def launch(extra_args=(), viewport=None):
            viewport = viewport or {"width": 1100, "height": 1100}
            profile = tempfile.mkdtemp(prefix="gemmkit-chromium-")
            ctx = p.chromium.launch_persistent_context(
                profile, executable_path=exe, headless=True,
                args=CHROMIUM_ARGS + list(extra_args), viewport=viewport)
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


def run_demo(launch, url, extra_args=(), shot="web-demo.png", viewport=None, no_relaxed=False,
             inspect=None):
    ctx, profile = launch(extra_args, viewport)
    try:
        if no_relaxed:
            def shimmed_worker(route):
                # The served headers stay: an isolated page's worker needs its COEP.
                response = route.fetch()
                route.fulfill(response=response, body=NO_RELAXED_SIMD + response.text())

            ctx.route("**/bench-worker.js", shimmed_worker)
        page = ctx.new_page()
        errors = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.add_init_script(GAP_PROBE + (NO_RELAXED_SIMD if no_relaxed else ""))
        page.goto(url)
        page.wait_for_function(
            "window.gemmkitDemo && ['done', 'error'].includes(window.gemmkitDemo.state)",
            timeout=180_000)
        state = page.evaluate("window.gemmkitDemo")
        state["maxGap"] = page.evaluate("window.__maxGap")
        state["badge"] = page.text_content("#simd")
        state["relaxedBadge"] = page.text_content("#relaxed")
        state["threadsBadge"] = page.text_content("#threads")
        state["hardwareConcurrency"] = page.evaluate("navigator.hardwareConcurrency")
        state["refusalText"] = page.locator("#refusal p").all_text_contents()
        state["refusalHidden"] = page.evaluate("document.getElementById('refusal').hidden")
        state["tableRows"] = page.locator("#rows tr").count()
        state["head"] = page.locator("#head th").all_text_contents()
        state["cells"] = [page.locator(f"#rows tr:nth-child({i + 1}) td").all_text_contents()
                          for i in range(state["tableRows"])]
        state["noisyCells"] = page.locator("#rows td.noisy").count()
        state["summaryText"] = page.text_content("#summary")
        state["legend"] = page.locator("#legend li").all_text_contents()
        state["relaxedRefusal"] = page.evaluate(
            "import('./gemmkit.mjs').then((m) => m.RELAXED_SIMD_REFUSAL_MESSAGE)")
        state["threadsRefusal"] = page.evaluate(
            "import('./gemmkit.mjs').then((m) => m.THREADS_REFUSAL_MESSAGE)")
        state["noisyNote"] = page.text_content("#noisy-note")
        if inspect:
            state.update(inspect(page))
        RESULTS.mkdir(exist_ok=True)
        page.screenshot(path=str(RESULTS / shot), full_page=True)
        print(f"screenshot: {RESULTS / shot}")
        state["pageErrors"] = errors
        state["blocked"] = list(ctx.blocked)
        return state
    finally:
        ctx.close()
        shutil.rmtree(profile, ignore_errors=True)


def check_noisy_marks(state):
    """A point is marked noisy exactly where its samples' spread passes the
    page's one threshold, in the row data and in the table's cells."""
    limit = state["noisySpread"]
    assert limit == 0.1
    marked = 0
    for row in state["rows"]:
        assert set(row["noisy"]) == set(row["spread"]) == set(row["gflops"]), row
        for key, spread in row["spread"].items():
            assert spread >= 0 and row["noisy"][key] == (spread > limit), row
            marked += row["noisy"][key]
        # A speedup is marked where either of its two points is.
        for c in state["columns"]:
            if c["key"] in row["speedup"]:
                marked += row["noisy"][c["key"]] or row["noisy"][c["versus"]]
    assert state["noisyCells"] == marked
    assert "noisy (samples spread > 10%)" in state["legend"]
    assert state["noisyNote"].startswith("* noisy: the timing samples of this point differ by "
                                         "more than 10%")


def threaded_column(state):
    """The threaded column's key, checked against the machine's cores."""
    team = max(2, state["hardwareConcurrency"])
    column = state["columns"][0]
    assert column == {"key": f"simd128 ×{team}", "threads": team, "versus": "simd128"}, column
    return column["key"]


def test_demo_benchmarks_and_verifies(chromium, demo_url):
    sizes = [64, 128, 256]
    state = run_demo(chromium, f"{demo_url}?sizes={','.join(map(str, sizes))}&minMs=80&rounds=2",
                     shot="web-demo-relaxed-simd.png")
    assert state["state"] == "done", state.get("error")
    assert state["pageErrors"] == [] and state["blocked"] == []
    assert state["simd128"] is True and state["badge"] == "supported"
    assert state["relaxedSimd"] is True and state["relaxedBadge"] == "supported"
    assert state["crossOriginIsolated"] is True and state["threads"] is True
    assert state["threadsBadge"] == "supported"
    assert state["refusals"] == {} and state["refusalHidden"] is True
    # One column per build: the threaded one, then each on one thread.
    threaded = threaded_column(state)
    team = state["columns"][0]["threads"]
    assert [c["key"] for c in state["columns"]] == [threaded, *COLUMNS]
    assert all(c["threads"] == 1 for c in state["columns"][1:])
    assert state["head"] == ["type", "n\u00a0×\u00a0n\u00a0×\u00a0n", f"{threaded} GFLOP/s",
                             "relaxed_simd GFLOP/s", "simd128 GFLOP/s", "scalar GFLOP/s",
                             f"{threaded} / simd128", "relaxed_simd / simd128",
                             "simd128 / scalar", "verified"]
    rows = state["rows"]
    assert state["tableRows"] == len(rows) == 2 * len(sizes)
    for row, cells in zip(rows, state["cells"]):
        assert row["verified"], row
        # Relaxed results are held to the k*eps bound, never to bit equality.
        assert set(row["checks"]) == {f"{threaded} vs float64", "relaxed_simd vs float64",
                                      "simd128 vs float64", "scalar vs float64",
                                      f"{threaded} vs scalar", "relaxed_simd vs scalar",
                                      "simd128 vs scalar"}, row
        g, s = row["gflops"], row["speedup"]
        assert set(g) == {threaded, *COLUMNS}, row
        assert set(s) == {threaded, "relaxed_simd", "simd128"}, row
        assert s[threaded] == pytest.approx(g[threaded] / g["simd128"])
        assert s["relaxed_simd"] == pytest.approx(g["relaxed_simd"] / g["simd128"])
        assert s["simd128"] == pytest.approx(g["simd128"] / g["scalar"])
        assert cells[:2] == [row["dtype"], str(row["n"])] and cells[-1] == "✓", cells
        assert cells[6:9] == [f"{s[threaded]:.2f}×", f"{s['relaxed_simd']:.2f}×",
                              f"{s['simd128']:.2f}×"], cells
        print(f"{row['dtype']} {row['n']}: {threaded} {g[threaded]:.2f} relaxed_simd "
              f"{g['relaxed_simd']:.2f} simd128 {g['simd128']:.2f} scalar {g['scalar']:.2f} "
              f"GFLOP/s ({threaded}/simd128 {s[threaded]:.2f}x, relaxed/simd128 "
              f"{s['relaxed_simd']:.2f}x, simd128/scalar {s['simd128']:.2f}x)")
    mid = next(r for r in rows if r["dtype"] == "float32" and r["n"] == 256)
    assert mid["gflops"]["simd128"] > 1.5 * mid["gflops"]["scalar"], mid
    for key, kernel32 in ((threaded, "f32_gemm_8x4__simd128"), ("simd128", "f32_gemm_8x4__simd128"),
                          ("scalar", "f32_gemm_4x4__scalar")):
        assert state["builds"][key]["dispatch"]["float32"]["kernel"] == kernel32
    for dtype in ("float32", "float64"):
        ran = state["builds"]["relaxed_simd"]["dispatch"][dtype]
        assert ran["isa"] == "relaxed_simd" and ran["kernel"].endswith("__relaxed_simd"), ran
    assert state["builds"]["relaxed_simd"]["isa"] == "relaxed_simd"
    # The summary: the largest float32 size, its best build, every speedup.
    g, s = mid["gflops"], mid["speedup"]
    rate = (lambda v: f"{v:.2f}" if v < 10 else f"{v:.1f}")(g[threaded])
    noisy = "; noisy*" if any(mid["noisy"].values()) else ""
    assert state["summary"] == state["summaryText"] == (
        f"float32 256: {rate} GFLOP/s ({threaded}), {threaded} {s[threaded]:.2f}× simd128, "
        f"relaxed_simd {s['relaxed_simd']:.2f}× simd128, simd128 {s['simd128']:.2f}× scalar; "
        f"{team} threads; ISA: simd128{noisy}")
    assert state["legend"][:6] == [threaded, *COLUMNS, "float32", "float64"]
    check_noisy_marks(state)
    # The worker did the computing: the page's timers kept ticking.
    assert state["maxGap"] < 1000, state["maxGap"]


def test_demo_refuses_simd128_without_wasm_simd(chromium, demo_url):
    state = run_demo(chromium, f"{demo_url}?sizes=64,128&dtypes=float32&minMs=40&rounds=2",
                     extra_args=["--js-flags=--no-enable-sse4-1"], shot="web-demo-no-simd.png")
    assert state["state"] == "done", state.get("error")
    assert state["pageErrors"] == [] and state["blocked"] == []
    assert state["simd128"] is False and state["badge"] == "not supported"
    assert state["relaxedSimd"] is False and state["relaxedBadge"] == "not supported"
    relaxed = state["relaxedRefusal"]
    assert relaxed.startswith(RELAXED_REFUSAL_START), relaxed
    threaded = threaded_column(state)
    assert state["refusals"] == {threaded: SIMD_REFUSAL, "relaxed_simd": relaxed,
                                 "simd128": SIMD_REFUSAL}
    assert state["refusalText"] == [SIMD_REFUSAL, relaxed]  # one line per reason
    assert state["refusalHidden"] is False
    assert list(state["builds"]) == ["scalar"]
    assert [r["n"] for r in state["rows"]] == [64, 128]
    for row, cells in zip(state["rows"], state["cells"]):
        assert row["verified"] and set(row["gflops"]) == {"scalar"}, row
        assert row["speedup"] == {} and set(row["checks"]) == {"scalar vs float64"}, row
        assert cells[2:5] == ["refused"] * 3 and cells[6:9] == ["–"] * 3, cells
    noisy = "; noisy*" if state["rows"][-1]["noisy"]["scalar"] else ""
    assert re.fullmatch(r"float32 128: [0-9.]+ GFLOP/s \(scalar\); 1 thread; ISA: scalar"
                        + re.escape(noisy), state["summaryText"]), state["summaryText"]
    assert state["legend"][:4] == [f"{threaded} (not in this browser)",
                                   "relaxed_simd (not in this browser)",
                                   "simd128 (not in this browser)", "scalar"]
    check_noisy_marks(state)


def test_demo_without_relaxed_simd_runs_simd128_and_scalar(chromium, demo_url):
    state = run_demo(chromium, f"{demo_url}?sizes=64,128&dtypes=float32&minMs=40&rounds=2",
                     shot="web-demo-no-relaxed-simd.png", no_relaxed=True)
    assert state["state"] == "done", state.get("error")
    assert state["pageErrors"] == [] and state["blocked"] == []
    assert state["simd128"] is True and state["badge"] == "supported"
    assert state["relaxedSimd"] is False and state["relaxedBadge"] == "not supported"
    relaxed = state["relaxedRefusal"]
    assert relaxed.startswith(RELAXED_REFUSAL_START), relaxed
    assert state["refusals"] == {"relaxed_simd": relaxed}
    assert state["refusalText"] == [relaxed] and state["refusalHidden"] is False
    threaded = threaded_column(state)
    team = state["columns"][0]["threads"]
    assert list(state["builds"]) == [threaded, "simd128", "scalar"]
    for row, cells in zip(state["rows"], state["cells"], strict=True):
        assert row["verified"] and set(row["gflops"]) == {threaded, "simd128", "scalar"}, row
        assert set(row["speedup"]) == {threaded, "simd128"}, row
        assert set(row["checks"]) == {f"{threaded} vs float64", "simd128 vs float64",
                                      "scalar vs float64", f"{threaded} vs scalar",
                                      "simd128 vs scalar"}, row
        assert cells[3] == "refused" and cells[7] == "–", cells
    last = state["rows"][-1]
    noisy = "; noisy*" if any(last["noisy"].values()) else ""
    assert re.fullmatch(rf"float32 128: [0-9.]+ GFLOP/s \({threaded}\), {threaded} [0-9.]+× "
                        rf"simd128, simd128 [0-9.]+× scalar; {team} threads; ISA: simd128"
                        + re.escape(noisy), state["summaryText"]), state["summaryText"]
    assert f"simd128 {last['speedup']['simd128']:.2f}× scalar" in state["summaryText"]
    check_noisy_marks(state)


def test_demo_without_cross_origin_isolation_runs_one_thread_and_says_so(chromium,
                                                                         plain_demo_url):
    state = run_demo(chromium, f"{plain_demo_url}?sizes=64,128&dtypes=float32&minMs=40&rounds=2",
                     shot="web-demo-not-isolated.png")
    assert state["state"] == "done", state.get("error")
    assert state["pageErrors"] == [] and state["blocked"] == []
    assert state["crossOriginIsolated"] is False and state["threads"] is False
    assert state["threadsBadge"] == "not on this page"
    threaded = threaded_column(state)
    refusal = state["threadsRefusal"]
    assert "cross-origin isolated" in refusal and refusal.endswith("load with threads: 1 instead")
    assert state["refusals"] == {threaded: f"{refusal}; this page runs on one thread."}
    assert state["refusalText"] == [f"{refusal}; this page runs on one thread."]
    assert list(state["builds"]) == COLUMNS
    for row, cells in zip(state["rows"], state["cells"], strict=True):
        assert row["verified"] and set(row["gflops"]) == set(COLUMNS), row
        assert cells[2] == "refused" and cells[6] == "–", cells
    noisy = "; noisy*" if any(state["rows"][-1]["noisy"].values()) else ""
    assert re.fullmatch(r"float32 128: [0-9.]+ GFLOP/s \(relaxed_simd\), .*; 1 thread; "
                        r"ISA: relaxed_simd" + re.escape(noisy),
                        state["summaryText"]), state["summaryText"]
    assert state["legend"][0] == f"{threaded} (not on this page)"
    check_noisy_marks(state)


# Boxes of the laid-out page at a phone's width.
LAYOUT = """() => {
  const box = (sel) => document.querySelector(sel).getBoundingClientRect().toJSON();
  const px = (sel) => parseFloat(getComputedStyle(document.querySelector(sel)).fontSize);
  const scroller = document.getElementById("table-scroll");
  return {
    scrollWidth: document.documentElement.scrollWidth,
    canvas: box("#chart"), legend: box("#legend"), scroller: box("#table-scroll"),
    tableScrolls: scroller.scrollWidth > scroller.clientWidth,
    fonts: { body: px("body"), cell: px("#rows td"), head: px("#head th"),
             legend: px("#legend li"), summary: px("#summary") },
  };
}"""


def test_demo_fits_a_390px_phone(chromium, demo_url):
    state = run_demo(chromium, f"{demo_url}?sizes=32,64&minMs=20&rounds=3",
                     shot="web-demo-390px.png", viewport={"width": 390, "height": 844},
                     inspect=lambda page: {"layout": page.evaluate(LAYOUT)})
    assert state["state"] == "done", state.get("error")
    assert state["pageErrors"] == []
    layout = state["layout"]
    # Nothing widens the page: the table scrolls inside its own box.
    assert layout["scrollWidth"] <= 390, layout
    assert layout["scroller"]["right"] <= 390 and layout["tableScrolls"], layout
    # The legend sits under the chart, so the plot keeps the full width.
    canvas, legend = layout["canvas"], layout["legend"]
    assert legend["top"] >= canvas["bottom"], layout
    assert canvas["width"] >= 0.9 * (390 - 2 * 12), layout
    assert legend["right"] <= 390 and canvas["right"] <= 390, layout
    assert all(size >= 12 for size in layout["fonts"].values()), layout
    assert state["tableRows"] == 4 and state["summaryText"].startswith("float32 64: ")
    check_noisy_marks(state)


# In the page's main thread (which may spin but never wait) of an isolated
# page: each team's products equal the single-threaded build's bit for bit,
# with the work split to the plan's edges and the workers taking part.
THREADS_BIT_IDENTITY = """async () => {
  const m = await import("./gemmkit.mjs");
  const env = { GEMMKIT_PARALLEL_THRESHOLD: "1", GEMMKIT_MNK_PER_WORKER: "1" };
  const one = await m.loadGemmkit({ isa: "simd128", env });
  const teams = [await m.loadGemmkit({ isa: "simd128", threads: 2, env }),
                 await m.loadGemmkit({ isa: "relaxed_simd", threads: 3, env })];
  const relaxed = await m.loadGemmkit({ isa: "relaxed_simd", env });
  const out = { isolated: self.crossOriginIsolated, checked: 0, mismatches: [], served: [] };
  let seed = 1;
  const fill = (Ctor, n) => Ctor.from({ length: n }, () => Math.sin(seed++) * 2);
  for (const Ctor of [Float32Array, Float64Array]) {
    for (const [mm, k, n] of [[3, 5, 7], [97, 97, 97], [200, 40, 300], [1000, 30, 40],
                               [40, 1000, 30], [129, 70, 67]]) {
      const a = fill(Ctor, mm * k), b = fill(Ctor, k * n), c = fill(Ctor, mm * n);
      const opts = { alpha: 0.5, beta: -2, c };
      for (const [gk, base] of [[teams[0], one], [teams[1], relaxed]]) {
        const want = new Uint8Array(base.gemm(a, b, mm, k, n, opts).buffer);
        const got = new Uint8Array(gk.gemm(a, b, mm, k, n, opts).buffer);
        out.checked++;
        if (got.some((v, i) => v !== want[i])) out.mismatches.push(`${Ctor.name} ${mm}x${k}x${n} ${gk.isa}`);
      }
    }
  }
  out.served = teams.map((gk) => gk.jobsServed());
  await Promise.all(teams.map((gk) => gk.close()));
  return out;
}"""


def test_threads_bit_identical_in_chromium(chromium, demo_url):
    ctx, profile = chromium()
    try:
        page = ctx.new_page()
        errors = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(demo_url.replace("index.html", "README.md"))  # any document of the isolated origin
        result = page.evaluate(THREADS_BIT_IDENTITY)
        assert errors == [] and ctx.blocked == []
    finally:
        ctx.close()
        shutil.rmtree(profile, ignore_errors=True)
    assert result["isolated"] is True
    assert result["checked"] == 24 and result["mismatches"] == [], result
    # Every worker of both teams took a share.
    assert [len(s) for s in result["served"]] == [1, 2], result
    assert all(jobs > 0 for s in result["served"] for jobs in s), result
