"""Recipe variants side by side on a built store: one row per variant, per question type.

    python bench/sweep.py --store bench/.cache/lme.db [--asked-at] [--limit-questions N]
                          --variant 'name=Recipe("x", weights=(("bm25", 0.6), ("vector", 0.4)))' ...
    python bench/sweep.py --codemem dev --store bench/.cache/codemem/store.db --variant ...
    python bench/sweep.py --convo dev --store bench/.cache/convo-dev.db [--no-thread] [--convo-data DIR] --variant ...
    ... [--ranked ranks.json]    # also write every question's ranked list, by variant (to compare two trees)

A variant is a Python expression over ``Recipe``, ``step``, ``RECIPES`` and
``replace`` (dataclasses.replace), or the name of a registered recipe. The
store must exist (build it with bench/longmemeval.py --store PATH). For the
protocol and metrics see bench/longmemeval.py; this script only saves
re-ingesting when many variants are compared.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import codemem as cm  # noqa: E402
import convo  # noqa: E402
import longmemeval as lme  # noqa: E402

from knotwork.search.recipes import RECIPES, Recipe, step  # noqa: E402


def variant(text: str) -> tuple[str, Recipe]:
    name, _, expr = text.partition("=")
    if not expr or expr in RECIPES:
        return name, RECIPES[expr or name]
    return name, eval(expr, {"Recipe": Recipe, "step": step, "RECIPES": RECIPES, "replace": replace})  # noqa: S307


RANKED: dict[str, dict[str, list[str]]] = {}  # variant -> question id -> its ranked list (--ranked)


def recorded(name: str, retrieve: Any) -> Any:
    """``retrieve`` that also keeps each question's ranked list in ``RANKED[name]``."""

    def run(q: Any) -> list[str]:
        ranked = retrieve(q)
        RANKED.setdefault(name, {})[q.id] = list(ranked)
        return ranked

    return run


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", type=Path, default=lme.DEFAULT_DATA)
    p.add_argument("--store", type=Path, required=True)
    p.add_argument("--asked-at", action="store_true")
    p.add_argument("--limit-questions", type=int, default=None)
    p.add_argument("--half", choices=("dev", "test"), default=None,
                   help="LongMemEval: ask only this half (bench/longmemeval.py half()); both when not given")
    p.add_argument("--variant", action="append", required=True)
    p.add_argument("--codemem", choices=("dev", "test"), default=None, help="ask this half of bench/codemem instead of LongMemEval")
    p.add_argument("--convo", choices=("dev", "test"), default=None,
                   help="ask this half of bench/data/convo instead (the store is built at --store when it does not exist)")
    p.add_argument("--no-thread", action="store_true", help="--convo: build the store without metadata.thread")
    p.add_argument("--ranked", type=Path, default=None, help="write every question's ranked list, by variant, as JSON here")
    p.add_argument("--convo-data", type=Path, default=convo.DATA,
                   help="--convo: the data folder (turns.jsonl, questions.jsonl), e.g. bench/data/convo2")
    args = p.parse_args()
    try:
        if args.convo:
            return convo_sweep(args)
        if args.codemem:
            return codemem(args)
        return longmemeval(args)
    finally:
        if args.ranked:
            args.ranked.write_text(json.dumps(RANKED, sort_keys=True))


def longmemeval(args: argparse.Namespace) -> None:
    if not args.store.exists():
        raise SystemExit(f"--store {args.store}: build it first with bench/longmemeval.py --store")
    data = lme.load(args.data)
    questions = lme.spread([q for q in data.questions if args.half in (None, lme.half(q.id))], args.limit_questions)
    kw = lme.KnotworkStore(data.turns, args.store, asked_at=args.asked_at)
    ks = [1, 5, 10]
    types = lme.groups(questions)
    print(f"load {os.getloadavg()[0]:.1f}")
    halves = {h: [q for q in questions if lme.half(q.id) == h] for h in ("dev", "test")}
    print(f"halves: dev {len(halves['dev'])}, test {len(halves['test'])} questions (bench/longmemeval.py half())")
    header = (
        f"{'variant':<28} {'S@5':>6} {'S@10':>6} {'T@10':>6} {'dev S@5':>8} {'dev T@10':>8} {'test S@5':>8} {'test T@10':>9}"
        f" {'p50':>6} {'p95':>6}  " + " ".join(f"{t[:10]:>10}" for t in types)
    )
    print(header)
    for text in args.variant:
        name, recipe = variant(text)
        r = lme.run(name, name, recorded(name, kw.retriever(depth=10, recipe=recipe)), questions, ks)
        s = lme.summary(r, questions, ks)
        by_type = " ".join(
            f"{lme.fmt(lme.rate(r.hits[q.id]['session@5'] for q in qs)[0], 2):>5}/{lme.fmt(lme.rate(r.hits[q.id]['turn@10'] for q in qs)[0], 2):<4}"
            for qs in types.values()
        )
        dev, test = (lme.summary(r, halves[h], ks) if halves[h] else {"session@5": math.nan, "turn@10": math.nan} for h in ("dev", "test"))
        print(
            f"{name:<28} {s['session@5']:6.3f} {s['session@10']:6.3f} {s['turn@10']:6.3f} {dev['session@5']:8.3f} {dev['turn@10']:8.3f}"
            f" {test['session@5']:8.3f} {test['turn@10']:9.3f} {s['p50_ms']:6.1f} {s['p95_ms']:6.1f}  {by_type}",
            flush=True,
        )
    print(f"load {os.getloadavg()[0]:.1f}; by type: session R@5 / turn R@10")
    kw.close()


