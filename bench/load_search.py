"""Load a store and search it at once, on SQLite and on PostgreSQL, several times: the tail right after a bulk load.

    python bench/load_search.py [--runs 3] [--workspaces 10] [--per 600] [--queries 200]
                                [--backends sqlite,postgres] [--postgres URL] [--slowest 5]

Each run makes a fresh store on each backend (a new SQLite file; a new
PostgreSQL database on a server started here from the ``pgserver`` wheel
unless ``--postgres`` names one), loads ``--workspaces`` × ``--per``
memories of real conversational text with ``add_many`` (LongMemEval turns
cut to their first 40 words, dealt out session by session, as
bench/workspaces.py does), and then, in the same process and with nothing in
between, asks ``--queries`` LongMemEval questions with the default
``search(question, workspace=W)``, each in one workspace (round robin): a
workspace holds a tenth of the rows. That is how a store is used after an
import, and where PostgreSQL's tail was seen (p95 414-438 ms against SQLite's
13-14 ms).

The model embeds every text once: the vectors of the load are kept after the
first load (in memory, and in bench/.cache/ for later invocations) and handed
to later loads (the model's time is the same on both backends and is not what
is measured). Queries are embedded anew by
the model in every run (the query cache is emptied before each).

Reported per backend and run: load seconds, search p50 / p95 / max (ms), the
load average, and for the ``--slowest`` searches the time of each stage
(``Trace``) and, on PostgreSQL, what the server was doing (autovacuum,
statistics age).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import longmemeval as lme  # noqa: E402
from workspaces import texts  # noqa: E402

import knotwork  # noqa: E402


def percentile(values: Sequence[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


CACHE = Path(__file__).resolve().parent / ".cache"


class Remembered:
    """The vectors of texts embedded once, for the loads after the first (``embed`` of the real model otherwise)."""

    def __init__(self, path: Path | None = None) -> None:
        self.vectors: dict[str, np.ndarray] = {}
        self.path = path
        self.model = ""
        if path is not None and path.exists():
            saved = np.load(path, allow_pickle=False)
            self.model = str(saved["model"])
            self.vectors = dict(zip(saved["texts"].tolist(), saved["vectors"]))

    def save(self, model_id: str) -> None:
        if self.path is not None and self.vectors:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            texts = list(self.vectors)
            np.savez(self.path, texts=np.array(texts), vectors=np.stack([self.vectors[t] for t in texts]), model=np.array(model_id))

    def wrap(self, embedder: Any):
        if self.model and self.model != embedder.model_id:  # saved by another model: not these vectors
            self.vectors, self.model = {}, ""
        model = embedder.embed

        def embed(batch: Sequence[str]) -> np.ndarray:
            missing = [t for t in dict.fromkeys(batch) if t not in self.vectors]
            if missing:
                for t, v in zip(missing, model(missing)):
                    self.vectors[t] = v
            return np.stack([self.vectors[t] for t in batch]) if batch else model(batch)

        embedder.embed = embed
        return lambda: delattr(embedder, "embed")


def analyzed(url: str) -> str:
    """When each memories-side table was last analyzed (auto or by hand), as seen by the server now."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT relname, n_live_tup, n_mod_since_analyze, last_analyze IS NOT NULL, last_autoanalyze IS NOT NULL"
            " FROM pg_stat_user_tables WHERE relname IN ('memories', 'memory_vectors', 'memory_tags') ORDER BY relname"
        ).fetchall()
    return "; ".join(f"{r[0]} rows {r[1]} changed {r[2]} analyzed {'yes' if r[3] or r[4] else 'no'}" for r in rows)


