"""SQLite and PostgreSQL side by side: ingest, search and graph-walk speed on the same data.

    python bench/backends.py [--postgres URL] [--ingest 1000] [--size 100000] [--links 300000] [--queries 200]
                             [--backends sqlite,postgres] [--bulk]

Without ``--postgres`` a PostgreSQL 16 + pgvector is started from the
``pgserver`` wheel in a temporary folder (fsync left on: these are the
server's defaults). For each backend, in a fresh store:

* **ingest**: ``--ingest`` memories of bench/ingest.py's generator through
  ``add_many`` in batches of 100, with the bundled embedder (model time
  included: it is the same on both backends);
* **search**: a store of ``--size`` generated memories whose vectors are
  synthetic (random unit vectors, 384 floats, written straight through the
  store: embedding 10^5 texts would take most of an hour here and measures
  the model, not the backend), then ``--queries`` searches with the default
  recipe, each query's text embedded by the real model (the query-vector
  cache cannot help: every query is new);
* **related**: ``--links`` random typed links among those memories, then
  ``related(depth=3)`` from ``--queries`` random start memories; the first
  walk (which loads the links into memory) is timed on its own.

Percentiles are wall-clock; the load average is printed with each table.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ingest import WORDS, corpus  # noqa: E402

import knotwork  # noqa: E402
from knotwork.domain import ids  # noqa: E402
from knotwork.domain.models import LINK_TYPES, Relationship  # noqa: E402
from knotwork.domain.temporal import now  # noqa: E402

DIM = 384


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def ingest(target: str, n: int) -> float:
    """Memories per second through add_many (batches of 100), embedder included."""
    items = corpus(n)
    with knotwork.open(target) as mem:
        start = time.perf_counter()
        for i in range(0, n, 100):
            mem.add_many(items[i : i + 100])
        return n / (time.perf_counter() - start)


def hnsw_later(mem: knotwork.Knotwork) -> bool:
    """On PostgreSQL, drop the HNSW index the first vectors made, so the fill writes rows only; True if done.
    :func:`hnsw_build` makes it again over every row at once (as a bulk load would, and much faster than
    one insert at a time into the graph)."""
    if "postgresql" not in type(mem.store).__module__:
        return False
    mem.store._run(f"DROP INDEX IF EXISTS memory_vectors_hnsw_{DIM}")
    return True


def hnsw_build(mem: knotwork.Knotwork) -> float:
    t = time.perf_counter()
    mem.store._run("SET maintenance_work_mem = '4GB'")
    mem.store._run(
        f"CREATE INDEX memory_vectors_hnsw_{DIM} ON memory_vectors USING hnsw ((vector::vector({DIM})) vector_cosine_ops)"
        f" WHERE vector_dims(vector) = {DIM}"
    )
    return time.perf_counter() - t


def fill(mem: knotwork.Knotwork, size: int, links: int, rng: random.Random, bulk: bool = False) -> list[str]:
    """``size`` memories with synthetic vectors and ``links`` random links, written through the store
    (``bulk``: PostgreSQL's HNSW index made once at the end)."""
    gen = np.random.default_rng(5)
    items = corpus(size)
    memory_ids: list[str] = []
    dropped = False
    for i in range(0, size, 2000):
        batch = [mem._draft(**item) for item in items[i : i + 2000]]
        vectors = gen.standard_normal((len(batch), DIM)).astype("<f4")
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        with mem.store.transaction():
            stored = mem.store.insert_memories(batch)
            for m, v in zip(stored, vectors):
                if not m.duplicate:
                    mem.store.put_vectors(m.id, [v.tobytes()])
                    memory_ids.append(m.id)
        if bulk and not dropped:
            dropped = hnsw_later(mem)
        print(f"  {len(memory_ids):,} memories", file=sys.stderr, flush=True)
    if dropped:
        print(f"  HNSW index built in {hnsw_build(mem):.0f} s", file=sys.stderr, flush=True)
    stamp, made = now(), 0
    kinds = [t for t in LINK_TYPES if t != "supersedes"]
    while made < links:
        with mem.store.transaction():
            for _ in range(min(10_000, links - made)):
                a, b = rng.sample(memory_ids, 2)
                made += not mem.store.insert_link(Relationship(ids.new_id(), a, b, rng.choice(kinds), None, stamp)).existing
        print(f"  {made:,} links", file=sys.stderr, flush=True)
    return memory_ids


def timed(calls) -> list[float]:
    out = []
    for call in calls:
        t = time.perf_counter()
        call()
        out.append((time.perf_counter() - t) * 1000)
    return out


def measure(name: str, target: str, args: argparse.Namespace) -> dict[str, object]:
    rate = ingest(target["ingest"], args.ingest)
    rng = random.Random(11)
    with knotwork.open(target["large"]) as mem:
        t = time.perf_counter()
        memory_ids = fill(mem, args.size, args.links, rng, args.bulk)
        built = time.perf_counter() - t
        queries = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 9))) + f" {i}" for i in range(args.queries)]
        mem.search("warm up the model and the index", workspace="api")
        search = timed(lambda q=q: mem.search(q, workspace="api", limit=10) for q in queries)
        starts = random.Random(12).sample(memory_ids, args.queries)
        t = time.perf_counter()
        mem.related(starts[0], depth=3)
        first_walk = time.perf_counter() - t
        related = timed(lambda s=s: mem.related(s, depth=3) for s in starts)
    return {
        "backend": name, "ingest": rate, "built": built, "search": search, "first_walk": first_walk,
        "related": related, "load": load(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--postgres", help="a PostgreSQL server URL (its database is used; knotwork's tables must not exist)")
    parser.add_argument("--ingest", type=int, default=1000)
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--links", type=int, default=300_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--backends", default="sqlite,postgres", help="comma list of sqlite, postgres")
    parser.add_argument("--bulk", action="store_true", help="PostgreSQL: make the HNSW index once, after the fill")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        server = None
        if args.postgres:
            pg_url = args.postgres
        else:
            import pgserver

            server = pgserver.get_server(Path(tmp) / "pg", cleanup_mode="delete")
            pg_url = server.get_uri()
        import psycopg

        def database(name: str) -> str:
            with psycopg.connect(pg_url, autocommit=True) as conn:
                conn.execute(f"DROP DATABASE IF EXISTS {name}")
                conn.execute(f"CREATE DATABASE {name}")
            from urllib.parse import urlsplit, urlunsplit

            return urlunsplit(urlsplit(pg_url)._replace(path="/" + name))

        targets = {
            "SQLite": {"ingest": str(Path(tmp) / "ingest.db"), "large": str(Path(tmp) / "large.db")},
            "PostgreSQL": {"ingest": database("kw_bench_ingest"), "large": database("kw_bench_large")},
        }
        wanted = {b.strip().lower() for b in args.backends.split(",")}
        results = [measure(name, target, args) for name, target in targets.items() if any(name.lower().startswith(w) for w in wanted)]
        if server is not None:
            server.cleanup()
    print(f"\n{args.size:,} memories (synthetic vectors), {args.links:,} links, {args.queries} queries; ingest of {args.ingest}")
    print("| backend | ingest memories/s | build s | search p50 ms | search p95 ms | first walk s | related(3) p50 ms | related(3) p95 ms | load after |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for r in results:
        s, w = r["search"], r["related"]
        print(
            f"| {r['backend']} | {r['ingest']:.0f} | {r['built']:.0f} | {statistics.median(s):.1f} | {percentile(s, 0.95):.1f}"
            f" | {r['first_walk']:.2f} | {statistics.median(w):.2f} | {percentile(w, 0.95):.2f} | {r['load']} |"
        )


if __name__ == "__main__":
    main()
