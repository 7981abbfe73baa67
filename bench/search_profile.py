"""Where a search's time goes on the LongMemEval pool: p50/p95 of the whole call and of each of its parts.

Opens a pool store built by bench/longmemeval.py (``--store``), asks the
LongMemEval questions as of each question's date (as ``--asked-at`` does),
every query embedded anew (the query-vector cache emptied before each), and
times, besides the whole ``search`` call, each part by wrapping the
objects the pipeline calls: the query embedding, the vector index (scan or
graph), the lexical index, and the store reads (filters, ranking columns,
the returned rows); ``trace`` is the pipeline's own stage times. ``--top10``
writes each question's ten memory ids, to compare two trees' answers.

    flock /tmp/knotwork-bench.lock .venv/bin/python bench/search_profile.py --store bench/.cache/lme.db
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import longmemeval as lme  # noqa: E402

import knotwork  # noqa: E402


def timed(obj: object, name: str, into: dict[str, float], label: str) -> None:
    """Make ``obj.name`` add its wall time to ``into[label]`` (the object's own method, timed)."""
    inner = getattr(obj, name)

    def wrapper(*args, **kwargs):
        t = time.perf_counter()
        try:
            return inner(*args, **kwargs)
        finally:
            into[label] += (time.perf_counter() - t) * 1000

    setattr(obj, name, wrapper)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", required=True, help="a pool store built by bench/longmemeval.py --store")
    parser.add_argument("--data", type=Path, default=Path("/work/shared/data/longmemeval_oracle.json.gz")
                        if not lme.DEFAULT_DATA.exists() else lme.DEFAULT_DATA)
    parser.add_argument("--questions", type=int, default=500)
    parser.add_argument("--recipe", default=None)
    parser.add_argument("--top10", type=Path, default=None, help="write {question id: [10 memory ids]} here")
    args = parser.parse_args()
    questions = lme.spread(lme.load(args.data).questions, args.questions)
    load_before = os.getloadavg()[0]
    with knotwork.open(args.store) as mem:
        parts: dict[str, float] = defaultdict(float)
        timed(mem.embedder, "_query_vector", parts, "embed query")
        timed(mem.index, "search", parts, "vector index")
        timed(mem.lexical, "search", parts, "lexical index")
        for name in ("filter_memory_ids", "ranking_facts", "get_memories"):
            timed(mem.store, name, parts, f"store.{name}")
        mem.index.sync()
        kwargs = {"recipe": args.recipe} if args.recipe else {}
        mem.search("warm up", workspace=lme.WORKSPACE, **kwargs)
        if mem.index.ann_min_rows and mem.index.wait_for_ann(3600):
            print("HNSW graph ready", file=sys.stderr)
        per: dict[str, list[float]] = defaultdict(list)
        top10: dict[str, list[str]] = {}
        for q in questions:
            mem.embedder.query_cache.clear()
            parts.clear()
            t = time.perf_counter()
            hits = mem.search(q.text, workspace=lme.WORKSPACE, limit=10, now=lme.session_time(q.date), **kwargs)
            total = (time.perf_counter() - t) * 1000
            per["search (whole call)"].append(total)
            for label, ms in parts.items():
                per[label].append(ms)
            for stage, _, ms in mem.last_trace.stages:
                per[f"trace {stage}"].append(ms)
            per["rest"].append(total - sum(parts.values()))
            top10[q.id] = [h.memory.id for h in hits]
        vectors = len(mem.index)
        memories = mem.store.count_memories()
    print(f"{memories:,} memories, {vectors:,} vectors, {len(questions)} questions, recipe {args.recipe or 'default'}; "
          f"load average {load_before:.2f} -> {os.getloadavg()[0]:.2f}")
    print("| part | p50 ms | p95 ms | mean ms |\n|---|---:|---:|---:|")
    for label, values in per.items():
        print(f"| {label} | {np.percentile(values, 50):.2f} | {np.percentile(values, 95):.2f} | {np.mean(values):.2f} |")
    if args.top10:
        args.top10.write_text(json.dumps(top10, indent=0))


if __name__ == "__main__":
    main()
