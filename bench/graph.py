"""Graph traversal speed on a large store.

    python bench/graph.py [--memories 100000] [--links 300000] [--queries 300] [--store PATH]

Builds a store of N memories and M random typed links (fixed seed), then
times ``related(depth=3)`` and ``graph(max_depth=3, max_nodes=100)`` from
random start memories. Targets: related p95 <= 10 ms, graph p95 <= 20 ms.

Wall-clock percentiles depend on what else runs on the machine, so each
operation is also timed in CPU time of the calling thread, and the load
average is printed. The first walk loads every link into memory
(graph/adjacency.py); it is timed on its own and left out of the percentiles.

``--store PATH`` keeps the built store at PATH and reuses it on later runs
(built with the same counts; the start memories are the same either way).
"""

from __future__ import annotations

import argparse
import os
import random
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

import knotwork
from knotwork.domain import ids
from knotwork.domain.models import LINK_TYPES, Relationship
from knotwork.domain.temporal import now


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def build(mem: knotwork.Knotwork, args: argparse.Namespace, rng: random.Random) -> str:
    """Fill ``mem`` with the memories and random links; returns how long each part took."""
    t0 = time.perf_counter()
    memory_ids: list[str] = []
    for start in range(0, args.memories, 5000):
        batch = [{"content": f"memory {i} about topic {i % 997}"} for i in range(start, min(args.memories, start + 5000))]
        memory_ids += [m.id for m in mem.add_many(batch, consolidate=False, force=True)]
    mem.wait_for_extraction()  # the graph's enrichment runs after the add: done before anything is timed
    build_memories = time.perf_counter() - t0

    t0 = time.perf_counter()
    stamp = now()
    made = 0
    # Links go straight to the store: the service's per-link checks are not what is measured here.
    with mem.store.transaction():
        while made < args.links:
            a, b = rng.sample(memory_ids, 2)
            rel = Relationship(ids.new_id(), a, b, rng.choice([t for t in LINK_TYPES if t != "supersedes"]), None, stamp)
            made += not mem.store.insert_link(rel).existing
    build_links = time.perf_counter() - t0
    return f"{args.memories} memories ({build_memories:.1f} s), {args.links} links ({build_links:.1f} s)"


def stored_ids(path: Path) -> list[str]:
    """The memory ids of a built store, in the order they were added ([] when there is none yet)."""
    if not path.exists():
        return []
    with sqlite3.connect(path) as conn:
        return [r[0] for r in conn.execute("SELECT id FROM memories ORDER BY rowid")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--links", type=int, default=300_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--store", type=Path, help="keep the built store here and reuse it on later runs")
    args = parser.parse_args()
    rng = random.Random(11)

    # Traversal touches no vectors: embeddings are off so building 100k memories takes seconds.
    settings = knotwork.Settings(embedder="none")
    with tempfile.TemporaryDirectory() as tmp:
        path = args.store or Path(tmp) / "graph.db"
        reused = stored_ids(path)
        if reused and len(reused) != args.memories:
            raise SystemExit(f"{path} holds {len(reused)} memories, not {args.memories}: pass another --store")
        with knotwork.open(path, settings=settings) as mem:
            built = f"reused {path}" if reused else build(mem, args, rng)
            memory_ids = reused or stored_ids(path)
            run(mem, memory_ids, args, built)


def run(mem: knotwork.Knotwork, memory_ids: list[str], args: argparse.Namespace, built: str) -> None:
    """Time the walks from random start memories and print the table."""
    starts = random.Random(12).sample(memory_ids, args.queries)
    t = time.perf_counter()
    mem.related(starts[0], depth=3)  # loads the links: excluded from the percentiles
    first_walk = time.perf_counter() - t
    related_ms, graph_ms, related_cpu, graph_cpu, reached, nodes = [], [], [], [], [], []
    for s in starts:
        t, c = time.perf_counter(), time.thread_time()
        out = mem.related(s, depth=3)
        related_ms.append((time.perf_counter() - t) * 1000)
        related_cpu.append((time.thread_time() - c) * 1000)
        reached.append(len(out))
        t, c = time.perf_counter(), time.thread_time()
        g = mem.graph(s, max_depth=3, max_nodes=100)
        graph_ms.append((time.perf_counter() - t) * 1000)
        graph_cpu.append((time.thread_time() - c) * 1000)
        nodes.append(len(g.nodes))

    print(f"store: {built}; first walk (loads the links) {first_walk:.2f} s;"
          f" load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("| operation | p50 ms | p95 ms | CPU p50 ms | CPU p95 ms | mean (p95) result size | target p95 |")
    print("|---|---|---|---|---|---|---|")
    for name, wall, cpu, size, target in (
        ("related(depth=3)", related_ms, related_cpu, f"{statistics.mean(reached):.0f} ({percentile(reached, 0.95)}) memories", "10 ms"),
        ("graph(max_depth=3, max_nodes=100)", graph_ms, graph_cpu, f"{statistics.mean(nodes):.0f} nodes", "20 ms"),
    ):
        print(f"| {name} | {statistics.median(wall):.2f} | {percentile(wall, 0.95):.2f} |"
              f" {statistics.median(cpu):.2f} | {percentile(cpu, 0.95):.2f} | {size} | {target} |")


if __name__ == "__main__":
    main()
