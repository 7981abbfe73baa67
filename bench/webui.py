"""The web UI's speed in headless Chromium (Debian's, driven by Playwright) against a real ``knotwork serve``.

Measures, on a store of ``--size`` generated memories (bench/search_latency.py's store, built once
and cached as bench/.cache/latency-<size>.db; each run serves a fresh copy):

- first paint of ``/`` (first-contentful-paint) and the time until the search view is ready;
- a search answered in the page: from the form's submit to the rendered list, ``--queries``
  distinct queries (each one new, so the query is embedded every time), p50/p95;
- a graph of 100 memories (a centre, 9 children, 90 grandchildren linked for the run): time to
  draw, then frames per second and the longest frame while it is zoomed with the wheel and panned
  by dragging for ~2 s;
- the static bundle's size, gzipped.

    .venv/bin/python bench/webui.py --size 10000
"""

from __future__ import annotations

import argparse
import gzip
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ingest import WORDS  # noqa: E402
from search_latency import CACHE, build  # noqa: E402

import knotwork  # noqa: E402
from knotwork.adapters.http.routers import ui  # noqa: E402

KNOTWORK = str(Path(sys.executable).parent / "knotwork")
CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--no-first-run", "--disable-quic"]
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pct(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(p * len(s)))]


def link_tree(db: Path) -> str:
    """Link 100 memories as centre -> 9 children -> 10 grandchildren each; the centre's id."""
    with knotwork.open(db) as mem:
        workspace = max((w for w in mem.stats().by_workspace.items() if w[0]), key=lambda w: w[1])[0]
        ids = [m.id for m in mem.list(workspace=workspace, limit=1000) if m.workspace == workspace][:100]
        if len(ids) < 100:
            sys.exit(f"workspace {workspace} has only {len(ids)} memories; a graph of 100 needs more")
        centre, children, rest = ids[0], ids[1:10], ids[10:100]
        for i, child in enumerate(children):
            mem.link(centre, child, "parent_of")
            for grandchild in rest[i * 10 : (i + 1) * 10]:
                mem.link(child, grandchild, "relates_to")
        return centre


SEARCH_JS = """async (q) => {
  const form = document.querySelector('form.search');
  form.querySelector('input[name=query]').value = q;
  const before = document.querySelector('#result-count');
  return await new Promise((resolve) => {
    const t0 = performance.now();
    const obs = new MutationObserver(() => {
      const now = document.querySelector('#result-count');
      if (now && now !== before) { obs.disconnect(); requestAnimationFrame(() => resolve(performance.now() - t0)); }
    });
    obs.observe(document.querySelector('#results'), {childList: true, subtree: true});
    form.requestSubmit();
  });
}"""

