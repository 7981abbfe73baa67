"""What a knowledge-graph miss that says where to look costs: entity and fact searches that find their answer in
the workspace asked, next to the same searches asked of the global scope, where they find nothing and then look
in every other workspace (``views/elsewhere.py``), in the same process.

    python bench/graph_misses.py [--workspaces 10] [--per 100] [--queries 100] [--embedder none]

The store: ``--workspaces`` × ``--per`` memories, each stating one fact with the caller's ``facts=`` (a
person works on a project; names made up, distinct per workspace), read into the graph inline. The queries:
person names, each asked of its own workspace (a hit) and of the global scope (a miss that names the one
workspace holding it). Reported: p50 / p95 ms of each, the miss/hit ratio, and the load average.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import knotwork
from knotwork import Settings
from knotwork.views import elsewhere

FIRST = ["Ada", "Bruno", "Chiara", "Dmitri", "Elif", "Farid", "Greta", "Hugo", "Ines", "Jonas", "Kofi", "Lena"]
LAST = ["Moreau", "Keller", "Rossi", "Novak", "Demir", "Haddad", "Berg", "Lindqvist", "Costa", "Weber"]


def person(w: int, i: int) -> str:
    return f"{FIRST[i % len(FIRST)]} {LAST[(i // len(FIRST)) % len(LAST)]}{w}x{i}"


def build(path: Path, workspaces: int, per: int, embedder: str) -> None:
    with knotwork.open(path, settings=Settings(embedder=embedder, enrich="inline")) as mem:
        for w in range(workspaces):
            mem.add_many([
                {"content": f"{person(w, i)} works on project Orbit{w}x{i % 7}.", "workspace": f"ws{w}",
                 "facts": [{"subject": person(w, i), "predicate": "works on", "object": f"Orbit{w}x{i % 7}"}]}
                for i in range(per)
            ])


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workspaces", type=int, default=10)
    ap.add_argument("--per", type=int, default=100)
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--embedder", default="none", help="'none' (BM25 only) or the bundled model's name")
    args = ap.parse_args()
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "misses.db"
        t0 = time.perf_counter()
        build(db, args.workspaces, args.per, args.embedder)
        built = time.perf_counter() - t0
        with knotwork.open(db, settings=Settings(embedder=args.embedder)) as mem:
            asks = [(q % args.workspaces, (q * 7) % args.per) for q in range(args.queries)]
            for op in ("search_nodes", "search_facts"):
                search = getattr(elsewhere, op)
                search(mem, person(0, 0), workspace="ws0")  # warm the indexes of both paths
                search(mem, person(0, 0))
                hit_ms: list[float] = []
                miss_ms: list[float] = []
                for w, i in asks:
                    name = person(w, i)
                    t = time.perf_counter()
                    found = search(mem, name, workspace=f"ws{w}")
                    hit_ms.append((time.perf_counter() - t) * 1000)
                    assert found and not found.elsewhere, (op, name)
                    t = time.perf_counter()
                    missed = search(mem, name)
                    miss_ms.append((time.perf_counter() - t) * 1000)
                    assert not missed and f"ws{w}" in missed.elsewhere, (op, name, missed.elsewhere)
                print(f"{op}: hit p50 {statistics.median(hit_ms):.1f} ms p95 {pct(hit_ms, 0.95):.1f} ms | "
                      f"miss+elsewhere p50 {statistics.median(miss_ms):.1f} ms p95 {pct(miss_ms, 0.95):.1f} ms | "
                      f"p50 ratio {statistics.median(miss_ms) / statistics.median(hit_ms):.1f}x")
    print(f"store: {args.workspaces} workspaces x {args.per} memories, built in {built:.1f} s; embedder {args.embedder}; "
          f"load {load_before:.1f} -> {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    sys.exit(main())
