"""SQLite and PostgreSQL side by side: ingest, search and graph-walk speed on the same data.

    python bench/backends.py [--postgres URL] [--ingest 1000] [--size 100000] [--links 300000] [--queries 200]
                             [--backends sqlite,postgres] [--bulk] [--fill store|copy|copy-indexed]
                             [--ef-search N,N] [--shared-buffers 3GB]

Without ``--postgres`` a PostgreSQL 16 + pgvector is started from the
``pgserver`` wheel in a temporary folder (fsync left on: these are the
server's defaults; ``--shared-buffers`` sets that one). For each backend, in a fresh store:

* **ingest**: ``--ingest`` memories of bench/ingest.py's generator through
  ``add_many`` in batches of 100, with the bundled embedder (model time
  included: it is the same on both backends);
* **search**: a store of ``--size`` generated memories whose vectors are
  synthetic (embedding 10^6 texts would take hours here and measures
  the model, not the backend), then ``--queries`` searches with
  the default recipe (BM25 over the query's text and k-NN over its vector);
  the store is opened afresh after the fill, so its in-memory indexes are
  loaded from the database as a new process's would be;
* **related**: ``--links`` random typed links among those memories, then
  ``related(depth=3)`` from ``--queries`` random start memories; the first
  walk (which loads the links into memory) is timed on its own.

Synthetic vectors are **clustered**: 2,000 random unit centroids, each
memory a centroid plus Gaussian noise of a norm drawn in [0.3, 1.0],
normalised (384 floats). Two memories of one centroid have cosine 0.5-0.9,
of two centroids about 0: every memory has real near neighbours, as with
a model, and the noise spans all 384 dimensions (no low-dimensional
shortcut for the HNSW graph). Pure random unit vectors would make every similarity
about 0: the search's similarity floor (0.2) would stop the k-NN after
its first walk, which is unrealistically cheap. Vectors made from the
text (a sum of per-word random vectors) were not used: the generator's
vocabulary has 36 words and each memory draws 12-40 of them, so any two
such vectors have cosine about 0.4 (5th-95th percentile 0.17-0.59): every
memory would be near every other, with no neighbourhoods to find. The
query vectors are made the same way (a centroid chosen from the query's
text plus noise of norm 0.3-0.7, so the best matches have cosine about
0.6-0.9), not by the model: a model's vector would be unrelated to the
synthetic ones (cosine about 0 again). Both backends get the same
memories, vectors and queries.

``--fill``: ``store`` writes through the store, 2,000 memories per
transaction (``--bulk``: PostgreSQL's HNSW index made once at the end);
``copy`` is for large sizes: on PostgreSQL, memories, memory_tags and
memory_vectors go in with COPY (rows made by the store's own conversion,
``memory_params``; the generated ``tsv`` and ``rowno`` fill themselves),
the GIN index over ``tsv`` and the HNSW index are dropped first and built
after (``maintenance_work_mem`` 4GB, 2 parallel workers; ``copy-indexed``
keeps them through the COPY instead, to compare); on SQLite, the store in
transactions of 20,000 memories. The store is then checked:
``check()`` ok, the count is ``--size``, and a search for a memory's exact
text finds it. ``--ef-search`` times the PostgreSQL k-NN statement alone,
at each listed ``hnsw.ef_search``, on the same query vectors.

Percentiles are wall-clock; the load average is printed with each table.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import re
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


CENTROIDS = 2000
FAST_BATCH = 20_000  # memories per transaction of the copy fill


class Vectors:
    """The synthetic vectors: clustered memory vectors and query vectors near the same centroids."""

    def __init__(self, seed: int = 5) -> None:
        self.gen = np.random.default_rng(seed)
        centroids = self.gen.standard_normal((CENTROIDS, DIM))
        self.centroids = centroids / np.linalg.norm(centroids, axis=1, keepdims=True)
        self.known: dict[str, np.ndarray] = {}  # texts whose query vector is a given one (a stored memory's)

    def _near(self, gen: np.random.Generator, n: int, low: float, high: float) -> np.ndarray:
        noise = gen.standard_normal((n, DIM)) / np.sqrt(DIM)
        noise *= gen.uniform(low, high, (n, 1))
        v = self.centroids[gen.integers(0, CENTROIDS, n)] + noise
        return (v / np.linalg.norm(v, axis=1, keepdims=True)).astype("<f4")

    def memories(self, n: int) -> np.ndarray:
        return self._near(self.gen, n, 0.3, 1.0)

    def query(self, text: str) -> np.ndarray:
        """The query vector of ``text``: the same for the same text, on every backend."""
        if text in self.known:
            return self.known[text]
        seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
        return self._near(np.random.default_rng(seed), 1, 0.3, 0.7)[0]


def is_postgres(mem: knotwork.Knotwork) -> bool:
    return "postgres" in type(mem.store).__module__


def hnsw_later(mem: knotwork.Knotwork) -> bool:
    """On PostgreSQL, drop the HNSW index the first vectors made, so the fill writes rows only; True if done.
    :func:`hnsw_build` makes it again over every row at once (as a bulk load would, and much faster than
    one insert at a time into the graph)."""
    if not is_postgres(mem):
        return False
    mem.store._run(f"DROP INDEX IF EXISTS memory_vectors_hnsw_{DIM}")
    return True


MAINTENANCE = ("SET maintenance_work_mem = '4GB'", "SET max_parallel_maintenance_workers = 2")
HNSW_INDEX = (
    f"CREATE INDEX memory_vectors_hnsw_{DIM} ON memory_vectors USING hnsw ((vector::vector({DIM})) vector_cosine_ops)"
    f" WHERE vector_dims(vector) = {DIM}"
)
GIN_INDEX = "CREATE INDEX memories_tsv ON memories USING gin (tsv)"  # as migration 0001 makes it


def build(mem: knotwork.Knotwork, statement: str) -> float:
    """Run a CREATE INDEX with the bulk-build settings on one connection; its seconds."""
    t = time.perf_counter()
    with mem.store._connection() as conn:
        for setting in MAINTENANCE:
            conn.execute(setting)
        conn.execute(statement)
        conn.execute("RESET maintenance_work_mem")
        conn.execute("RESET max_parallel_maintenance_workers")
    return time.perf_counter() - t


def hnsw_build(mem: knotwork.Knotwork) -> float:
    return build(mem, HNSW_INDEX)


def fill_store(mem: knotwork.Knotwork, items: list[dict], vectors: Vectors, bulk: bool, batch: int = 2000) -> tuple[list[str], dict]:
    """The memories and their vectors written through the store, ``batch`` per transaction (``bulk``:
    PostgreSQL's HNSW index made once at the end)."""
    memory_ids: list[str] = []
    dropped = False
    timings: dict[str, float] = {}
    t = time.perf_counter()
    for i in range(0, len(items), batch):
        drafts = [mem._draft(**item) for item in items[i : i + batch]]
        vs = vectors.memories(len(drafts))
        with mem.store.transaction():
            stored = mem.store.insert_memories(drafts)
            for m, v in zip(stored, vs):
                if not m.duplicate:
                    mem.store.put_vectors(m.id, [v.tobytes()])
                    memory_ids.append(m.id)
        if bulk and not dropped:
            dropped = hnsw_later(mem)
        print(f"  {len(memory_ids):,} memories", file=sys.stderr, flush=True)
    timings["rows"] = time.perf_counter() - t
    if dropped:
        timings["hnsw"] = hnsw_build(mem)
        print(f"  HNSW index built in {timings['hnsw']:.0f} s", file=sys.stderr, flush=True)
    return memory_ids, timings


def fill_copy(mem: knotwork.Knotwork, items: list[dict], vectors: Vectors, indexes_after: bool = True) -> tuple[list[str], dict]:
    """PostgreSQL: memories, memory_tags and memory_vectors written with COPY, FAST_BATCH rows per
    transaction, the rows made by the store's own conversion; the GIN and HNSW indexes built after
    (``indexes_after``) or kept through the COPY (to compare)."""
    from pgvector import Vector
    from knotwork.store.postgres.rows import COLUMNS, memory_params

    timings: dict[str, float] = {}
    if indexes_after:
        mem.store._run("DROP INDEX IF EXISTS memories_tsv")
        mem.store._run(f"DROP INDEX IF EXISTS memory_vectors_hnsw_{DIM}")
    else:
        mem.store._run(HNSW_INDEX.replace("CREATE INDEX", "CREATE INDEX IF NOT EXISTS"))
    memory_ids: list[str] = []
    t = time.perf_counter()
    for i in range(0, len(items), FAST_BATCH):
        drafts = [mem._draft(**item) for item in items[i : i + FAST_BATCH]]
        vs = vectors.memories(len(drafts))
        with mem.store.transaction(), mem.store._connection() as conn, conn.cursor() as cur:
            with cur.copy(f"COPY memories ({COLUMNS}) FROM STDIN") as copy:
                for m in drafts:
                    copy.write_row(memory_params(m))
            tags = [(m.workspace or "", m.id, key, value) for m in drafts for key, value in m.tags.items()]
            if tags:
                with cur.copy("COPY memory_tags (workspace, memory_id, key, value) FROM STDIN") as copy:
                    for row in tags:
                        copy.write_row(row)
            with cur.copy("COPY memory_vectors (workspace, memory_id, chunk, vector) FROM STDIN (FORMAT BINARY)") as copy:
                copy.set_types(["text", "text", "int4", "vector"])
                for m, v in zip(drafts, vs):
                    copy.write_row((m.workspace or "", m.id, 0, Vector(v)))
        memory_ids.extend(m.id for m in drafts)
        print(f"  {len(memory_ids):,} memories", file=sys.stderr, flush=True)
    timings["rows"] = time.perf_counter() - t
    if indexes_after:
        timings["gin"] = build(mem, GIN_INDEX)
        print(f"  GIN index built in {timings['gin']:.0f} s", file=sys.stderr, flush=True)
        timings["hnsw"] = hnsw_build(mem)
        print(f"  HNSW index built in {timings['hnsw']:.0f} s", file=sys.stderr, flush=True)
    t = time.perf_counter()
    mem.store._run("ANALYZE")
    timings["analyze"] = time.perf_counter() - t
    return memory_ids, timings


def fill(mem: knotwork.Knotwork, size: int, links: int, rng: random.Random, bulk: bool = False, how: str = "store") -> tuple[list[str], list[dict], dict]:
    """``size`` memories with synthetic vectors and ``links`` random links (see the module's docstring)."""
    items = corpus(size)
    vectors = Vectors()
    if how.startswith("copy") and is_postgres(mem):
        memory_ids, timings = fill_copy(mem, items, vectors, indexes_after=how == "copy")
    else:
        memory_ids, timings = fill_store(mem, items, vectors, bulk, FAST_BATCH if how.startswith("copy") else 2000)
    t = time.perf_counter()
    stamp, made = now(), 0
    kinds = [t for t in LINK_TYPES if t != "supersedes"]
    while made < links:
        with mem.store.transaction():
            for _ in range(min(10_000, links - made)):
                a, b = rng.sample(memory_ids, 2)
                made += not mem.store.insert_link(Relationship(ids.new_id(), a, b, rng.choice(kinds), None, stamp)).existing
        print(f"  {made:,} links", file=sys.stderr, flush=True)
    timings["links"] = time.perf_counter() - t
    return memory_ids, items, timings


def verify(mem: knotwork.Knotwork, size: int, memory_ids: list[str], items: list[dict], vectors: Vectors) -> str:
    """The filled store is a valid one: check() ok, ``size`` memories, exact texts found by search."""
    report = mem.check()
    if not report.ok:
        raise SystemExit(f"check failed: {report.to_dict()}")
    count = mem.store.count_memories()
    if count != size:
        raise SystemExit(f"{count} memories stored, {size} expected")
    picks = random.Random(13).sample(range(len(memory_ids)), 3)
    stored = mem.store.vectors_by_memory([memory_ids[i] for i in picks])
    for i in picks:
        text, workspace = items[i]["content"], items[i]["workspace"]
        vectors.known[text] = np.frombuffer(stored[memory_ids[i]][1][0], dtype="<f4")
        found = [h.memory.id for h in mem.search(text, workspace=workspace, limit=10)]
        if memory_ids[i] not in found:
            raise SystemExit(f"a search for memory {memory_ids[i]}'s exact text did not find it: {found}")
    return f"check ok, {count:,} memories, {len(picks)} exact-text searches found their memory"


def knn_sql(mem: knotwork.Knotwork) -> tuple[str, list]:
    """The store's k-NN statement (vectors.py's first walk) for workspace "api", and its filter's parameters."""
    from knotwork.domain.models import MemoryFilter
    from knotwork.store.postgres.rows import where_sql

    where, params = where_sql(MemoryFilter(workspace="api"), now())
    vec = f"v.vector::vector({DIM})"
    sql = (
        f"WITH near AS (SELECT v.memory_id, {vec} <=> %s AS d FROM memory_vectors v"
        f" WHERE vector_dims(v.vector) = {DIM} ORDER BY {vec} <=> %s LIMIT %s)"
        f" SELECT near.memory_id, 1 - near.d FROM near JOIN memories m ON m.id = near.memory_id WHERE {where}"
        " ORDER BY near.d"
    )
    return sql, params


def explain_knn(mem: knotwork.Knotwork, q: np.ndarray) -> str:
    """EXPLAIN (ANALYZE, BUFFERS) of the k-NN statement as the store runs it (LIMIT 400, hnsw.ef_search 400)."""
    sql, params = knn_sql(mem)
    with mem.store._connection() as conn, conn.transaction():
        conn.execute("SET LOCAL hnsw.ef_search = 400")
        rows = conn.execute("EXPLAIN (ANALYZE, BUFFERS) " + sql, (q, q, 400, *params)).fetchall()
    return "\n".join(re.sub(r"'\[[^]]*\]'::vector", "'[...]'::vector", r[0]) for r in rows)


def knn_alone(mem: knotwork.Knotwork, vectors: Vectors, queries: list[str], ef_values: list[int]) -> dict[int, list[float]]:
    """PostgreSQL: the store's k-NN statement (its first walk, LIMIT 400) alone, at each ``hnsw.ef_search``."""
    sql, params = knn_sql(mem)
    out: dict[int, list[float]] = {}
    with mem.store._connection() as conn:
        for ef in ef_values:
            conn.execute(f"SET hnsw.ef_search = {ef}")
            times = []
            for text in queries:
                q = vectors.query(text)
                t = time.perf_counter()
                conn.execute(sql, (q, q, 400, *params)).fetchall()
                times.append((time.perf_counter() - t) * 1000)
            out[ef] = times
        conn.execute("RESET hnsw.ef_search")
    return out


def timed(calls) -> list[float]:
    out = []
    for call in calls:
        t = time.perf_counter()
        call()
        out.append((time.perf_counter() - t) * 1000)
    return out


def measure(name: str, target: str, args: argparse.Namespace) -> dict[str, object]:
    rate = ingest(target["ingest"], args.ingest)
    ingest_load = load()
    rng = random.Random(11)
    with knotwork.open(target["large"]) as mem:
        t = time.perf_counter()
        memory_ids, items, timings = fill(mem, args.size, args.links, rng, args.bulk, args.fill)
        built = time.perf_counter() - t
    fill_load = load()
    vectors = Vectors()
    t = time.perf_counter()
    with knotwork.open(target["large"]) as mem:  # afresh: nothing cached from the fill
        mem._pipeline.embed_query = vectors.query  # synthetic query vectors (see the module's docstring)
        mem.search("warm up the indexes", workspace="api")
        opened = time.perf_counter() - t
        checked = verify(mem, args.size, memory_ids, items, vectors)
        print(f"  {name}: {checked}", file=sys.stderr, flush=True)
        queries = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 9))) + f" {i}" for i in range(args.queries)]
        stages: dict[str, list[float]] = {}

        def search_one(q: str) -> None:
            mem.search(q, workspace="api", limit=10)
            for stage, _, ms in mem.last_trace.stages if mem.last_trace else ():
                stages.setdefault(stage, []).append(ms)

        search = timed(lambda q=q: search_one(q) for q in queries)
        search_load = load()
        if args.ef_search and is_postgres(mem):
            print(explain_knn(mem, vectors.query(queries[0])), file=sys.stderr, flush=True)
        knn = knn_alone(mem, vectors, queries, args.ef_search) if args.ef_search and is_postgres(mem) else {}
        starts = random.Random(12).sample(memory_ids, args.queries)
        t = time.perf_counter()
        mem.related(starts[0], depth=3)
        first_walk = time.perf_counter() - t
        related = timed(lambda s=s: mem.related(s, depth=3) for s in starts)
    return {
        "backend": name, "ingest": rate, "built": built, "timings": timings, "opened": opened, "checked": checked,
        "search": search, "stages": stages, "knn": knn, "first_walk": first_walk, "related": related,
        "loads": {"ingest": ingest_load, "fill": fill_load, "search": search_load, "end": load()},
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
    parser.add_argument(
        "--fill", choices=("store", "copy", "copy-indexed"), default="store",
        help="store: through the store, 2,000 memories per transaction; copy (large sizes): PostgreSQL's COPY with"
        " the GIN and HNSW indexes built after, SQLite's store in transactions of 20,000; copy-indexed: COPY into"
        " the indexed tables (to compare)",
    )
    parser.add_argument(
        "--ef-search", type=lambda text: [int(x) for x in text.split(",") if x], default=[],
        help="PostgreSQL: also time the k-NN statement alone at these hnsw.ef_search values (comma list)",
    )
    parser.add_argument("--shared-buffers", help="shared_buffers of the server started here (e.g. 3GB; default: the server's)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        server = None
        if args.postgres:
            pg_url = args.postgres
        else:
            import pgserver

            import psycopg

            if args.shared_buffers:  # set, then the server restarted to take it
                server = pgserver.get_server(Path(tmp) / "pg", cleanup_mode="stop")
                with psycopg.connect(server.get_uri(), autocommit=True) as conn:
                    conn.execute(f"ALTER SYSTEM SET shared_buffers = '{args.shared_buffers}'")
                server.cleanup()
            server = pgserver.get_server(Path(tmp) / "pg", cleanup_mode="delete")
            pg_url = server.get_uri()
        import psycopg

        with psycopg.connect(pg_url, autocommit=True) as conn:
            print(f"  PostgreSQL shared_buffers {conn.execute('SHOW shared_buffers').fetchone()[0]}", file=sys.stderr, flush=True)

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
        results = []
        for name, target in targets.items():
            if any(name.lower().startswith(w) for w in wanted):
                results.append(measure(name, target, args))
                print(report([results[-1]], args), file=sys.stderr, flush=True)
        if server is not None:
            server.cleanup()
    print(report(results, args))


def report(results: list[dict], args: argparse.Namespace) -> str:
    lines = [
        f"\n{args.size:,} memories (clustered synthetic vectors, fill: {args.fill}), {args.links:,} links,"
        f" {args.queries} queries; ingest of {args.ingest}",
        "| backend | ingest memories/s | build s | open + first search s | search p50 ms | search p95 ms | first walk s"
        " | related(3) p50 ms | related(3) p95 ms | load after search |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in results:
        s, w = r["search"], r["related"]
        lines.append(
            f"| {r['backend']} | {r['ingest']:.0f} | {r['built']:.0f} | {r['opened']:.1f} | {statistics.median(s):.1f}"
            f" | {percentile(s, 0.95):.1f} | {r['first_walk']:.2f} | {statistics.median(w):.2f} | {percentile(w, 0.95):.2f}"
            f" | {r['loads']['search']} |"
        )
    for r in results:
        parts = ", ".join(f"{k} {v:.0f} s" for k, v in r["timings"].items())
        loads = "; ".join(f"{k} {v}" for k, v in r["loads"].items())
        lines.append(f"\n{r['backend']}: build = {parts}; {r['checked']}; load averages after {loads}")
        for stage, times in r["stages"].items():
            lines.append(
                f"{r['backend']}: search stage {stage}: p50 {statistics.median(times):.1f} ms, p95 {percentile(times, 0.95):.1f} ms"
            )
        for ef, times in r["knn"].items():
            lines.append(
                f"{r['backend']}: k-NN statement alone, hnsw.ef_search = {ef}: p50 {statistics.median(times):.1f} ms,"
                f" p95 {percentile(times, 0.95):.1f} ms"
            )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
