"""Recipe variants side by side on a built store: one row per variant, per question type.

    python bench/sweep.py --store bench/.cache/lme.db [--asked-at] [--limit-questions N]
                          --variant 'name=Recipe("x", weights=(("bm25", 0.6), ("vector", 0.4)))' ...
    python bench/sweep.py --codemem dev --store bench/.cache/codemem/store.db --variant ...

A variant is a Python expression over ``Recipe``, ``step``, ``RECIPES`` and
``replace`` (dataclasses.replace), or the name of a registered recipe. The
store must exist (build it with bench/longmemeval.py --store PATH). For the
protocol and metrics see bench/longmemeval.py; this script only saves
re-ingesting when many variants are compared.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import codemem as cm  # noqa: E402
import longmemeval as lme  # noqa: E402

from knotwork.search.recipes import RECIPES, Recipe, step  # noqa: E402


def variant(text: str) -> tuple[str, Recipe]:
    name, _, expr = text.partition("=")
    if not expr or expr in RECIPES:
        return name, RECIPES[expr or name]
    return name, eval(expr, {"Recipe": Recipe, "step": step, "RECIPES": RECIPES, "replace": replace})  # noqa: S307


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", type=Path, default=lme.DEFAULT_DATA)
    p.add_argument("--store", type=Path, required=True)
    p.add_argument("--asked-at", action="store_true")
    p.add_argument("--limit-questions", type=int, default=None)
    p.add_argument("--variant", action="append", required=True)
    p.add_argument("--codemem", choices=("dev", "test"), default=None, help="ask this half of bench/codemem instead of LongMemEval")
    args = p.parse_args()
    if args.codemem:
        return codemem(args)
    if not args.store.exists():
        raise SystemExit(f"--store {args.store}: build it first with bench/longmemeval.py --store")
    data = lme.load(args.data)
    questions = lme.spread(data.questions, args.limit_questions)
    kw = lme.KnotworkStore(data.turns, args.store, asked_at=args.asked_at)
    ks = [1, 5, 10]
    types = lme.groups(questions)
    print(f"load {os.getloadavg()[0]:.1f}")
    header = f"{'variant':<28} {'S@5':>6} {'S@10':>6} {'T@10':>6} {'p50':>6} {'p95':>6}  " + " ".join(f"{t[:10]:>10}" for t in types)
    print(header)
    for text in args.variant:
        name, recipe = variant(text)
        r = lme.run(name, name, kw.retriever(depth=10, recipe=recipe), questions, ks)
        s = lme.summary(r, questions, ks)
        by_type = " ".join(
            f"{lme.fmt(lme.rate(r.hits[q.id]['session@5'] for q in qs)[0], 2):>5}/{lme.fmt(lme.rate(r.hits[q.id]['turn@10'] for q in qs)[0], 2):<4}"
            for qs in types.values()
        )
        print(
            f"{name:<28} {s['session@5']:6.3f} {s['session@10']:6.3f} {s['turn@10']:6.3f} {s['p50_ms']:6.1f} {s['p95_ms']:6.1f}  {by_type}",
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
        r = cm.run(name, name, kw.retriever(depth=10, recipe=recipe), questions, ks)
        s = cm.summary(r, questions, ks)
        by_type = " ".join(
            f"{lme.fmt(lme.rate(r.hits[q.id]['hit@5'] for q in questions if q.type == t)[0], 2):>9}" for t in cm.TYPES
        )
        print(f"{name:<28} {s['hit@1']:6.3f} {s['hit@5']:6.3f} {s['hit@10']:6.3f} {s['p50_ms']:6.1f} {s['p95_ms']:6.1f}  {by_type}", flush=True)
    print(f"load {os.getloadavg()[0]:.1f}; by type: recall@5")
    kw.close()


if __name__ == "__main__":
    main()
