"""Ingest speed: ``add_many`` throughput and single ``add`` latency on a fresh SQLite file.

    python bench/ingest.py [--count 10000] [--batch 1000] [--singles 1000] [--without-similar] [--raw]

Both calls consolidate by default, as a caller's would; ``--raw`` loads with ``consolidate=False,
force=True`` (store as given) to show what consolidation costs.

``--without-similar`` turns off the upkeep of similar lists (the nearest
memories of each memory), to measure what it costs.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

import knotwork
from knotwork.services.similar import SimilarLists

WORDS = (
    "deploy cache redis postgres schema migration api endpoint token budget release rollback "
    "test fixture lint format python rust service queue worker retry timeout config secret "
    "review decision prefer always never because team customer invoice report dashboard"
).split()


def corpus(n: int, seed: int = 7) -> list[dict]:
    rng = random.Random(seed)
    items = []
    for i in range(n):
        words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(12, 40)))
        items.append(
            {
                "content": f"Memory {i}: {words}.",
                "workspace": rng.choice([None, "api", "web"]),
                "category": rng.choice(["decision", "fact", "preference", "lesson"]),
                "tags": {"team": rng.choice(["core", "infra"]), "n": str(i % 10)},
                "artifacts": [f"src/module_{i % 50}.py"],
                "evidence": [f"PR-{i % 300}"],
            }
        )
    return items


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--batch", type=int, default=1_000)
    parser.add_argument("--singles", type=int, default=1_000)
    parser.add_argument("--without-similar", action="store_true", help="skip the upkeep of similar lists")
    parser.add_argument("--raw", action="store_true", help="consolidate=False, force=True: store as given")
    parser.add_argument("--synchronous", choices=("full", "normal"), default="full", help="durability (KNOTWORK_SYNCHRONOUS)")
    parser.add_argument("--embedder", default=None, help="KNOTWORK_EMBEDDER for the run (none: no model)")
    args = parser.parse_args()

    hygiene = {"consolidate": False, "force": True} if args.raw else {}
    items = corpus(args.count + args.singles)
    bulk, singles = items[: args.count], items[args.count :]
    with tempfile.TemporaryDirectory() as tmp:
        settings = knotwork.Settings(synchronous=args.synchronous, **({"embedder": args.embedder} if args.embedder else {}))
        with knotwork.open(Path(tmp) / "bench.db", settings=settings) as mem:
            if args.without_similar:
                mem.writes.similar = mem._similar = SimilarLists(mem.store, None)  # the lists' no-op form (as without an embedder)
            upkeep = [0.0]
            refresh = mem.writes.similar.refresh

            def timed_refresh(*a, **kw):
                t = time.perf_counter()
                refresh(*a, **kw)
                upkeep[0] += time.perf_counter() - t

            mem.writes.similar.refresh = timed_refresh
            start = time.perf_counter()
            for i in range(0, len(bulk), args.batch):
                mem.add_many(bulk[i : i + args.batch], **hygiene)
            bulk_s = time.perf_counter() - start
            bulk_upkeep = upkeep[0]

            latencies, upkeeps = [], []
            for item in singles:
                t, before = time.perf_counter(), upkeep[0]
                mem.add(**item, **hygiene)
                latencies.append((time.perf_counter() - t) * 1000)
                upkeeps.append((upkeep[0] - before) * 1000)
            latencies.sort()
            total = mem.store.count_memories()

    p50 = statistics.median(latencies)
    p95 = latencies[int(0.95 * (len(latencies) - 1))]
    print(f"| measure | value |\n|---|---|")
    print(f"| similar lists | {'off' if args.without_similar else 'kept'} |")
    print(f"| consolidation and store/ignore rules | {'off (--raw)' if args.raw else 'on'} |")
    print(f"| durability (synchronous), embedder | {args.synchronous}, {args.embedder or 'default'} |")
    print(f"| add_many: {args.count} memories, batches of {args.batch} | {bulk_s:.2f} s, {args.count / bulk_s:,.0f} memories/s |")
    print(f"| of which similar-list upkeep (add_many) | {bulk_upkeep:.2f} s ({100 * bulk_upkeep / bulk_s:.1f}%) |")
    print(f"| add: {args.singles} single calls on a {args.count}-memory store | p50 {p50:.2f} ms, p95 {p95:.2f} ms |")
    print(f"| of which similar-list upkeep (add) | p50 {statistics.median(upkeeps):.2f} ms |")
    print(f"| memories stored | {total} |")


if __name__ == "__main__":
    main()
