#!/usr/bin/env python3
"""gemmkit wasm benchmark in headless Chromium (not a test): the measurement
core of ``bench.mjs`` (``bench_core.mjs``: the same builds, XNNPACK beside
them, the same interleaved rounds, checks, noisy-row marks and tables), run
in a dedicated Worker of a page served from this repo on 127.0.0.1.

    python wasm/build.py && npm ci      # once: web-demo/*.wasm, node_modules
    .venv/bin/python benchmarks/wasm/bench_browser.py [--sizes 64,256,512]
        [--rounds 3] [--where worker|page] [--no-xnnpack] [--web-dir web-demo]
        [--no-pyodide] [--pyodide-dist build/pyodide-dist]
        [--js-flags=--no-wasm-dynamic-tiering] [--chromium /usr/bin/chromium]
        [--quick]                          # a smoke run: short samples
        [--out build/benchmarks/wasm-chromium.json]
        [--compare build/benchmarks/wasm.json]
    node benchmarks/wasm/bench.mjs --engine chromium ...   # the same

``--compare`` prints this run's ratios beside those of an earlier report
(``bench.mjs``'s JSON for node), so engines are compared by same-run ratios,
never by absolute numbers taken at different times.  The Pyodide column
(gemmkit's Pyodide wheel through gemmkit.gemm) runs from ``--pyodide-dist``, a
``tools/pyodide_dist.py`` dir, when it exists.  The page is cross-origin
isolated (COOP/COEP), so the threaded build runs too.  Debian ``chromium`` driven by Playwright
(``executable_path``); no browser download; every request that is not to
the local server is refused.
"""

from __future__ import annotations

