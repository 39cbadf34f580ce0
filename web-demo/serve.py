#!/usr/bin/env python3
"""Serves the gemmkit web demo (this folder) on http://127.0.0.1:8000/.

    python wasm/build.py          # once: builds the .wasm files and copies gemmkit.mjs here
    python web-demo/serve.py      # then open http://127.0.0.1:8000/

Standard library only.  Unlike a bare ``python -m http.server``, it names the
MIME types of ``.mjs`` and ``.wasm`` itself (module scripts are refused when
served as octet-stream, and Python's own table lacks ``.mjs`` before 3.12),
and it makes the page cross-origin isolated (the two headers of
ISOLATION_HEADERS), without which a browser shares no WebAssembly memory with
workers: the demo's threaded column needs it.  ``--no-isolation`` serves
without them, to see the page fall back to one thread.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import os
import threading

HERE = os.path.dirname(os.path.abspath(__file__))

# What makes a page cross-origin isolated (window.crossOriginIsolated), the
# condition for SharedArrayBuffer and shared WebAssembly memory.
ISOLATION_HEADERS = (
    ("Cross-Origin-Opener-Policy", "same-origin"),
    ("Cross-Origin-Embedder-Policy", "require-corp"),
)


class DemoHandler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".mjs": "text/javascript",
        ".js": "text/javascript",
        ".wasm": "application/wasm",
        ".html": "text/html; charset=utf-8",
        ".css": "text/css",
    }

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")  # always the fresh build
        if getattr(self.server, "isolated", False):
            for name, value in ISOLATION_HEADERS:
                self.send_header(name, value)
        super().end_headers()

    def log_message(self, format: str, *args) -> None:  # noqa: A002
        if not getattr(self.server, "quiet", False):
            super().log_message(format, *args)


def make_server(host: str = "127.0.0.1", port: int = 8000, directory: str = HERE,
                quiet: bool = False, isolated: bool = False) -> http.server.ThreadingHTTPServer:
    """A server for ``directory`` (port 0 picks a free one); call
    ``serve_forever`` or use :func:`serve_in_thread`.  ``isolated`` sends
    ISOLATION_HEADERS with every response (off by default: a page that loads
    other origins' scripts, as JupyterLite's online site does, would need
    their consent to be embedded)."""
    handler = functools.partial(DemoHandler, directory=directory)
    server = http.server.ThreadingHTTPServer((host, port), handler)
    server.quiet = quiet
    server.isolated = isolated
    return server


def serve_in_thread(**kwargs) -> http.server.ThreadingHTTPServer:
    server = make_server(**kwargs)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--port", type=int, default=8000)
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--no-isolation", action="store_true",
                    help="serve without cross-origin isolation (the page then runs one thread)")
    args = ap.parse_args()
    for name in ("gemmkit.mjs", "gemmkit-worker.mjs", "gemmkit-relaxed_simd.wasm",
                 "gemmkit-simd128.wasm", "gemmkit-scalar.wasm", "gemmkit-simd128-threads.wasm"):
        if not os.path.exists(os.path.join(HERE, name)):
            raise SystemExit(f"web-demo/{name} is missing: run `python wasm/build.py` first")
    server = make_server(args.host, args.port, isolated=not args.no_isolation)
    print(f"gemmkit web demo on http://{args.host}:{server.server_address[1]}/ (Ctrl-C stops)")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
