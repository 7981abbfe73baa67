"""Which vector index: exact NumPy scan against HNSW (hnswlib, usearch) and sqlite-vec.

Measures, on real MiniLM vectors, what knotwork's vector source needs: the
top ``k`` chunks for one query (k = 800: the pipeline asks for 200 memories
and over-fetches chunks 4x), at the sizes one machine's memory store reaches.

Vectors: the LongMemEval pool's turn and passage vectors that
``bench/longmemeval.py`` caches in bench/.cache (run it once first), grown to
``--size`` by adding noisy copies (Gaussian noise, re-normalised) when the
pool holds fewer. Queries: the 500 LongMemEval questions.

    .venv/bin/python bench/vector_index.py --size 100000

The ANN libraries are not knotwork dependencies: ``pip install usearch
hnswlib sqlite-vec`` to include them; a missing one is skipped.
"""

from __future__ import annotations

import argparse
import gc
import os
import sqlite3
import time
from pathlib import Path

import numpy as np

CACHE = Path(__file__).resolve().parent / ".cache"


def load_vectors(size: int, seed: int = 7) -> np.ndarray:
    files = sorted(CACHE.glob("longmemeval-*.npy"))
    if not files:
        raise SystemExit("no cached vectors: run bench/longmemeval.py first")
    base = np.vstack([np.load(f) for f in files]).astype(np.float32)
    if len(base) >= size:
        return np.ascontiguousarray(base[:size])
    rng = np.random.default_rng(seed)
    extra = base[rng.integers(0, len(base), size - len(base))]
    extra = extra + rng.normal(0, 0.03, extra.shape).astype(np.float32)
    extra /= np.linalg.norm(extra, axis=1, keepdims=True)
    return np.ascontiguousarray(np.vstack([base, extra]))


def queries() -> np.ndarray:
    from knotwork.embed import make_embedder

    import gzip
    import json

    data = Path(__file__).resolve().parents[2] / "shared" / "data" / "longmemeval_oracle.json.gz"
    with gzip.open(data, "rt") as fh:
        texts = [q["question"] for q in json.load(fh)]
    return make_embedder(None).embed(texts)


def timed(fn, qs: np.ndarray) -> tuple[list[np.ndarray], float, float]:
    fn(qs[0])  # warm-up
    out, times = [], []
    for q in qs:
        t = time.perf_counter()
        out.append(fn(q))
        times.append((time.perf_counter() - t) * 1000)
    return out, float(np.percentile(times, 50)), float(np.percentile(times, 95))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--k", type=int, default=800)
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    X = load_vectors(args.size)
    Q = queries()[: args.queries]
    k = args.k
    print(f"{len(X)} vectors of {X.shape[1]} floats; {len(Q)} queries; k={k}; load {os.getloadavg()[0]:.1f}")

    def exact(q: np.ndarray) -> np.ndarray:
        s = X @ q
        top = np.argpartition(-s, k - 1)[:k]
        return top[np.argsort(-s[top])]

    truth, p50, p95 = timed(exact, Q)
    rows = [("numpy exact (knotwork)", 0.0, p50, p95, 1.0)]

    def recall(found: list[np.ndarray]) -> float:
        return float(np.mean([len(set(map(int, f)) & set(map(int, t))) / k for f, t in zip(found, truth)]))

    try:
        import hnswlib

        t = time.perf_counter()
        index = hnswlib.Index(space="ip", dim=X.shape[1])
        index.init_index(max_elements=len(X), ef_construction=200, M=16)
        index.add_items(X, np.arange(len(X)), num_threads=2)
        build = time.perf_counter() - t
        index.set_ef(max(k, 200))
        index.set_num_threads(1)
        found, p50, p95 = timed(lambda q: index.knn_query(q, k=k)[0][0], Q)
        rows.append(("hnswlib M=16 ef=k", build, p50, p95, recall(found)))
        del index
        gc.collect()
    except ImportError:
        print("hnswlib not installed: skipped")

    try:
        from usearch.index import Index

        t = time.perf_counter()
        index = Index(ndim=X.shape[1], metric="ip", dtype="f32", connectivity=16, expansion_add=128, expansion_search=max(k, 64))
        index.add(np.arange(len(X)), X, threads=2)
        build = time.perf_counter() - t
        found, p50, p95 = timed(lambda q: index.search(q, k, threads=1).keys, Q)
        rows.append(("usearch M=16", build, p50, p95, recall(found)))
        del index
        gc.collect()
    except ImportError:
        print("usearch not installed: skipped")

    try:
        import sqlite_vec

        db = sqlite3.connect(":memory:")
        if not hasattr(db, "enable_load_extension"):
            raise ImportError("this Python's sqlite3 cannot load extensions")
        db.enable_load_extension(True)
        sqlite_vec.load(db)
        t = time.perf_counter()
        db.execute(f"CREATE VIRTUAL TABLE v USING vec0(embedding float[{X.shape[1]}] distance_metric=cosine)")
        db.executemany("INSERT INTO v(rowid, embedding) VALUES (?, ?)", ((i, X[i].tobytes()) for i in range(len(X))))
        build = time.perf_counter() - t
        sql = f"SELECT rowid FROM v WHERE embedding MATCH ? AND k = {k} ORDER BY distance"
        found, p50, p95 = timed(lambda q: np.array([r[0] for r in db.execute(sql, (q.tobytes(),))]), Q)
        rows.append(("sqlite-vec vec0 (exact)", build, p50, p95, recall(found)))
    except ImportError as exc:
        print(f"sqlite-vec skipped: {exc}")

    print(f"| index | build s | p50 ms | p95 ms | recall@{k} |\n|---|---|---|---|---|")
    for name, build, p50, p95, rec in rows:
        print(f"| {name} | {build:.1f} | {p50:.2f} | {p95:.2f} | {rec:.3f} |")
    print(f"load average at end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
