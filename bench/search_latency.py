"""Search latency on a large store: ``search`` p50/p95 per recipe, query embedding included.

Builds (once, cached as bench/.cache/latency-<size>.db) a store of ``--size``
generated memories with the bundled embedder, the same generator as
bench/ingest.py (12-40 words of an engineering vocabulary, workspaces,
categories, tags, artifacts, evidence), then times ``--queries`` distinct
searches in one workspace. Every query is new, so none is served from the
query-vector cache: each timing includes embedding the query.

    .venv/bin/python bench/search_latency.py --size 100000

With ``KNOTWORK_SEARCH_ANSWERABLE=true`` each search is judged by the answerable rule; the workspace's
baseline (search/baseline.py: one search per off-topic probe) is forgotten first, so the first search of
each recipe pays it when the weights read it (printed apart), the baseline's own cost is timed once more, and
the percentiles show what every later search pays.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ingest import WORDS, corpus  # noqa: E402

import knotwork  # noqa: E402

CACHE = Path(__file__).resolve().parent / ".cache"


def build(path: Path, size: int, batch: int = 2000) -> float:
    tmp = path.with_suffix(".tmp.db")
    for leftover in (tmp, Path(f"{tmp}-wal"), Path(f"{tmp}-shm")):
        leftover.unlink(missing_ok=True)
    start = time.perf_counter()
    with knotwork.open(tmp) as mem:
        items = corpus(size)
        for i in range(0, size, batch):
            mem.add_many(items[i : i + batch], consolidate=False, force=True)
            print(f"  {i + batch:,} memories, {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
        mem.wait_for_extraction()  # the graph's enrichment runs after the add: the store is whole before it is used
    os.replace(tmp, path)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--recipe", default="memory_hybrid,memory_bm25,memory_vector")
    args = parser.parse_args()
    CACHE.mkdir(exist_ok=True)
    path = CACHE / f"latency-{args.size}.db"
    if not path.exists():
        print(f"building {path} ...", file=sys.stderr)
        print(f"built in {build(path, args.size):.0f} s", file=sys.stderr)
    rng = random.Random(11)
    queries = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 9))) + f" {i}" for i in range(args.queries)]
    with knotwork.open(path) as mem:
        if mem.index is not None:
            mem.index.sync()
        vectors = len(mem.index) if mem.index is not None else 0
        print(f"{mem.store.count_memories():,} memories, {vectors:,} vectors; load average {os.getloadavg()[0]:.1f}")
        print("| recipe | p50 ms | p95 ms | mean hits |\n|---|---|---|---|")
        firsts = []
        for recipe in args.recipe.split(","):
            if mem.settings.search_answerable:
                from knotwork.search.baseline import META_KEY

                mem.store.set_meta(META_KEY + "api", "")  # forgotten: the first search computes it again
                mem.__dict__.pop("_baselines", None)
            t = time.perf_counter()
            mem.search("warm up the caches", workspace="api", recipe=recipe)
            firsts.append(f"{recipe} {(time.perf_counter() - t) * 1000:.0f} ms")
            times, hits = [], []
            for q in queries:
                if mem.embedder is not None:
                    mem.embedder.query_cache.clear()
                t = time.perf_counter()
                found = mem.search(q, workspace="api", recipe=recipe)
                times.append((time.perf_counter() - t) * 1000)
                hits.append(len(found))
            print(f"| {recipe} | {np.percentile(times, 50):.1f} | {np.percentile(times, 95):.1f} | {np.mean(hits):.1f} |")
        computed = getattr(mem.__dict__.get("_baselines"), "computed", 0)
        print(f"first search (caches cold{', baseline computed' if computed else ''}): {', '.join(firsts)}")
        if mem.settings.search_answerable:  # what a workspace's first search pays when the weights read the baseline
            t = time.perf_counter()
            mem._baselines._compute("api", mem.store.count_memories())
            print(f"baseline of a workspace ({len(mem._baselines.probes)} probe searches, default recipe): "
                  f"{(time.perf_counter() - t) * 1000:.0f} ms, once per workspace (kept in the store)")
        print(f"load average at end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
