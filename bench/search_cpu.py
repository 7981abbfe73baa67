"""CPU per search as ``POST /search`` spends it below the HTTP layer: the service's search and its JSON answer.

    .venv/bin/python bench/search_cpu.py [--memories 3000] [--searches 400] [--rounds 3]

Opens a copy of bench/load.py's store (bench/.cache/load-<memories>.db, built by bench/load.py), asks the
queries bench/load.py's clients ask (the same word list and lengths, workspaces api and web, limit 10), and
reports the calling thread's CPU milliseconds per search: ``elsewhere.search`` plus the adapters' ``Responder``
(relations and JSON), what the server's worker thread runs for each search. Every query is embedded before
the timed rounds, so the figure leaves the model out (it runs in onnxruntime's threads, with or without a
query cache hit). Thread CPU time moves much less
with the machine's load than wall time, so two trees can be compared on a shared machine: run this with
``PYTHONPATH=<the other tree>/src`` for the other one.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ingest import WORDS  # noqa: E402

import knotwork  # noqa: E402
from knotwork.render.respond import Responder  # noqa: E402
from knotwork.views import elsewhere  # noqa: E402

CACHE = Path(__file__).resolve().parent / ".cache"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=3000)
    parser.add_argument("--searches", type=int, default=400)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    cached = CACHE / f"load-{args.memories}.db"
    if not cached.exists():
        raise SystemExit(f"{cached} is missing: run bench/load.py --memories {args.memories} once to build it")
    work = Path(tempfile.mkdtemp(prefix="knotwork-search-cpu-"))
    try:
        shutil.copy(cached, work / "s.db")
        mem = knotwork.open(work / "s.db")
        mem.warm()
        respond = Responder(mem)
        rng = random.Random(1)
        queries = [(" ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 6))), rng.choice(["api", "web"]))
                   for _ in range(args.searches)]
        for query, _ in queries:
            mem.embedder.embed_query(query)
        for query, workspace in queries[:30]:  # warm-up: the readers, the indexes
            respond("search", elsewhere.search(mem, query, workspace=workspace, limit=10), "json")
        rounds = []
        for _ in range(args.rounds):
            started = time.thread_time()
            for query, workspace in queries:
                respond("search", elsewhere.search(mem, query, workspace=workspace, limit=10), "json")
            rounds.append(1000 * (time.thread_time() - started) / len(queries))
        mem.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(json.dumps({
        "memories": args.memories,
        "searches_per_round": len(queries),
        "cpu_ms_per_search_rounds": [round(r, 2) for r in rounds],
        "cpu_ms_per_search_median": round(statistics.median(rounds), 2),
        "loadavg": os.getloadavg()[0],
    }, indent=2))


if __name__ == "__main__":
    main()