FRAMES_JS = """() => { window.__frames = []; let last = performance.now();
  const tick = (t) => { window.__frames.push(t - last); last = t; if (window.__frames.length < 100000) requestAnimationFrame(tick); };
  requestAnimationFrame(tick); }"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=30)
    parser.add_argument("--loads", type=int, default=5)
    args = parser.parse_args()
    if not ui.built():
        sys.exit("the web UI is not built: make, or cd web && npm ci && npm run build")
    CACHE.mkdir(exist_ok=True)
    cached = CACHE / f"latency-{args.size}.db"
    if not cached.exists():
        print(f"building {cached} ...", file=sys.stderr)
        build(cached, args.size)
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "webui.db"
        shutil.copy(cached, db)
        centre = link_tree(db)
        port = free_port()
        server = subprocess.Popen([KNOTWORK, "serve", "--db", str(db), "--port", str(port)], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL, env={"PATH": "/usr/bin:/bin", "KNOTWORK_HOME": tmp})
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 120
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                    break
                except OSError:
                    if time.monotonic() > deadline or server.poll() is not None:
                        sys.exit("knotwork serve did not start")
                    time.sleep(0.1)
            with sync_playwright() as p:
                context = p.chromium.launch_persistent_context(tempfile.mkdtemp(dir=tmp), executable_path=CHROMIUM, args=FLAGS,
                                                               headless=True, viewport={"width": 1280, "height": 900})
                context.set_default_timeout(60_000)
                paints, readies = [], []
                for _ in range(args.loads):
                    page = context.new_page()
                    page.goto(base + "/")
                    page.wait_for_selector("#view[data-ready]")
                    fcp = page.evaluate("performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null")
                    ready = page.evaluate("performance.now()")
                    paints.append(fcp)
                    readies.append(ready)
                    page.close()
                page = context.new_page()
                page.goto(base + "/")
                page.wait_for_selector("#view[data-ready]")
                page.select_option("select[name=workspace]", "*")
                page.evaluate(SEARCH_JS, "warm up the first query")
                queries = [" ".join(WORDS[(i * 7 + j * 13) % len(WORDS)] for j in range(4)) + f" {i}" for i in range(args.queries)]
                searches = [page.evaluate(SEARCH_JS, q) for q in queries]
                page.screenshot(path=str(ARTIFACTS / "webui-search.png"))
                page.close()

                page = context.new_page()
                page.goto(f"{base}/#/graph/{centre}?depth=2")
                t0 = time.perf_counter()
                page.wait_for_function("window.knotworkGraph && window.knotworkGraph.nodes().length >= 100")
                draw_ms = (time.perf_counter() - t0) * 1000
                nodes = page.evaluate("window.knotworkGraph.nodes().length")
                zoom0 = page.evaluate("window.knotworkGraph.zoom()")
                box = page.locator("#graph").bounding_box()
                cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
                page.evaluate(FRAMES_JS)
                t0 = time.perf_counter()
                page.mouse.move(cx, cy)
                for _ in range(20):
                    page.mouse.wheel(0, -60)
                page.wait_for_timeout(100)
                zoomed = page.evaluate("window.knotworkGraph.zoom()")
                pan_before_drag = page.evaluate("window.knotworkGraph.pan()")
                for _ in range(3):
                    page.mouse.move(cx + 40, cy + 40)  # a spot off the nodes, so dragging pans the view
                    page.mouse.down()
                    for step in range(20):
                        page.mouse.move(cx + 40 + step * 6, cy + 40 + step * 3)
                    page.mouse.up()
                pan_after_drag = page.evaluate("window.knotworkGraph.pan()")
                for _ in range(20):
                    page.mouse.wheel(0, 60)
                interact_s = time.perf_counter() - t0
                frames = page.evaluate("window.__frames")
                page.screenshot(path=str(ARTIFACTS / "webui-graph.png"))
                context.close()
        finally:
            server.terminate()
            server.wait(10)

    static = ui.STATIC
    gz = {f.name: len(gzip.compress(f.read_bytes(), 9)) for f in sorted(static.iterdir()) if f.suffix in (".js", ".css", ".html")}
    window = [f for f in frames if f > 0]
    print(f"store: {args.size:,} generated memories (bench/.cache/latency-{args.size}.db); load {open('/proc/loadavg').read().split()[:3]}")
    print(f"first contentful paint of /: median {statistics.median(paints):.0f} ms, max {max(paints):.0f} ms ({args.loads} loads)")
    print(f"search view ready (pickers filled): median {statistics.median(readies):.0f} ms, max {max(readies):.0f} ms")
    print(f"search answered in the page ({len(searches)} queries): p50 {pct(searches, 0.5):.0f} ms, p95 {pct(searches, 0.95):.0f} ms")
    print(f"graph of {nodes} memories drawn in {draw_ms:.0f} ms; while zooming and panning for {interact_s:.1f} s: "
          f"{len(window) / interact_s:.0f} frames/s, longest frame {max(window):.0f} ms, median {statistics.median(window):.0f} ms; "
          f"wheel zoomed {zoom0:.2f} -> {zoomed:.2f}, dragging panned {pan_after_drag['x'] - pan_before_drag['x']:.0f} px")
    print(f"bundle gzipped: {sum(gz.values()) / 1024:.0f} KiB ({', '.join(f'{k} {v / 1024:.1f} KiB' for k, v in gz.items())})")


if __name__ == "__main__":
    main()