def run_once(target: str, buckets: list[list[str]], names: list[str], questions: list[str], memo: Remembered, slowest: int) -> dict:
    out: dict[str, Any] = {}
    with knotwork.open(target) as mem:
        restore = memo.wrap(mem.embedder)
        start = time.perf_counter()
        for name, bucket in zip(names, buckets):
            mem.add_many([{"content": t, "workspace": name, "category": "conversation"} for t in bucket], consolidate=False, force=True)
        out["load_s"] = time.perf_counter() - start
        restore()
        memo.save(mem.embedder.model_id)
        mem.embedder.query_cache = type(mem.embedder.query_cache)()  # every query embedded by the model again
        out["after_load"] = analyzed(target) if target.startswith("postgresql") else ""
        load_before = os.getloadavg()[0]
        times: list[tuple[float, str, str, list]] = []
        for i, question in enumerate(questions):
            ws = names[i % len(names)]
            started = time.perf_counter()
            mem.search(question, workspace=ws)
            took = (time.perf_counter() - started) * 1000
            times.append((took, ws, question, list(mem.last_trace.stages) if mem.last_trace else []))
        out["load_avg"] = f"{load_before:.1f} -> {os.getloadavg()[0]:.1f}"
        ms = [t[0] for t in times]
        out.update(p50=statistics.median(ms), p95=percentile(ms, 95), max=max(ms), n=len(ms))
        out["slowest"] = sorted(times, key=lambda t: -t[0])[:slowest]
        out["first"] = times[0][0]
        out["after_search"] = analyzed(target) if target.startswith("postgresql") else ""
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", type=Path, default=lme.DEFAULT_DATA)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--workspaces", type=int, default=10)
    p.add_argument("--per", type=int, default=600)
    p.add_argument("--queries", type=int, default=200)
    p.add_argument("--backends", default="sqlite,postgres")
    p.add_argument("--postgres", help="a PostgreSQL server URL (a database per run is made on it)")
    p.add_argument("--slowest", type=int, default=5)
    p.add_argument("--log-slow", type=int, default=0, metavar="MS",
                   help="server started here: log every statement slower than MS ms, and print them (0: off)")
    args = p.parse_args()
    data = lme.load(args.data)
    names = [f"ws{i}" for i in range(args.workspaces)]
    buckets = texts(data, args.workspaces, args.per)
    questions = [q.text for q in data.questions][: args.queries]
    wanted = [b.strip().lower() for b in args.backends.split(",")]
    memo = Remembered(CACHE / f"load_search-{args.workspaces}x{args.per}.npz")
    with tempfile.TemporaryDirectory() as tmp:
        server = None
        pg_url = args.postgres
        if "postgres" in wanted and not pg_url:
            import pgserver

            server = pgserver.get_server(Path(tmp) / "pg", cleanup_mode="delete")
            pg_url = server.get_uri()
            if args.log_slow:
                import psycopg

                with psycopg.connect(pg_url, autocommit=True) as conn:
                    conn.execute(f"ALTER SYSTEM SET log_min_duration_statement = {args.log_slow}")
                    conn.execute("ALTER SYSTEM SET log_autovacuum_min_duration = 0")
                    conn.execute("SELECT pg_reload_conf()")

        def database(name: str) -> str:
            import psycopg

            with psycopg.connect(pg_url, autocommit=True) as conn:
                conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
                conn.execute(f"CREATE DATABASE {name}")
            return urlunsplit(urlsplit(pg_url)._replace(path="/" + name))

        results: list[tuple[str, int, dict]] = []
        for run in range(1, args.runs + 1):
            for backend in wanted:
                target = str(Path(tmp) / f"run{run}.db") if backend == "sqlite" else database(f"kw_load_search_{run}")
                r = run_once(target, buckets, names, questions, memo, args.slowest)
                results.append((backend, run, r))
                print(
                    f"{backend} run {run}: load {r['load_s']:.1f} s, search p50 {r['p50']:.1f} p95 {r['p95']:.1f}"
                    f" max {r['max']:.1f} ms (first {r['first']:.1f}), load avg {r['load_avg']}",
                    file=sys.stderr,
                    flush=True,
                )
        slow = server.log.read_text(errors="replace") if server is not None and args.log_slow else ""
        if server is not None:
            server.cleanup()
    if slow:
        print("\nServer log (statements slower than --log-slow, autovacuum):\n", file=sys.stderr)
        print(slow[-20000:], file=sys.stderr)
    print(
        f"\n{args.workspaces} workspaces x {args.per} memories loaded, then {len(questions)} searches at once, {args.runs} runs\n"
    )
    print("| backend | run | load s | p50 ms | p95 ms | max ms | first ms | load avg |\n|---|---:|---:|---:|---:|---:|---:|---|")
    for backend, run, r in results:
        print(
            f"| {backend} | {run} | {r['load_s']:.1f} | {r['p50']:.1f} | {r['p95']:.1f} | {r['max']:.1f} | {r['first']:.1f} | {r['load_avg']} |"
        )
    print("\nSlowest searches, by stage (ms):\n")
    for backend, run, r in results:
        if r["after_load"]:
            print(f"- {backend} run {run}, statistics right after the load: {r['after_load']}")
            print(f"- {backend} run {run}, after the searches: {r['after_search']}")
        for took, ws, _question, stages in r["slowest"]:
            parts = ", ".join(f"{name} {ms:.1f}" for name, _n, ms in stages)
            print(f"  - {backend} run {run}: {took:.1f} ms in {ws}: {parts}")


if __name__ == "__main__":
    main()
