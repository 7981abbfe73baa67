"""What each stage of a recipe costs, from the search trace, on a built LongMemEval store.

    python bench/stage_cost.py --store bench/.cache/lme.db [--data PATH] [--limit-questions N]
                               --variant NAME=EXPR ...

Asks every question with each variant (a registered recipe name or a Python expression over
``Recipe``, ``step``, ``RECIPES`` and ``replace``, as in bench/sweep.py), the variants taking turns
question by question so that the machine's load falls alike on each, as of the question's date.
Prints, per variant, the p50 / p95 of the whole search (wall clock; the query's vector is computed
once beforehand, untimed, so every variant finds it cached) and the mean and p95 of every stage the
trace records, and the mean CPU time of a search (the searching thread's). Build the store with bench/longmemeval.py --store PATH.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import longmemeval as lme  # noqa: E402
from sweep import variant  # noqa: E402


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", type=Path, default=lme.DEFAULT_DATA)
    p.add_argument("--store", type=Path, required=True)
    p.add_argument("--limit-questions", type=int, default=None)
    p.add_argument("--variant", action="append", required=True)
    args = p.parse_args()
    if not args.store.exists():
        raise SystemExit(f"--store {args.store}: build it first with bench/longmemeval.py --store")
    data = lme.load(args.data)
    questions = lme.spread(data.questions, args.limit_questions)
    kw = lme.KnotworkStore(data.turns, args.store, asked_at=True)
    recipes = [variant(v) for v in args.variant]
    total: dict[str, list[float]] = defaultdict(list)
    cpu: dict[str, list[float]] = defaultdict(list)  # this thread's CPU time per search: moves much less with load
    stages: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    load_before = os.getloadavg()[0]
    for q in [questions[0], *questions]:  # the first one twice: an untimed warm-up
        # The query's vector, once, untimed: every variant then finds it in the embedder's cache alike.
        kw.mem.search(q.text, workspace=lme.WORKSPACE, limit=1, recipe=recipes[0][1], now=lme.session_time(q.date))
        for name, recipe in recipes:
            started, started_cpu = time.perf_counter(), time.thread_time()
            kw.mem.search(q.text, workspace=lme.WORKSPACE, limit=10, recipe=recipe, now=lme.session_time(q.date))
            total[name].append((time.perf_counter() - started) * 1000)
            cpu[name].append((time.thread_time() - started_cpu) * 1000)
            for stage, _, ms in kw.mem.last_trace.stages:
                stages[name][stage].append(ms)
    for name, _ in recipes:
        ms = total[name][1:]
        print(f"{name}: search p50 {statistics.median(ms):.2f} ms, p95 {lme.percentile(ms, 95):.2f} ms over {len(ms)} questions;"
              f" CPU {statistics.fmean(cpu[name][1:]):.2f} ms a search (mean)")
        for stage, values in stages[name].items():
            values = values[1:]
            print(f"  {stage:<24} mean {statistics.fmean(values):6.3f} ms  p95 {lme.percentile(values, 95):6.3f} ms")
    print(f"load average (1 min) {load_before:.1f} at start, {os.getloadavg()[0]:.1f} at end on {os.cpu_count()} cpus")
    kw.close()


if __name__ == "__main__":
    main()
