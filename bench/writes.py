"""Writes against the model: add_many and a single add over their own embedding time, and the enrichment backlog.

Three measures on LongMemEval turns (``/work/shared/data/longmemeval_oracle.json.gz`` by default), each
with its baseline taken in the same run, rounds alternating so that a shared machine's load falls on both:

- **batch**: the embedder alone on every chunk of ``--batch-turns`` turns, then ``add_many`` of the same
  turns (default settings: consolidation on) into a fresh SQLite file; the ratio of their throughputs.
- **single**: for ``--singles`` turns of 1.5-3k characters, the embedding of the turn's chunks, then one
  ``add`` of it (consolidation on); p50 and p95 of the add over the embedding, per turn.
- **drain**: ``--drain`` turns of about 170 characters added with enrichment in the background, then the
  time the worker takes to read them all into the knowledge graph (memories/s).

Every add also reports its stages (``Knotwork.write_stats``): the consolidation share of an add.

    flock /tmp/knotwork-bench.lock .venv/bin/python bench/writes.py
    .venv/bin/python bench/writes.py --batch-turns 240 --singles 40 --drain 600 --rounds 3
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import longmemeval  # noqa: E402

import knotwork  # noqa: E402
from knotwork.config import Settings  # noqa: E402


def turns(path: Path) -> list[str]:
    return list(dict.fromkeys(t.text for t in longmemeval.load(path).turns))


def stage_line(stats: dict) -> str:
    """Each stage's share of the add's own time; enrichment (later, from the queue) on its own."""
    if not stats:
        return "-"
    own = {k: v for k, v in stats.items() if k != "enrich"}
    total = sum(s["seconds"] for s in own.values()) or 1.0
    enrich = stats.get("enrich", {"seconds": 0.0, "runs": 0})
    return (", ".join(f"{name} {100 * s['seconds'] / total:.1f}%" for name, s in own.items())
            + f"; enrich (not in the add): {enrich['runs']} memories, {enrich['seconds']:.2f} s")


def bench_batch(texts: list[str], rounds: int, tmp: Path, settings: Settings) -> None:
    items = [{"content": t, "workspace": "lme"} for t in texts]
    probe = knotwork.open(tmp / "probe.db", settings=settings)
    embedder = probe.embedder
    probe.close()
    flat = [c for t in texts for c in embedder.chunks(t)]
    embedder.embed(flat[:32])  # the model is loaded before anything is timed
    pure, full, raw, stages = [], [], [], {}
    for r in range(rounds):
        t = time.perf_counter()
        embedder.embed(flat)
        pure.append(time.perf_counter() - t)
        with knotwork.open(tmp / f"batch{r}.db", settings=settings) as mem:
            t = time.perf_counter()
            mem.add_many(items)
            full.append(time.perf_counter() - t)
            stages = getattr(mem, "write_stats", dict)()
            if hasattr(mem, "enrichment"):
                mem.enrichment.stop()  # the graph is not this measure's business (bench_drain's)
        with knotwork.open(tmp / f"raw{r}.db", settings=settings) as mem:
            t = time.perf_counter()
            mem.add_many(items, consolidate=False)
            raw.append(time.perf_counter() - t)
            if hasattr(mem, "enrichment"):
                mem.enrichment.stop()
    a, b, c = min(pure), min(full), min(raw)
    chars = sum(map(len, texts)) / len(texts)
    print(f"\n## batch: {len(texts)} turns ({chars:,.0f} chars on average, {len(flat)} chunks), best of {rounds}")
    print("| measure | value |\n|---|---|")
    print(f"| embedder alone | {a:.2f} s, {len(texts) / a:.1f} texts/s |")
    print(f"| add_many (default settings) | {b:.2f} s, {len(texts) / b:.1f} texts/s |")
    print(f"| add_many / embedder throughput | **{a / b:.2f}x** |")
    print(f"| add_many, consolidate=False | {c:.2f} s, {len(texts) / c:.1f} texts/s (consolidation: {100 * (b - c) / b:+.1f}% of an add_many) |")
    print(f"| add_many stages (last round) | {stage_line(stages)} |")
    print("rounds (embedder, add_many, add_many without consolidation): "
          + ", ".join(f"({x:.2f}, {y:.2f}, {z:.2f})" for x, y, z in zip(pure, full, raw)))


def bench_single(texts: list[str], tmp: Path, settings: Settings) -> None:
    with knotwork.open(tmp / "single.db", settings=settings) as mem:
        embedder = mem.embedder
        mem.add("warm-up: the model and the parser are loaded before anything is timed", workspace="lme")
        ratios, adds, embeds = [], [], []
        for text in texts:
            chunks = embedder.chunks(text)
            t = time.perf_counter()
            embedder.embed(chunks)
            e = time.perf_counter() - t
            t = time.perf_counter()
            mem.add(text, workspace="lme")
            a = time.perf_counter() - t
            embeds.append(e)
            adds.append(a)
            ratios.append(a / e)
        stages = getattr(mem, "write_stats", dict)()
    q = statistics.quantiles(ratios, n=20)
    print(f"\n## single add: {len(texts)} turns of 1.5-3k chars (one add each, consolidation on)")
    print("| measure | value |\n|---|---|")
    print(f"| embedding p50 | {1000 * statistics.median(embeds):.1f} ms |")
    print(f"| add p50 | {1000 * statistics.median(adds):.1f} ms |")
    print(f"| add / its own embedding, p50 | **{statistics.median(ratios):.2f}x** (p95 {q[18]:.2f}x) |")
    print(f"| add stages | {stage_line(stages)} |")


def bench_drain(texts: list[str], tmp: Path, settings: Settings) -> None:
    background = settings.model_copy(update={"enrich": "background"})
    with knotwork.open(tmp / "drain.db", settings=background) as mem:
        mem.warm()
        mem.enrichment.stop()  # the backlog is built first, then drained alone
        mem.add_many([{"content": t, "workspace": "lme"} for t in texts])
        backlog = mem.enrichment_backlog()["pending"]
        t = time.perf_counter()
        done = mem.enrichment.drain()
        seconds = time.perf_counter() - t
        entities = mem.store.kg_count_entities() if hasattr(mem.store, "kg_count_entities") else None
    chars = sum(map(len, texts)) / len(texts)
    print(f"\n## drain: {len(texts)} turns ({chars:.0f} chars on average) queued, then enriched")
    print("| measure | value |\n|---|---|")
    print(f"| backlog before | {backlog} |")
    print(f"| drained | {done} in {seconds:.2f} s: **{done / seconds:.1f} memories/s** |")
    if entities is not None:
        print(f"| entities after | {entities} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("/work/shared/data/longmemeval_oracle.json.gz"))
    parser.add_argument("--batch-turns", type=int, default=240)
    parser.add_argument("--singles", type=int, default=40)
    parser.add_argument("--drain", type=int, default=600)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", choices=("batch", "single", "drain"), action="append")
    args = parser.parse_args()
    texts = turns(args.data)
    only = set(args.only or ("batch", "single", "drain"))
    settings = Settings(home=Path(tempfile.gettempdir()) / "knotwork-bench-home")
    print(f"load average at start {os.getloadavg()[0]:.2f} ({os.cpu_count()} cores)")
    with tempfile.TemporaryDirectory() as tmp:
        if "batch" in only:
            bench_batch(texts[: args.batch_turns], args.rounds, Path(tmp), settings)
        if "single" in only:
            bench_single([t for t in texts if 1500 <= len(t) <= 3000][: args.singles], Path(tmp), settings)
        if "drain" in only:
            bench_drain([t for t in texts if 120 <= len(t) <= 220][: args.drain], Path(tmp), settings)
    print(f"\nload average at end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
