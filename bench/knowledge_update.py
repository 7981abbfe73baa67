"""LongMemEval knowledge-update: does the current value rank above the retired one?

    python bench/knowledge_update.py [--data PATH] [--depth 50] [--json out.json] [--pool FILE]

With the bundled embedder (the default) the pool is the same store as
bench/longmemeval.py's, so ``--pool bench/.cache/longmemeval-store.db``
reuses it. Each question is asked as of its own date (``search(now=...)``).

The pool is the one bench/longmemeval.py builds: every distinct session of
the 500 "oracle" questions in one store, one memory per turn, each memory's
``valid_at`` its session's date (offline rule extraction on, as by default).

**Current and retired.** Each of the 78 knowledge-update questions has two
answer sessions: an earlier one that states the old value ("my 5K personal
best is 27:12") and a later one that states the new value ("... beat my
personal best of 25:50"). The dataset marks the turns that carry the answer
with ``has_answer``. The *current* turns are the has_answer turns of the
answer session with the later ``haystack_date``; the *retired* turns are
those of the earlier answer session. Questions where either session has no
has_answer turn (8 of 78) are left out, as is any question whose two answer
sessions share a date.

**The check.** Each question is asked against the whole pool; the rank of
the best current turn and of the best retired turn in the top ``depth`` are
compared. The figure is the share of questions, among those where both are
retrieved, in which the current one ranks higher. Two orders are measured:

- ``search``: ``mem.search`` as it is (the default recipe, whose last
  stage, ``restated``, puts a later memory that says again what an earlier
  one says about the question above it; it needs vectors);
- ``search, recipe memory_current``: the recipe for "what is it now"
  questions, whose ``restated`` also takes two memories that mention an
  entity the question names as restatements at a lower similarity (it
  needs the knowledge graph's mentions, i.e. a pool ingested with
  extraction on);
- ``search + fresher first``: the default search's hits passed through
  ``mem.prefer_current`` (the knowledge engine's freshness tie-break: of two
  hits about the same entities and close in score, the later one first).

A tie-break that favours later memories can push down an older memory that
another kind of question needs, so the table also gives session recall@5 of
the 422 other questions under each order.

``--pool FILE`` keeps the pooled store (about 5 minutes of ingest on a loaded
2-core machine) and reuses it on the next run with the same FILE.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from longmemeval import DEFAULT_DATA, WORKSPACE, KnotworkStore, TurnKey, evaluate, load, session_time  # noqa: E402


def split(raw: dict[str, Any]) -> tuple[frozenset[TurnKey], frozenset[TurnKey]] | None:
    """(current, retired) has_answer turns of one knowledge-update question, or None when undefined."""
    sessions = [
        (date, sid, [(sid, i) for i, t in enumerate(turns) if t.get("has_answer")])
        for sid, date, turns in zip(raw["haystack_session_ids"], raw["haystack_dates"], raw["haystack_sessions"], strict=True)
        if sid in raw["answer_session_ids"]
    ]
    if len(sessions) != 2 or sessions[0][0] == sessions[1][0]:
        return None
    (_, _, old), (_, _, new) = sorted(sessions)  # dates as "2023/05/25 (Thu) 20:21" sort in time order
    if not old or not new:
        return None
    return frozenset(new), frozenset(old)


def best_rank(ranked: Sequence[TurnKey], wanted: frozenset[TurnKey]) -> int | None:
    return next((i for i, key in enumerate(ranked) if key in wanted), None)


def judge(ranked: Sequence[TurnKey], current: frozenset[TurnKey], retired: frozenset[TurnKey]) -> bool | None:
    """True: current above retired; False: below; None: not both retrieved."""
    a, b = best_rank(ranked, current), best_rank(ranked, retired)
    return None if a is None or b is None else a < b


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--depth", type=int, default=50)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--pool", type=Path, help="database file of the pooled store: kept, and reused when it exists")
    args = parser.parse_args(argv)

    import gzip

    with gzip.open(args.data, "rt", encoding="utf-8") as fh:
        raw = {q["question_id"]: q for q in json.load(fh)}
    data = load(args.data)
    cases = [(q, split(raw[q.id])) for q in data.questions if q.type == "knowledge-update"]
    usable = [(q, s) for q, s in cases if s is not None]
    print(f"knowledge-update questions: {len(cases)}; with a current and a retired turn: {len(usable)}")

    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        pool = KnotworkStore(data.turns, args.pool or Path(tmp) / "longmemeval.db")  # reuses a kept pool as it is
        print(f"pool: {len(data.turns)} turns, {pool.mem.store.count_memories()} memories, ready in"
              f" {time.perf_counter() - start:.0f} s (embedder {os.environ.get('KNOTWORK_EMBEDDER', 'default')})")
        mem = pool.mem

        def keys(hits: Sequence[Any]) -> list[TurnKey]:
            out: list[TurnKey] = []
            for hit in hits:
                meta = hit.memory.metadata
                out.extend(pool.turns_of.get(hit.memory.id) or [(meta["session_id"], meta["turn_index"])])
            return out

        # name -> (recipe, what is done with its hits)
        orders: dict[str, tuple[str | None, Callable[[list[Any]], list[Any]]]] = {
            "search": (None, lambda hits: hits),
            "search + fresher first": (None, mem.prefer_current),
            "search, recipe memory_current": ("memory_current", lambda hits: hits),
        }

        def ranked(q: Any) -> dict[str | None, list[Any]]:
            return {
                recipe: list(mem.search(q.text, workspace=WORKSPACE, limit=args.depth, now=session_time(q.date), recipe=recipe))
                for recipe in {r for r, _ in orders.values()}
            }

        results: dict[str, list[bool | None]] = {name: [] for name in orders}
        # The cost elsewhere: session recall@5 of every other (non-knowledge-update) question, each order.
        recall: dict[str, list[bool]] = {name: [] for name in orders}
        for q in data.questions:
            if q.type == "knowledge-update":
                continue
            hits = ranked(q)
            for name, (recipe, order) in orders.items():
                recall[name].append(bool(evaluate(keys(order(hits[recipe])), q.answer_sessions, q.answer_turns, [5])["session@5"]))
        rows = []
        for q, (current, retired) in usable:
            hits = ranked(q)
            row = {"question_id": q.id}
            for name, (recipe, order) in orders.items():
                verdict = judge(keys(order(hits[recipe]))[: args.depth], current, retired)
                results[name].append(verdict)
                row[name] = verdict
            rows.append(row)
        pool.close()

    print(f"\n| order | both retrieved (top {args.depth}) | current above retired | share | other questions: session@5 |")
    print("|---|---|---|---|---|")
    summary = {}
    for name, verdicts in results.items():
        both = [v for v in verdicts if v is not None]
        share = sum(both) / len(both) if both else float("nan")
        others = sum(recall[name]) / len(recall[name])
        summary[name] = {"both": len(both), "current_first": sum(both), "share": share, "others_session@5": others}
        print(f"| {name} | {len(both)} / {len(verdicts)} | {sum(both)} | {share:.3f} | {others:.3f} ({len(recall[name])}) |")
    if args.json:
        args.json.write_text(json.dumps({"depth": args.depth, "summary": summary, "questions": rows}, indent=1))


if __name__ == "__main__":
    main()
