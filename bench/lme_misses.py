"""Why LongMemEval questions miss: each miss at 5 (session) and at 10 (turn) of one recipe, by type and by cause.

    python bench/lme_misses.py --store bench/.cache/lme.db [--half dev] [--recipe NAME|EXPR] [--show N]

Asks one half of the questions (dev unless told; tune on dev only) against a store built by
``bench/longmemeval.py --store PATH --asked-at`` and, for each question whose top 5 holds no answer
session (a session miss) or whose top 10 holds no answer turn (a turn miss), names the first cause
that applies, in this order:

- ``not found``: no turn of an answer session (for a turn miss: no answer turn) in the first 100;
- ``vocabulary``: the answer turns share no content word (stem) with the question;
- ``date``: the question names a time (``search.when.time_window``) or asks about order in time
  (``search.when.looks_back``) — the words alone cannot rank it;
- ``crowded``: three or more of the top 5 come from one session that holds no answer;
- ``near-duplicate``: a top-5 turn of another session says nearly the same as an answer turn
  (half or more of its content stems shared both ways);
- ``several sessions`` (session misses of questions with more than one answer session);
- ``right session, wrong turn`` (turn misses whose session is in the top 10);
- ``ranked lower``: what is left (found in the first 100, below the cut).

The causes are heuristics over the ranked lists and the texts, written before any stage of this
round ran; they say where to look, not what a stage will gain.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import longmemeval as lme  # noqa: E402
from sweep import variant  # noqa: E402

from knotwork.search.lexical import analyze  # noqa: E402
from knotwork.search.when import looks_back, time_window  # noqa: E402

DEPTH = 100
# Stems too common to tell a turn's topic (the roles, pronouns, auxiliaries).
COMMON = set(analyze(
    "user assistant i me my mine you your we our it its is are was were be been am do does did have has had "
    "a an the and or but of to in on at for with about from by as that this these those what which who whom "
    "when where why how can could would should will shall may might must not no so if then than there here "
    "just also any some all more most very much many one get got make made go went know think like want"
))


def content(text: str) -> set[str]:
    return {t for t in analyze(text) if t not in COMMON and not t.isdigit()}


def cause_session(q: lme.Question, ranked: list[lme.TurnKey], text_of: dict[lme.TurnKey, str], at) -> str:
    if not any(sid in q.answer_sessions for sid, _ in ranked[:DEPTH]):
        return "not found"
    gold = [k for k in text_of if k[0] in q.answer_sessions and k in q.answer_turns] or [
        k for k in text_of if k[0] in q.answer_sessions
    ]
    words = content(q.text)
    if q.answer_turns and not any(words & content(text_of[k]) for k in q.answer_turns if k in text_of):
        return "vocabulary"
    if time_window(q.text, at) is not None or looks_back(q.text, at):
        return "date"
    top = ranked[:5]
    per = Counter(sid for sid, _ in top)
    if any(n >= 3 and sid not in q.answer_sessions for sid, n in per.items()):
        return "crowded"
    gold_words = [content(text_of[k]) for k in gold if k in text_of]
    for key in top:
        w = content(text_of.get(key, ""))
        if w and any(g and len(w & g) >= 0.5 * len(w) and len(w & g) >= 0.5 * len(g) for g in gold_words):
            return "near-duplicate"
    if len(q.answer_sessions) > 1:
        return "several sessions"
    return "ranked lower"


def cause_turn(q: lme.Question, ranked: list[lme.TurnKey], text_of: dict[lme.TurnKey, str], at) -> str:
    if not any(k in q.answer_turns for k in ranked[:DEPTH]):
        return "not found"
    words = content(q.text)
    if not any(words & content(text_of[k]) for k in q.answer_turns if k in text_of):
        return "vocabulary"
    if time_window(q.text, at) is not None or looks_back(q.text, at):
        return "date"
    if any(sid in q.answer_sessions for sid, _ in ranked[:10]):
        return "right session, wrong turn"
    per = Counter(sid for sid, _ in ranked[:5])
    if any(n >= 3 and sid not in q.answer_sessions for sid, n in per.items()):
        return "crowded"
    return "ranked lower"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", type=Path, default=lme.DEFAULT_DATA)
    p.add_argument("--store", type=Path, required=True)
    p.add_argument("--half", choices=("dev", "test"), default="dev")
    p.add_argument("--recipe", default="memory_hybrid", help="a registered recipe or an expression (as in bench/sweep.py)")
    p.add_argument("--show", type=int, default=0, help="print this many missed questions of each type with their cause")
    args = p.parse_args()
    if not args.store.exists():
        raise SystemExit(f"--store {args.store}: build it first with bench/longmemeval.py --store")
    data = lme.load(args.data)
    questions = [q for q in data.questions if lme.half(q.id) == args.half]
    text_of = {t.key: t.content for t in data.turns}
    kw = lme.KnotworkStore(data.turns, args.store, asked_at=True)
    _, recipe = variant(f"r={args.recipe}")
    retrieve = kw.retriever(depth=DEPTH, recipe=recipe)
    rows: dict[str, Counter[str]] = defaultdict(Counter)
    shown: Counter[str] = Counter()
    for q in questions:
        ranked = retrieve(q)
        at = lme.datetime.fromisoformat(lme.session_time(q.date).replace("Z", "+00:00"))
        hit = lme.evaluate(ranked, q.answer_sessions, q.answer_turns, [5, 10])
        row = rows[q.type]
        row["questions"] += 1
        row["several"] += len(q.answer_sessions) > 1
        if not hit["session@5"]:
            row["S@5 miss"] += 1
            why = cause_session(q, ranked, text_of, at)
            row[f"S:{why}"] += 1
            if shown[q.type] < args.show:
                shown[q.type] += 1
                print(f"[{q.type}] S@5 miss ({why}): {q.text!r}  top: {[text_of[k][:60] for k in ranked[:3]]}")
        if hit["turn@10"] is False:
            row["T@10 miss"] += 1
            row[f"T:{cause_turn(q, ranked, text_of, at)}"] += 1
        if hit["turn@10"] is not None:
            row["with turns"] += 1
    kw.close()
    causes_s = ["not found", "vocabulary", "date", "crowded", "near-duplicate", "several sessions", "ranked lower"]
    causes_t = ["not found", "vocabulary", "date", "right session, wrong turn", "crowded", "ranked lower"]
    total: Counter[str] = Counter()
    for row in rows.values():
        total.update(row)
    print(f"load {os.getloadavg()[0]:.1f}; {args.half} half, {len(questions)} questions, recipe {args.recipe}")
    print("| type | q | >1 session | S@5 misses | " + " | ".join(causes_s) + " |")
    print("|---|" + "---:|" * (3 + len(causes_s)))
    for name, row in [*sorted(rows.items()), ("all", total)]:
        print(f"| {name} | {row['questions']} | {row['several']} | {row['S@5 miss']} | "
              + " | ".join(str(row[f"S:{c}"]) for c in causes_s) + " |")
    print()
    print("| type | q with answer turns | T@10 misses | " + " | ".join(causes_t) + " |")
    print("|---|" + "---:|" * (2 + len(causes_t)))
    for name, row in [*sorted(rows.items()), ("all", total)]:
        print(f"| {name} | {row['with turns']} | {row['T@10 miss']} | " + " | ".join(str(row[f"T:{c}"]) for c in causes_t) + " |")


if __name__ == "__main__":
    main()