import argparse
import datetime
import functools
import http.server
import importlib.util
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import urllib.parse
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def _serve_module():
    spec = importlib.util.spec_from_file_location("gemmkit_web_demo_serve",
                                                  REPO / "web-demo" / "serve.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def start_server(web_dir: Path, pyodide_dist: Path | None = None):
    """The repo on /, ``web_dir`` (gemmkit.mjs and the .wasm builds) on /web/
    and ``pyodide_dist`` (a tools/pyodide_dist.py dir) on /pyodide/, with the
    demo server's MIME types; port 0 picks a free port."""
    serve = _serve_module()
    mounts = {"/web/": str(web_dir.resolve())}
    if pyodide_dist is not None:
        mounts["/pyodide/"] = str(pyodide_dist.resolve())

    class Handler(serve.DemoHandler):
        def translate_path(self, path: str) -> str:
            rel = urllib.parse.urlsplit(path).path
            for prefix, root in mounts.items():
                if rel.startswith(prefix):
                    return os.path.join(root, *[p for p in rel[len(prefix):].split("/")
                                                if p not in ("", ".", "..")])
            return super().translate_path(path)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                             functools.partial(Handler, directory=str(REPO)))
    server.quiet = True
    server.isolated = True  # cross-origin isolated: the threaded build may run
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _finite(obj):
    """JSON as node writes it: non-finite numbers become null."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_finite(v) for v in obj]
    return obj


def run_chromium(*, sizes, rounds, where="worker", xnnpack=True, web_dir=REPO / "web-demo",
                 pyodide_dist=None, chromium=None, js_flags=None, quick=False,
                 timeout_s=1800.0, echo=print) -> dict:
    """Runs the benchmark page in headless Chromium; returns its report
    (raises RuntimeError with the page's message when it fails).  With
    ``pyodide_dist`` (a tools/pyodide_dist.py dir holding gemmkit's wheel)
    the report has the Pyodide column too."""
    from playwright.sync_api import sync_playwright

    exe = chromium or shutil.which("chromium")
    if not exe:
        raise RuntimeError("Debian chromium is not installed (apt-get install chromium)")
    extra = [f"--js-flags={js_flags}"] if js_flags else []
    server = start_server(Path(web_dir), None if pyodide_dist is None else Path(pyodide_dist))
    profile = tempfile.mkdtemp(prefix="gemmkit-bench-chromium-")
    try:
        with sync_playwright() as p:
            ctx = p.chromium.launch_persistent_context(profile, executable_path=exe, headless=True,
                                                       args=CHROMIUM_ARGS + extra)
            blocked = []

            def only_local(route):
                if route.request.url.startswith("http://127.0.0.1:"):
                    route.continue_()
                else:
                    blocked.append(route.request.url)
                    route.abort()

            ctx.route("**/*", only_local)
            try:
                page = ctx.new_page()
                errors = []
                page.on("pageerror", lambda exc: errors.append(str(exc)))
                page.on("console", lambda msg: echo(msg.text) if msg.type == "log" else None)
                query = urllib.parse.urlencode({"sizes": ",".join(map(str, sizes)),
                                                "rounds": rounds, "where": where,
                                                "xnnpack": int(xnnpack),
                                                "pyodide": int(pyodide_dist is not None),
                                                "quick": int(quick)})
                port = server.server_address[1]
                page.goto(f"http://127.0.0.1:{port}/benchmarks/wasm/browser.html?{query}")
                page.wait_for_function(
                    "window.gemmkitBench && window.gemmkitBench.state !== 'running'",
                    timeout=timeout_s * 1e3, polling=500)
                state = page.evaluate("window.gemmkitBench")
                version = ctx.browser.version if ctx.browser else None
            finally:
                ctx.close()
    finally:
        server.shutdown()
        server.server_close()
        shutil.rmtree(profile, ignore_errors=True)
    if state["state"] != "done":
        raise RuntimeError(f"benchmark page failed: {state['error']}")
    if errors or blocked:
        raise RuntimeError(f"page errors {errors}, blocked requests {blocked}")
    report = state["report"]
    report["lines"] = state["lines"]
    report["jsFlags"] = js_flags
    report["chromium"] = version or subprocess.run([exe, "--version"], capture_output=True,
                                                   text=True).stdout.strip()
    return report


def compare(mine: dict, other: dict, echo=print) -> None:
    """This run's same-run ratios beside another report's (another engine)."""
    a, b = mine["engine"], other["engine"]
    sizes = [n for n in mine["sizes"] if n in other.get("sizes", [r["n"] for r in other["rows"]])]
    echo(f"\nsame-run ratios, {b} | {a}")
    echo(f"{'ratio':<34}" + "".join(f"{n:>18}" for n in sizes))
    for label, cells in mine["ratios"].items():
        theirs = other.get("ratios", {}).get(label)
        if theirs is None:
            continue

        def cell(d, n):
            r = d.get(str(n), d.get(n))
            return "-" if r is None else f"{r['ratio']:.2f}{'*' if r['noisy'] else ''}"

        echo(f"{label:<34}" + "".join(f"{cell(theirs, n) + ' | ' + cell(cells, n):>18}"
                                      for n in sizes))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="64,128,256,512,1024")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--where", choices=["worker", "page"], default="worker",
                    help="a dedicated Worker (default) or the page's main thread")
    ap.add_argument("--engine", choices=["chromium"], default="chromium")
    ap.add_argument("--no-xnnpack", action="store_true")
    ap.add_argument("--no-pyodide", action="store_true")
    ap.add_argument("--pyodide-dist", type=Path, default=REPO / "build" / "pyodide-dist",
                    help="a tools/pyodide_dist.py dir holding gemmkit's wheel "
                         "(default: build/pyodide-dist)")
    ap.add_argument("--web-dir", type=Path, default=REPO / "web-demo")
    ap.add_argument("--chromium", help="the browser command (default: chromium on PATH)")
    ap.add_argument("--js-flags", help="V8 flags for Chromium, e.g. --no-wasm-dynamic-tiering")
    ap.add_argument("--out", type=Path,
                    default=REPO / "build" / "benchmarks" / "wasm-chromium.json")
    ap.add_argument("--compare", type=Path,
                    help="an earlier report (bench.mjs's JSON) to print beside")
    ap.add_argument("--quick", action="store_true", help="a smoke run: short samples")
    ap.add_argument("--timeout", type=float, default=1800.0, help="seconds the page may take")
    args = ap.parse_args(argv)

    def echo(line: str) -> None:
        print(line, flush=True)

    sizes = [int(n) for n in args.sizes.split(",")]
    pyodide_dist = None
    if not args.no_pyodide:
        if (args.pyodide_dist / "pyodide-lock.json").exists():
            pyodide_dist = args.pyodide_dist
        else:
            echo(f"  Pyodide skipped: {args.pyodide_dist} is no Pyodide dist dir (python "
                 "tools/pyodide_dist.py build/pyodide-dist --wheel dist/gemmkit-*.whl)")
    try:
        report = run_chromium(sizes=sizes, rounds=args.rounds, where=args.where,
                              xnnpack=not args.no_xnnpack, web_dir=args.web_dir,
                              pyodide_dist=pyodide_dist,
                              chromium=args.chromium, js_flags=args.js_flags, quick=args.quick,
                              timeout_s=args.timeout, echo=echo)
    except RuntimeError as exc:
        print(f"bench_browser: {exc}", file=sys.stderr)
        return 1
    report.update(cpu=_cpu_model(), loadavg=list(os.getloadavg()),
                  driver_date=datetime.datetime.now(datetime.timezone.utc).isoformat())
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(_finite(report), indent=1))
    echo(f"\nwrote {os.path.relpath(args.out)}")
    if args.compare:
        compare(report, json.loads(args.compare.read_text()), echo)
    return 0 if report["verified"] else 1


def _cpu_model() -> str | None:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


if __name__ == "__main__":
    sys.exit(main())
