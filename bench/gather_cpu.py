"""CPU of small steps, measured alone: the reply lift's, speaker's and topic test's store reads, the enrichment deferral.

    .venv/bin/python bench/gather_cpu.py replies --store <a convo store, e.g. built by bench/sweep.py --convo dev>
    .venv/bin/python bench/gather_cpu.py speakers --store <the same>
    .venv/bin/python bench/gather_cpu.py topics --store <a store with its graph read in, e.g. bench/sweep.py --codemem's>
    .venv/bin/python bench/gather_cpu.py deferral

``replies``: ``Pipeline._replies`` (what the ``reply_lift`` step reads) over 10 random memories of one
workspace, 500 calls a round, 3 rounds, on a copy of the store. ``speakers``: ``Pipeline._speakers`` (what the
``speaker`` step reads: the speaker of the first 50 candidates) over 50 random memories of one workspace, for a
question naming one of that workspace's speakers, the same calls and rounds. ``topics``: ``Pipeline._named_topics``
(what ``restated`` with ``topic_threshold`` reads, recipe memory_current) over 50 random memories, for a question
naming an entity one of them mentions, the same calls and rounds. ``deferral``: ``Enrichment.deferral()`` 20,000
times with 300 memories queued, the worker paused and an add just made (so the deferral goes on to its backlog
test). Both print the calling thread's CPU per call: run them with ``PYTHONPATH=<another tree>/src`` to compare
two trees on a shared machine.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import knotwork
from knotwork import Settings
from knotwork.domain.models import MemoryFilter
from knotwork.search.pipeline import Query
from knotwork.search.speakers import speaker_of


def replies(store: Path, step: str = "replies") -> dict:
    work = Path(tempfile.mkdtemp(prefix="knotwork-gather-"))
    try:
        shutil.copy(store, work / "s.db")
        mem = knotwork.open(work / "s.db")
        by_ws: dict[str, list[str]] = {}
        for m in mem.store.iter_memories():
            by_ws.setdefault(m.workspace or "", []).append(m.id)
        rng = random.Random(1)
        cases = []
        many = 10 if step == "replies" else 50
        names = {ws: sorted({s.title() for m in mem.store.get_memories(ids).values() if (s := speaker_of(m.content))})
                 for ws, ids in by_ws.items()}
        for _ in range(500):
            ws = rng.choice(sorted(by_ws))
            ids = rng.sample(by_ws[ws], min(many, len(by_ws[ws])))
            text = f"What did {rng.choice(names[ws])} say about it?" if step == "speakers" and names[ws] else "q"
            if step == "topics" and (mentioned := sorted({e for es in mem.store.kg_mentions(ids).values() for e in es})):
                text = f"What about {mem.store.kg_get_entities([rng.choice(mentioned)]).popitem()[1].name}?"
            cases.append((Query(text, MemoryFilter(workspace=ws), 10, datetime.now(UTC)), ids))
        pipeline = mem._pipeline
        call = {"replies": pipeline._replies, "speakers": pipeline._speakers, "topics": pipeline._named_topics}[step]
        for q, ids in cases[:50]:  # warm-up: the readers
            call(q, ids)
        rounds = []
        for _ in range(3):
            started = time.thread_time()
            for q, ids in cases:
                call(q, ids)
            rounds.append(round((time.thread_time() - started) / len(cases) * 1000, 3))
        mem.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return {"calls_per_round": len(cases), "cpu_ms_per_call_rounds": rounds}


def deferral() -> dict:
    work = Path(tempfile.mkdtemp(prefix="knotwork-gather-"))
    try:
        s = Settings(home=work / "home", enrich="background", embedder="none", enrich_quiet=30, enrich_close_wait=0)
        with knotwork.open(work / "d.db", settings=s) as mem:
            mem.enrichment.stop()
            mem.add_many([{"content": f"Person{i} works at Company{i}.", "workspace": "w"} for i in range(300)],
                         consolidate=False, force=True)
            mem.enrichment.notify()  # an add just now (the worker is paused: nothing claims)
            for _ in range(200):
                mem.enrichment.deferral()
            calls = 20_000
            started = time.thread_time()
            for _ in range(calls):
                mem.enrichment.deferral()
            took = time.thread_time() - started
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return {"calls": calls, "cpu_us_per_call": round(took / calls * 1e6, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step", choices=("replies", "speakers", "topics", "deferral"))
    parser.add_argument("--store", type=Path, help="replies, speakers, topics: the store to copy")
    args = parser.parse_args()
    if args.step != "deferral" and not args.store:
        parser.error(f"{args.step} needs --store")
    out = replies(args.store, args.step) if args.step != "deferral" else deferral()
    print(json.dumps({**out, "loadavg": os.getloadavg()[0], "knotwork": str(Path(knotwork.__file__).parent)}))


if __name__ == "__main__":
    main()
