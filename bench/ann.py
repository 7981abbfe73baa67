"""Approximate (HNSW) against exact vector search on a real SQLite file: recall@10 and latency by size.

Fills a SQLite store with ``--sizes`` memories of synthetic clustered 384-d
vectors (bench/backends.py's ``Vectors``: 2000 centroids, good for speed, not
for quality), spread over ten workspaces, then asks the same queries of the
exact scan (``vector_ann_min_rows = 0``) and of the HNSW graph (forced on),
over the whole store and within one workspace (a tenth of the rows). Reports
recall@k of the graph against the exact top k (``--ks``: 10, and 200, what
the default recipe's vector source asks the index for), p50/p95 of each, the
graph's build time (in its thread, from the first search past the threshold,
which the exact scan answers meanwhile; that search's own time is reported
too) and its reload time from the file, and which of the two the default
threshold (``Settings().vector_ann_min_rows``) picks for that scope, and the process CPU time per
search of each (it moves much less than wall time on a shared machine).

    flock /tmp/knotwork-bench.lock .venv/bin/python bench/ann.py --sizes 10000 100000
    nice -n 10 .venv/bin/python bench/ann.py --sizes 10000 100000 --lock   # the lock for the queries only

``--lock`` fills the store and builds the graph without the shared
benchmark lock (they take minutes on a busy machine and are not the
figure) and takes it (``flock``) only around the timed queries: run it
unwrapped, at a low priority. ``--keep DIR`` keeps each filled store (and
its graph file) in DIR and reuses it on the next run.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from backends import DIM, Vectors  # noqa: E402
from scale import bench_lock  # noqa: E402

from knotwork import ALL_WORKSPACES, Settings  # noqa: E402
from knotwork.app import open_store  # noqa: E402
from knotwork.search.ann_index import AnnIndex  # noqa: E402
from knotwork.search.vector_index import VectorIndex  # noqa: E402
from knotwork.service import Knotwork  # noqa: E402


def fill(path: Path, n: int, vectors: Vectors, batch: int = 5000) -> None:
    mem = Knotwork(open_store(str(path), Settings(synchronous="normal")), Settings(), embedder=None)
    try:
        for i in range(0, n, batch):
            drafts = [mem._draft(content=f"memory {j}", workspace=f"w{j % 10}") for j in range(i, min(n, i + batch))]
            vs = vectors.memories(len(drafts))
            with mem.store.transaction():
                for m, v in zip(mem.store.insert_memories(drafts), vs):
                    mem.store.put_vectors(m.id, [v.tobytes()])
    finally:
        mem.close()


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(values, q))


def run(size: int, queries: int, ks: list[int], lock: bool = False, keep: Path | None = None) -> dict[str, object]:
    vectors = Vectors()
    with tempfile.TemporaryDirectory() as tmp:
        path = (keep or Path(tmp)) / f"ann-{size}.db"
        t = time.perf_counter()
        reused = path.exists()  # a kept store: its graph file is read back, not built
        if not reused:
            fill(path, size, vectors)
        fill_s = time.perf_counter() - t
        store = open_store(str(path), Settings())
        index = VectorIndex(store, DIM, ann_path=store.ann_file(), ann_min_rows=1, model="bench")
        index.sync()
        t = time.perf_counter()
        index.search(vectors.query("first"), ks[0], ALL_WORKSPACES)  # starts the build; the scan answers
        first_ms = (time.perf_counter() - t) * 1000
        assert index.wait_for_ann()
        build_s = time.perf_counter() - t
        t = time.perf_counter()
        assert AnnIndex(store.ann_file(), DIM, "bench").load(store.vector_marks()[0])  # the file is read back whole
        reload_s = time.perf_counter() - t
        qs = [vectors.query(f"query {i}") for i in range(queries)]
        out: dict[str, object] = {
            "size": size, "fill_s": fill_s, "build_s": build_s, "reload_s": reload_s, "first_ms": first_ms, "reused": reused,
        }
        default = Settings().vector_ann_min_rows
        with bench_lock() if lock else contextlib.nullcontext():
            measure(index, qs, ks, size, default, out)
        store.close()
    return out


def measure(index: VectorIndex, qs: list[np.ndarray], ks: list[int], size: int, default: int, out: dict) -> None:
    for k in ks:
        for scope, ws in (("all", ALL_WORKSPACES), ("one workspace", "w3")):
            times: dict[str, list[float]] = {"exact": [], "ann": []}
            cpu: dict[str, float] = {"exact": 0.0, "ann": 0.0}
            recalls = []
            for q in qs:
                got = {}
                for name, min_rows in (("exact", 0), ("ann", 1)):
                    index.ann_min_rows = min_rows
                    t, c = time.perf_counter(), time.process_time()
                    got[name] = [h.memory_id for h in index.search(q, k, ws)]
                    times[name].append((time.perf_counter() - t) * 1000)
                    cpu[name] += time.process_time() - c
                recalls.append(len(set(got["exact"]) & set(got["ann"])) / k)
            scope_rows = size if ws == ALL_WORKSPACES else size // 10
            out[(k, scope)] = {
                "recall": float(np.mean(recalls)),
                "default": "graph" if default and scope_rows >= default else "scan",
                # process CPU per search: moves much less than wall time on a shared machine
                **{f"{n}_cpu": c / len(qs) * 1000 for n, c in cpu.items()},
                **{f"{n}_p{p}": percentile(v, p) for n, v in times.items() for p in (50, 95)},
            }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--ks", default="10,200", help="k values, comma list (recall@k against the exact top k)")
    parser.add_argument("--lock", action="store_true", help="take the shared benchmark lock around the timed queries only")
    parser.add_argument("--keep", type=Path, help="keep each filled store (and its graph) in this folder, and reuse it")
    args = parser.parse_args()
    ks = [int(k) for k in args.ks.split(",")]
    print(f"load before: {os.getloadavg()}; default threshold {Settings().vector_ann_min_rows:,} vectors", flush=True)
    print("| vectors | scope | k | recall@k | exact p50 / p95 ms | HNSW p50 / p95 ms | exact / HNSW CPU ms per search |"
          " default answers by | graph build s (first search ms) | reload s |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for size in args.sizes:
        r = run(size, args.queries, ks, args.lock, args.keep)
        for k in ks:
            for scope in ("all", "one workspace"):
                s = r[(k, scope)]
                print(
                    f"| {size:,} | {scope} | {k} | {s['recall']:.3f} | {s['exact_p50']:.2f} / {s['exact_p95']:.2f} |"
                    f" {s['ann_p50']:.2f} / {s['ann_p95']:.2f} | {s['exact_cpu']:.2f} / {s['ann_cpu']:.2f} | {s['default']} | {'read: ' if r['reused'] else ''}{r['build_s']:.1f} ({r['first_ms']:.0f}) |"
                    f" {r['reload_s']:.1f} |",
                    flush=True,
                )
    print(f"load after: {os.getloadavg()}", flush=True)


if __name__ == "__main__":
    main()
