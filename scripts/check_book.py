"""Open the built book in headless Chromium, offline, and fail on a missing chart or a console error.

    python scripts/check_book.py _build/html

For every page built from a notebook, the executed notebook (in _build/jupyter_execute)
says how many charts it produced (outputs with an image/svg+xml or image/png bundle);
the page must show that many images, each loaded (natural width > 0). Every page of the
book is loaded: any console error, page error, failed request, or request that leaves
this machine fails the check. Pages are served from 127.0.0.1 by a local HTTP server.
"""
from __future__ import annotations

import functools
import http.server
import json
import sys
import threading
from pathlib import Path
from urllib.parse import urlparse

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"]
CHART_MIMES = ("image/svg+xml", "image/png")
# Pages that must show at least one chart whatever the notebooks say.
MUST_HAVE_CHARTS = ["book/intro.html", "notebooks/metrics.html"]


def expected_charts(build: Path) -> dict[str, int]:
    """{page path relative to the html root: number of chart outputs in its executed notebook}."""
    counts = {}
    executed = build.parent / "jupyter_execute"
    for nb_path in executed.rglob("*.ipynb"):
        nb = json.loads(nb_path.read_text())
        n = sum(1 for cell in nb.get("cells", []) for out in cell.get("outputs", [])
                if any(m in out.get("data", {}) for m in CHART_MIMES))
        counts[str(nb_path.relative_to(executed).with_suffix(".html"))] = n
    return counts


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def serve(root: Path):
    handler = functools.partial(_QuietHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def check(build: Path) -> list[str]:
    from playwright.sync_api import sync_playwright

    problems = []
    # index.html is Jupyter Book's redirect to the root page, which is checked itself.
    pages = sorted(str(p.relative_to(build)) for p in build.rglob("*.html")
                   if not p.relative_to(build).parts[0].startswith(("_", ".", "genindex", "search", "index.html")))
    charts = expected_charts(build)
    for page in MUST_HAVE_CHARTS:
        if page not in pages:
            problems.append(f"{page}: page missing from the build")
        charts[page] = max(charts.get(page, 0), 1)
    server = serve(build)
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        for page_path in pages:
            page = browser.new_page()
            events = []
            page.on("console", lambda m, ev=events: m.type == "error" and ev.append(f"console error: {m.text}"))
            page.on("pageerror", lambda e, ev=events: ev.append(f"page error: {e}"))
            page.on("requestfailed", lambda r, ev=events: ev.append(f"request failed: {r.url}"))

            def block_outside(route, ev=events):
                host = urlparse(route.request.url).hostname
                if host in ("127.0.0.1", "localhost") or route.request.url.startswith("data:"):
                    return route.continue_()
                ev.append(f"request leaves the machine: {route.request.url}")
                return route.abort()

            page.route("**/*", block_outside)
            page.goto(base + page_path, wait_until="load")
            page.wait_for_timeout(300)  # let MathJax and late console errors surface
            shown = page.evaluate("""() => {
                const main = document.querySelector('main') || document.body;
                const imgs = [...main.querySelectorAll('.cell_output img, .output img')];
                const ok = imgs.filter(i => i.complete && i.naturalWidth > 0).length;
                const inline = main.querySelectorAll('.cell_output svg.marks, .output svg.marks').length;
                return {ok: ok + inline, broken: imgs.length - ok};
            }""")
            want = charts.get(page_path, 0)
            if shown["broken"]:
                events.append(f"{shown['broken']} chart image(s) failed to load")
            if shown["ok"] < want:
                events.append(f"shows {shown['ok']} chart(s), its notebook produced {want}")
            problems += [f"{page_path}: {e}" for e in events]
            print(f"checked {page_path}: {shown['ok']} chart(s), expected {want}, "
                  f"{'OK' if not events else 'PROBLEMS'}")
            page.close()
        browser.close()
    server.shutdown()
    return problems


def main(argv):
    build = Path(argv[1] if len(argv) > 1 else "_build/html").resolve()
    if not (build / "index.html").is_file():
        print(f"check_book: {build} has no index.html; build the book first (bash scripts/book.sh)")
        return 2
    problems = check(build)
    for p in problems:
        print("FAIL", p)
    print(f"check_book: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
