"""Ingest speed with the knowledge graph: short memories, offline extraction and embeddings on.

    python bench/kg_ingest.py [--count 2000] [--batch 100] [--singles 200] [--embedder minilm]

Reports memories/s for ``add_many`` in batches and for single ``add`` calls,
with extraction on (the default) and off (``KNOTWORK_KG_EXTRACT=none``), and
the graph's size afterwards.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path

import knotwork
from knotwork import Settings

MODULES = ["ReportsModule", "BillingService", "auth_client", "UserStore", "search.pipeline", "CacheLayer", "export_job"]
TECH = ["Redis", "Postgres", "Kafka", "Django", "React", "Docker", "Celery", "SQLite", "FastAPI", "Terraform"]
PEOPLE = ["Sarah", "Tom Becker", "Priya", "Lena Fischer", "Omar", "Chen Wei"]
PLACES = ["Berlin", "Lisbon", "Boston", "Denver", "Tokyo", "Oslo"]
TEMPLATES = [
    "The {m} uses {t} for caching results.",
    "We moved from {t} to {t2} last sprint.",
    "{m} depends on {t} and src/{f}/api.py.",
    "Call parse_{f}() before load_{f}(); see docs/{f}.md.",
    "I prefer {t} over {t2} for local dev.",
    "My sister {p} lives in {pl}.",
    "{p} works at {c} now.",
    "I live in {pl} since March.",
    "Upgraded {t} to {v} and the tests pass.",
    "Ping @{h} about #{f}-release before Friday.",
    "Remember to run the migrations before deploying the {f} service.",
    "The standup moved to 10am on Tuesdays.",
]
COMPANIES = ["Acme Corp", "Globex", "Initech", "Umbrella Labs"]


def corpus(n: int, seed: int = 11) -> list[dict]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        t, t2 = rng.sample(TECH, 2)
        text = rng.choice(TEMPLATES).format(
            m=rng.choice(MODULES), t=t, t2=t2, f=rng.choice(["billing", "search", "auth", "reports"]) + str(i % 40),
            p=rng.choice(PEOPLE), pl=rng.choice(PLACES), c=rng.choice(COMPANIES), v=f"{rng.randint(1, 6)}.{rng.randint(0, 9)}",
            h=rng.choice(["alice", "bob", "carol"]),
        )
        out.append({"content": f"{text} (note {i})", "workspace": rng.choice([None, "shop"]),
                    "valid_at": f"2026-{1 + i % 12:02d}-{1 + i % 27:02d}"})
    return out


def run(items: list[dict], singles: list[dict], batch: int, settings: Settings) -> tuple[float, float, float, dict]:
    with tempfile.TemporaryDirectory() as tmp, knotwork.open(Path(tmp) / "bench.db", settings=settings) as mem:
        mem.add("warm up the model", workspace="warm")
        start, cpu = time.perf_counter(), time.process_time()
        for i in range(0, len(items), batch):
            mem.add_many(items[i : i + batch], consolidate=False, force=True)
        mem.wait_for_extraction()  # the graph is this bench's measure: counted until it is read in
        bulk = len(items) / (time.perf_counter() - start)
        per_cpu = len(items) / (time.process_time() - cpu)
        start = time.perf_counter()
        for item in singles:
            mem.add(**item)
        mem.wait_for_extraction()
        single = len(singles) / (time.perf_counter() - start)
        conn = mem.store._conn
        size = {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("entities", "facts", "entity_mentions")}
    return bulk, single, per_cpu, size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--batch", type=int, default=100)
    parser.add_argument("--singles", type=int, default=200)
    parser.add_argument("--embedder", default="minilm")
    args = parser.parse_args()
    items = corpus(args.count + args.singles)
    bulk_items, singles = items[: args.count], items[args.count :]
    print("| extraction | add_many memories/s | add_many memories per CPU-second | single add memories/s | entities | facts | mentions |")
    print("|---|---|---|---|---|---|---|")
    for mode in ("rules", "none"):
        bulk, single, per_cpu, size = run(bulk_items, singles, args.batch, Settings(embedder=args.embedder, kg_extract=mode))
        print(f"| {mode} | {bulk:,.0f} | {per_cpu:,.0f} | {single:,.0f} | {size['entities']} | {size['facts']} | {size['entity_mentions']} |")


if __name__ == "__main__":
    main()