def codemem(args: argparse.Namespace) -> None:
    data = cm.load()
    questions = [q for q in data.questions if q.half == args.codemem]
    kw = cm.KnotworkStore(data, args.store)
    ks = [1, 5, 10]
    print(f"load {os.getloadavg()[0]:.1f}; codemem {args.codemem}: {len(questions)} questions")
    print(f"{'variant':<28} {'R@1':>6} {'R@5':>6} {'R@10':>6} {'p50':>6} {'p95':>6}  " + " ".join(f"{t[:9]:>9}" for t in cm.TYPES))
    for text in args.variant:
        name, recipe = variant(text)
        r = cm.run(name, name, recorded(name, kw.retriever(depth=10, recipe=recipe)), questions, ks)
        s = cm.summary(r, questions, ks)
        by_type = " ".join(
            f"{lme.fmt(lme.rate(r.hits[q.id]['hit@5'] for q in questions if q.type == t)[0], 2):>9}" for t in cm.TYPES
        )
        print(f"{name:<28} {s['hit@1']:6.3f} {s['hit@5']:6.3f} {s['hit@10']:6.3f} {s['p50_ms']:6.1f} {s['p95_ms']:6.1f}  {by_type}", flush=True)
    print(f"load {os.getloadavg()[0]:.1f}; by type: recall@5")
    kw.close()


class ConvoStore(convo.KnotworkStore):
    """bench/convo.py's store, built once at a path and reused: turns are mapped back by store and content."""

    def __init__(self, turns: list[convo.Turn], path: Path, *, thread: bool) -> None:
        if not path.exists():
            super().__init__(turns, path, thread=thread)
            return
        import knotwork

        self.mem, self.thread = knotwork.open(path), thread
        by_content: dict[tuple[str, str], list[str]] = {}
        for t in turns:
            by_content.setdefault((t.workspace, t.content), []).append(t.id)
        self.turns_of = {m.id: by_content[(m.workspace or "", m.content)] for m in self.mem.store.iter_memories()}


def convo_sweep(args: argparse.Namespace) -> None:
    data = convo.load(args.convo_data).half(args.convo)
    thread_of = {t.id: t.thread for t in data.turns}
    kw = ConvoStore(data.turns, args.store, thread=not args.no_thread)
    answerable = [q for q in data.questions if q.gold]
    kinds = [k for k in convo.KINDS if k != "none" and any(q.kind == k for q in answerable)]
    print(f"load {os.getloadavg()[0]:.1f}; {args.convo_data.name} {args.convo}: {len(answerable)} answerable questions"
          + (" (store without metadata.thread)" if args.no_thread else ""))
    print(f"{'variant':<28} {'R@1':>6} {'R@5':>6} {'R@10':>6} {'thr@5':>6} {'thr#1':>6} {'t-only':>6} {'MRR':>6} {'+/-@5':>7}"
          f" {'p50':>6} {'p95':>6}  " + " ".join(f"{k[:9]:>9}" for k in kinds))
    first_hits: dict[str, bool] | None = None
    for text in args.variant:
        name, recipe = variant(text)
        r = convo.run(name, name, recorded(name, kw.retriever(depth=10, recipe=recipe)), data.questions, thread_of)
        s = convo.summary(r, data.questions)
        by_kind = " ".join(f"{lme.fmt(convo.mean([r.hits[q.id]['turn@5'] for q in answerable if q.kind == k]), 2):>9}" for k in kinds)
        threads = [convo.thread_hits(r.ranked[q.id], q.gold, q.gold_threads, thread_of) for q in answerable]
        first, only = (convo.mean([t[m] for t in threads]) or 0.0 for m in ("thread#1", "thread_only"))
        hits = {q.id: bool(r.hits[q.id]["turn@5"]) for q in answerable}
        first_hits = first_hits or hits
        gained, lost = (sum(hits[i] and not first_hits[i] for i in hits), sum(first_hits[i] and not hits[i] for i in hits))
        print(f"{name:<28} {s['turn@1']:6.3f} {s['turn@5']:6.3f} {s['turn@10']:6.3f} {s['thread@5']:6.3f} {first:6.3f} {only:6.3f}"
              f" {s['mrr']:6.3f} {f'+{gained}/-{lost}':>7} {s['p50_ms']:6.1f} {s['p95_ms']:6.1f}  {by_kind}", flush=True)
    print(f"load {os.getloadavg()[0]:.1f}; thr#1: the best-ranked thread (threads ranked by their best turn) is a gold one;"
          " t-only: it is, and no gold turn is in the top 5; +/-@5: questions this variant finds in its top 5 and the first"
          " does not / the first finds and this does not; by kind: turn recall@5")
    kw.close()


if __name__ == "__main__":
    main()
