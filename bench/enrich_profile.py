"""What reading one memory into the knowledge graph costs, by stage: the enrichment worker's work on LongMemEval turns.

    .venv/bin/python bench/enrich_profile.py [--turns 300] [--batch 32] [--dump graph.txt] [--cprofile N]

Stores the first ``--turns`` distinct LongMemEval turns (the peers stream's order, ~1.2k characters each) with the
worker stopped, then drains the queue in this thread, batch by batch, as the worker does
(``Enrichment.drain_once``), and prints the CPU time (this process, all threads) of each stage per memory: the
offline rules (parse), name resolution before the write lock (exact names, trigrams), the entity-name vectors,
the write of entities, mentions and facts, the summaries, the rest of the transaction. Stages are timed by wrapping
the methods that run them (the bench's own instrumentation; nothing else changes). Communities are not part of a
read-in: it only marks the entities to recompute (``kg_mark_dirty``); a search or ``communities`` rebuilds them.

``--dump FILE`` writes the graph (entities with their type and mentions, facts with their validity) as sorted text,
for comparing two versions of the code on the same sample (``diff``). ``--cprofile N`` prints the N most costly
functions (cumulative) of the drain.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import longmemeval  # noqa: E402

import knotwork  # noqa: E402
from knotwork import Settings  # noqa: E402

SPENT: dict[str, float] = defaultdict(float)
CALLS: dict[str, int] = defaultdict(int)


STACK: list[float] = []  # CPU seconds of inner stages, one entry per stage being timed


def timed(owner: Any, name: str, stage: str) -> None:
    """Wrap ``owner.name`` so the CPU it takes, less that of the stages timed inside it, is charged to ``stage``."""
    inner: Callable[..., Any] = getattr(owner, name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        STACK.append(0.0)
        start = time.process_time()
        try:
            return inner(*args, **kwargs)
        finally:
            took = time.process_time() - start
            nested = STACK.pop()
            SPENT[stage] += took - nested
            CALLS[stage] += 1
            if STACK:
                STACK[-1] += took

    setattr(owner, name, wrapper)


def default_data() -> Path:
    name = Path("shared") / "data" / "longmemeval_oracle.json.gz"
    found = [up / name for up in Path(__file__).resolve().parents if (up / name).exists()]
    return found[0] if found else longmemeval.DEFAULT_DATA


def dump(mem: knotwork.Knotwork) -> str:
    """The graph as sorted lines, ids left out (they differ run to run)."""
    conn = mem.store._conn
    lines = []
    for name, type_, summary, n in conn.execute(
        "SELECT e.name, e.type, e.summary, (SELECT count(*) FROM entity_mentions m WHERE m.entity_id = e.id) "
        "FROM entities e"
    ):
        lines.append(f"entity\t{name}\t{type_}\t{n}\t{summary}")
    for row in conn.execute(
        "SELECT fact, predicate, valid_at, invalid_at, expired_at IS NOT NULL, superseded_by IS NOT NULL, confidence, origin, "
        "(SELECT count(*) FROM fact_sources s WHERE s.fact_id = f.id) FROM facts f"
    ):
        lines.append("fact\t" + "\t".join(map(str, row)))
    return "\n".join(sorted(lines)) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=300)
    parser.add_argument("--batch", type=int, default=32, help="memories per read-in (the worker's enrich_batch)")
    parser.add_argument("--data", type=Path, default=default_data())
    parser.add_argument("--dump", type=Path, help="write the graph as sorted text here")
    parser.add_argument("--cprofile", type=int, default=0, help="print the N most costly functions")
    args = parser.parse_args()
    data = longmemeval.load(args.data)
    texts = list(dict.fromkeys(t.text for t in data.turns))[: args.turns]
    settings = Settings(enrich="background", enrich_close_wait=0, enrich_batch=args.batch)
    with tempfile.TemporaryDirectory() as tmp, knotwork.open(Path(tmp) / "k.db", settings=settings) as mem:
        mem.enrichment.stop()  # nothing reads the graph in while the memories are stored
        for i, text in enumerate(texts):  # a fixed time per memory: the facts' validity is the same run to run
            mem.add(text, workspace="bench", force=True, consolidate=False, valid_at=f"2026-01-01T00:{i // 60 % 60:02d}:{i % 60:02d}Z")
        mem.enrichment.stop()
        knowledge = mem.enrichment.knowledge
        import knotwork.services.trust as trust

        timed(trust, "extract_many", "parse (offline rules and the fact scorer)")
        timed(trust, "contexts", "the scope's earlier people (carry)")
        timed(knowledge.store, "kg_lookup_norms", "resolution: exact names")
        timed(knowledge.resolver, "fuzzy", "resolution: trigrams")
        timed(knowledge.resolver, "by_vector", "resolution: by vector")
        timed(knowledge, "_embed_names", "entity-name vectors (model)")
        timed(knowledge, "_entity", "entities (write)")
        timed(knowledge, "_fact", "facts (write)")
        timed(knowledge.changes, "redirect", "values in time")
        timed(knowledge.changes, "held_by_one", "values in time")
        timed(knowledge, "summarize", "summaries")
        timed(knowledge.store, "kg_add_mentions", "mentions (write)")
        timed(mem.enrichment, "_read_in", "read-in (whole)")
        profile = cProfile.Profile() if args.cprofile else None
        cpu, wall = time.process_time(), time.perf_counter()
        if profile:
            profile.enable()
        done = mem.enrichment.drain()
        if profile:
            profile.disable()
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        if args.dump:
            args.dump.write_text(dump(mem))
        counts = {t: mem.store._conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("entities", "facts", "entity_mentions")}
    whole = sum(SPENT.values())
    rest = SPENT.pop("read-in (whole)")
    chars = sum(len(t) for t in texts) / len(texts)
    print(f"{done} memories (LongMemEval turns, mean {chars:.0f} chars) read in, batches of {args.batch}: "
          f"CPU {cpu:.2f} s = {cpu / done * 1000:.1f} ms per memory (wall {wall:.2f} s); graph {counts}")
    print(f"load: {' '.join(f'{x:.2f}' for x in os.getloadavg())}\n")
    print("| stage | CPU ms per memory | share | calls |\n|---|---:|---:|---:|")
    for stage, s in sorted(SPENT.items(), key=lambda kv: -kv[1]):
        print(f"| {stage} | {s / done * 1000:.2f} | {100 * s / whole:.1f}% | {CALLS[stage]} |")
    print(f"| rest of the read-in (claims, reading the memories, transaction, commit) | {rest / done * 1000:.2f} | "
          f"{100 * rest / whole:.1f}% | |")
    print(f"| **read-in, all** | **{whole / done * 1000:.2f}** | 100% | {CALLS['read-in (whole)']} |")
    if profile:
        print()
        pstats.Stats(profile).sort_stats("cumulative").print_stats(args.cprofile)


if __name__ == "__main__":
    main()
