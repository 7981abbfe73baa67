"""CPU of one ``POST /search`` and one ``POST /memories`` through the whole REST app, by layer, with cProfile.

    .venv/bin/python bench/request_cpu.py [--memories 3000] [--requests 200] [--top 40] [--out DIR]

Opens a copy of bench/load.py's store (bench/.cache/load-<memories>.db, built by bench/load.py), builds the app
as ``knotwork serve`` does (``create_app`` with the MCP server, every middleware: Access, BrowserGuard, BodyLimit,
SearchTimer, McpEnvelope), runs its lifespan (warm-up, the store's graph worker process), and sends it, as raw
ASGI calls on one thread, the requests bench/load.py's clients send (bench/serve_cpu.py's bodies): ``search``
(each query the first time: the model runs unless an earlier query was the same text), ``search_cached`` (the
same again: every query vector in the query cache) and ``add``. FastAPI would run each endpoint in its thread
pool; here the pool is replaced by a direct call, so one thread runs the whole request and cProfile (timed by
that thread's CPU clock, ``time.thread_time``) sees all of it but onnxruntime's own pool threads and uvicorn's
HTTP parsing (bench/serve_cpu.py measures the real server, those included).

Reported per kind: the thread's CPU ms per request, the process's (every thread: the model's pool too) and,
from the profile, the inclusive thread CPU ms per request of each layer (:data:`LAYERS`, the first frame of a
call that matches; a layer's time includes the layers it calls). ``--out DIR`` writes each kind's pstats
(``DIR/<kind>.pstats``) and its top functions by own time (``DIR/<kind>.txt``). Thread CPU moves less with
the machine's load than wall time, but it still moves (shared caches): compare two trees in alternated runs.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import json
import os
import pstats
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from serve_cpu import adds, searches  # noqa: E402

CACHE = Path(__file__).resolve().parent / ".cache"

#: Layers of a request: (label, file suffix, function name or "" for any). Inclusive thread CPU per request.
LAYERS: tuple[tuple[str, str, str], ...] = (
    ("whole app (ASGI call)", "knotwork/adapters/http/app.py", "__call__"),
    ("FastAPI: body read, validation, dependencies", "fastapi/routing.py", "get_request_handler"),
    ("FastAPI: request body parse + validation", "fastapi/routing.py", "_get_body"),
    ("FastAPI: solve_dependencies", "fastapi/dependencies/utils.py", "solve_dependencies"),
    ("endpoint: search", "routers/memories.py", "search"),
    ("endpoint: add", "routers/memories.py", "add_memory"),
    ("service: search (elsewhere.search)", "views/elsewhere.py", "search"),
    ("service facade: Knotwork.search", "knotwork/service.py", "search"),
    ("service facade: Knotwork.add", "knotwork/service.py", "add"),
    ("embedding: embed_query", "embed/_base.py", "embed_query"),
    ("embedding: embed (documents)", "embed/_base.py", "embed"),
    ("search pipeline", "search/pipeline.py", "run"),
    ("lexical search", "search/lexical.py", ""),
    ("vector index", "search/vector_index.py", ""),
    ("fusion", "search/fusion.py", ""),
    ("rerankers", "search/rerankers.py", ""),
    ("token counting", "knotwork/tokens.py", ""),
    ("add: write (services/writes.py)", "services/writes.py", ""),
    ("add: consolidation", "knotwork/hygiene/consolidate.py", ""),
    ("SQLite store", "store/sqlite/", ""),
    ("render (Responder)", "render/respond.py", "__call__"),
    ("JSON encoding (json.dumps)", "json/__init__.py", "dumps"),
    ("starlette Response", "starlette/responses.py", "__init__"),
)


def scope_of(method: str, path: str, body: bytes) -> dict[str, Any]:
    return {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method, "scheme": "http",
        "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "",
        "headers": [(b"host", b"127.0.0.1:8765"), (b"content-type", b"application/json"), (b"accept", b"*/*"),
                    (b"content-length", str(len(body)).encode())],
        "client": ("127.0.0.1", 40000), "server": ("127.0.0.1", 8765),
    }


async def call(app: Any, method: str, path: str, payload: dict[str, Any]) -> tuple[int, bytes]:
    body = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()
    sent = False
    status = 0
    chunks: list[bytes] = []

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if sent:
            await asyncio.sleep(3600)
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))

    await app(scope_of(method, path, body), receive, send)
    return status, b"".join(chunks)


def _worker_alive(db: Path) -> bool:
    """Whether a process other than this one still holds the store's files open (its graph worker)."""
    me = os.getpid()
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or int(proc.name) == me:
            continue
        try:
            if any(str(db) in os.readlink(fd) for fd in (proc / "fd").iterdir()):
                return True
        except OSError:
            continue
    return False


