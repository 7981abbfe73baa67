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


def bench_batch(texts: list[str], rounds: int, tmp: Path, settings: Settings, slice_size: int = 60) -> None:
    """Per round: slice by slice, the embedder alone on a slice's chunks, then ``add_many`` of the slice (default
    settings), then ``add_many(consolidate=False)`` into a second store; adjacent in time, so that a shared
    machine's changing load falls on all three alike. Throughputs are summed over the round's slices."""
    items = [{"content": t, "workspace": "lme"} for t in texts]
    probe = knotwork.open(tmp / "probe.db", settings=settings)
    embedder = probe.embedder
    probe.close()
    chunks = [embedder.chunks(t) for t in texts]
    embedder.embed([c for cs in chunks[:8] for c in cs])  # the model is loaded before anything is timed
    pure, full, raw, stages = [], [], [], {}
    for r in range(rounds):
        a = b = c = 0.0
        with knotwork.open(tmp / f"batch{r}.db", settings=settings) as mem, \
                knotwork.open(tmp / f"raw{r}.db", settings=settings) as plain:
            mem.enrichment.stop()  # the graph is not this measure's business (bench_drain's)
            plain.enrichment.stop()
            for i in range(0, len(items), slice_size):
                flat = [x for cs in chunks[i : i + slice_size] for x in cs]
                t = time.perf_counter()
                embedder.embed(flat)
                a += time.perf_counter() - t
                t = time.perf_counter()
                mem.add_many(items[i : i + slice_size])
                b += time.perf_counter() - t
                t = time.perf_counter()
                plain.add_many(items[i : i + slice_size], consolidate=False)
                c += time.perf_counter() - t
            stages = mem.write_stats()
        pure.append(a)
        full.append(b)
        raw.append(c)
    ratios = sorted(x / y for x, y in zip(pure, full))
    chars = sum(map(len, texts)) / len(texts)
    flat_n = sum(map(len, chunks))
    decide = stages["decide"]["seconds"] / sum(v["seconds"] for k, v in stages.items() if k != "enrich")
    print(f"\n## batch: {len(texts)} turns ({chars:,.0f} chars on average, {flat_n} chunks), {rounds} rounds, "
          f"slices of {slice_size}")
    print("| measure | value |\n|---|---|")
    print(f"| embedder alone (median round) | {statistics.median(pure):.2f} s, {len(texts) / statistics.median(pure):.1f} texts/s |")
    print(f"| add_many, default settings (median round) | {statistics.median(full):.2f} s, {len(texts) / statistics.median(full):.1f} texts/s |")
    print(f"| add_many / embedder throughput | **{statistics.median(ratios):.2f}x** median of rounds ({ratios[0]:.2f}-{ratios[-1]:.2f}) |")
    print(f"| add_many, consolidate=False (median round) | {statistics.median(raw):.2f} s, {len(texts) / statistics.median(raw):.1f} texts/s |")
    print(f"| consolidation (decide stage) share of add_many | {100 * decide:.1f}% |")
    print(f"| add_many stages (last round) | {stage_line(stages)} |")
    print("rounds (embedder, add_many, add_many without consolidation) s: "
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
    print(f"\n## single add: {len(texts)} turns of 1.5-3k chars (one add each, consolidation on, the enrichment worker"
          " reading the earlier adds into the graph meanwhile)")
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
    parser.add_argument("--singles", type=int, default=60)
    parser.add_argument("--drain", type=int, default=600)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", choices=("batch", "single", "drain"), action="append")
    args = parser.parse_args()
    texts = turns(args.data)
    only = set(args.only or ("batch", "single", "drain"))
    # Closing a store does not wait for its backlog here: the graph is bench_drain's measure alone.
    settings = Settings(home=Path(tempfile.gettempdir()) / "knotwork-bench-home", enrich_close_wait=0)
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