def layers(stats: pstats.Stats, n: int) -> dict[str, float]:
    """Inclusive ms per request of each layer: the largest cumulative time of a function that matches (a
    layer's frames may nest; the outermost holds the rest)."""
    out: dict[str, float] = {}
    for label, suffix, name in LAYERS:
        best = 0.0
        total = 0.0
        for (file, _line, func), (_cc, _nc, _tt, ct, _callers) in stats.stats.items():  # type: ignore[attr-defined]
            if suffix in file.replace(os.sep, "/") and (not name or func == name):
                best = max(best, ct)
                total += ct
        # a module-wide layer (no function name) sums its functions' own... cumulative times overlap, so keep the
        # outermost: the largest cumulative of one function is a floor, the sum of own times the exact figure
        if not name:
            own = sum(tt for (file, _l, _f), (_c, _n, tt, _ct, _cl) in stats.stats.items()  # type: ignore[attr-defined]
                      if suffix in file.replace(os.sep, "/"))
            out[label] = round(1000 * max(best, own) / n, 3)
        else:
            out[label] = round(1000 * best / n, 3)
    return out


async def run(args: argparse.Namespace, db: Path) -> dict[str, Any]:
    import fastapi.routing

    import knotwork
    from knotwork.adapters.http import create_app
    from knotwork.adapters.mcp import build_server
    from knotwork.views.access import of_workspace

    async def inline(func: Any, *a: Any, **kw: Any) -> Any:  # the endpoint on this thread, not the pool's
        return func(*a, **kw)

    fastapi.routing.run_in_threadpool = inline  # type: ignore[assignment]
    mem = knotwork.open(db)
    app = create_app(mem, mcp_server=build_server(mem, default_workspace=None, tools="all", scope=of_workspace(None)),
                     limit_to_default=True)
    report: dict[str, Any] = {}
    async with app.router.lifespan_context(app):
        for i in range(20):  # warm-up: the readers, the indexes (texts the measured requests never send)
            status, content = await call(app, "POST", "/search", {"query": f"deploy cache {i}", "workspace": "api"})
            assert status == 200, content[:300]
        asked = searches(args.requests)
        phases = [("search", "/search", asked, 200), ("search_cached", "/search", asked, 200),
                  ("add", "/memories", adds(args.requests), 201)]
        for kind, path, bodies, expected in phases:
            profiler = cProfile.Profile(time.thread_time)
            thread0, process0 = time.thread_time(), time.process_time()
            profiler.enable()
            for body in bodies:
                status, content = await call(app, "POST", path, body)
                if status != expected:
                    raise SystemExit(f"{kind}: {status} {content[:300]!r}")
            profiler.disable()
            thread1, process1 = time.thread_time(), time.process_time()
            n = len(bodies)
            stats = pstats.Stats(profiler)
            report[kind] = {
                "thread_cpu_ms_per_request": round(1000 * (thread1 - thread0) / n, 3),
                "process_cpu_ms_per_request": round(1000 * (process1 - process0) / n, 3),
                "layers_ms_per_request": layers(stats, n),
            }
            if args.out is not None:
                args.out.mkdir(parents=True, exist_ok=True)
                stats.dump_stats(str(args.out / f"{kind}.pstats"))
                text = io.StringIO()
                pstats.Stats(profiler, stream=text).sort_stats("tottime").print_stats(args.top)
                (args.out / f"{kind}.txt").write_text(text.getvalue())
    mem.close()
    for _ in range(100):  # the store's graph worker process reads the adds in, then exits; its files go after it
        if not _worker_alive(db):
            break
        time.sleep(0.2)
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=3000)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--out", type=Path, metavar="DIR")
    args = parser.parse_args()
    cached = CACHE / f"load-{args.memories}.db"
    if not cached.exists():
        raise SystemExit(f"{cached} is missing: run bench/load.py --memories {args.memories} once to build it")
    work = Path(tempfile.mkdtemp(prefix="knotwork-request-cpu-"))
    os.environ["KNOTWORK_HOME"] = str(work)
    try:
        shutil.copy(cached, work / "s.db")
        report = asyncio.run(run(args, work / "s.db"))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(json.dumps({"memories": args.memories, "requests_per_kind": args.requests, **report,
                      "loadavg": os.getloadavg()[0]}, indent=2))


if __name__ == "__main__":
    main()
