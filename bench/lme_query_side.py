"""Query-side ideas for LongMemEval measured before any goes into a recipe: several events, source leaders.

    python bench/lme_query_side.py --store bench/.cache/lme.db --half dev [--show]
    python bench/lme_query_side.py --count     # how many questions of each set each idea touches

Both ideas work on the ranked lists that ``Knotwork.search`` returns (the default recipe, as of each
question's date, like ``bench/sweep.py --asked-at``), so they can be judged without a pipeline stage:

- ``events``: a question about several events ("which did I do first, X or Y", "how many days between
  the day I X and the day I Y", "the order of: X, Y, and Z") is split into its event phrases
  (:func:`events`); each phrase is searched on its own and the best turn of each is put right after the
  first result of the whole question. Questions of another shape are left as they are.
- ``leaders``: the first result of BM25 alone and of the vectors alone (recipes ``memory_bm25`` and
  ``memory_vector``) put at a given place of the top five when the fused list has them lower.

``--count`` prints, for LongMemEval (both halves), bench/data/convo and bench/codemem, how many
questions :func:`events` splits and how many name a time (``search.when.time_window``, as of the
question's date), the questions the ``time_window`` step's ``late_days`` can move.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import codemem as cm  # noqa: E402
import convo  # noqa: E402
import longmemeval as lme  # noqa: E402

from knotwork.search.when import time_window  # noqa: E402

_QUOTED = re.compile(r"(?:^|(?<=[\s:,(]))'([^']+?)'(?=[\s,.?;:)]|$)")
# (pattern, whether its groups are the events); the first that matches wins.
_SHAPES = [
    re.compile(r"\bfirst\b[,:]?\s+(?:the\s+)?(.+?)\s+or\s+(?:the\s+)?(.+)$", re.I),
    re.compile(r"\bbetween\s+(?:the day\s+)?(.+?)\s+and\s+(?:the day\s+)?(.+)$", re.I),
]
_AFTER = [
    re.compile(r"\bsince\s+(.+?)\s+when\s+(.+)$", re.I),
    re.compile(r"\bhow long had I been\s+(.+?)\s+when\s+(.+)$", re.I),
    re.compile(r"\bbefore\s+(.+?)\s+did\s+(?:I\s+)?(.+)$", re.I),
]


def events(text: str) -> list[str]:
    """The event phrases of a question about several events; [] for any other question.

    >>> events("Which device did I get first, the Galaxy S22 or the Dell XPS 13?")
    ['Galaxy S22', 'Dell XPS 13']
    >>> events("How many days passed between the day I fixed my bike and the day I sold it?")
    ['I fixed my bike', 'I sold it']
    >>> events("Where did I go on holiday?")
    []
    """
    t = text.strip().rstrip("?").strip()
    for shape in _SHAPES:
        if m := shape.search(t):
            return [m.group(1), m.group(2)]
    if m := re.search(r":\s*(.+)$", t):
        parts = [p for p in re.split(r",\s*(?:and\s+)?|\s+and\s+", m.group(1)) if p.strip()]
        if len(parts) >= 2:
            return parts
    if len(quoted := _QUOTED.findall(t)) >= 2:
        return quoted
    for shape in _AFTER:
        if m := shape.search(t):
            return [m.group(1), m.group(2)]
    return []


def put_first(main: Sequence[str], extra: Sequence[str], slot: int) -> list[str]:
    """``main`` with each of ``extra`` moved (or brought) to place ``slot`` (0-based) unless it is there or higher."""
    out = list(main)
    for mid in extra:
        if mid in out[: slot + 1]:
            continue
        if mid in out:
            out.remove(mid)
        out.insert(slot, mid)
    return out


def interleave(main: Sequence[str], parts: Sequence[Sequence[str]], per: int = 1) -> list[str]:
    """The first of ``main``, then the first ``per`` of each part, then the rest of ``main``; no id twice."""
    out: list[str] = []
    for ids in (main[:1], *(p[:per] for p in parts), main):
        out.extend(i for i in ids if i not in out)
    return out


def count() -> None:
    print(f"load {os.getloadavg()[0]:.1f}")
    print("| set | questions | split into events | name a time |")
    print("|---|---:|---:|---:|")
    data = lme.load(lme.DEFAULT_DATA if lme.DEFAULT_DATA.exists() else Path("/work/shared/data/longmemeval_oracle.json.gz"))
    for h in ("dev", "test"):
        qs = [q for q in data.questions if lme.half(q.id) == h]
        timed = sum(time_window(q.text, datetime.fromisoformat(lme.session_time(q.date).replace("Z", "+00:00"))) is not None for q in qs)
        print(f"| LongMemEval {h} | {len(qs)} | {sum(bool(events(q.text)) for q in qs)} | {timed} |")
    cv = convo.load()
    for h in ("dev", "test"):
        qs = [q for q in cv.questions if q.half == h]
        timed = sum(time_window(q.text, datetime.fromisoformat(q.asked_at.replace("Z", "+00:00"))) is not None for q in qs)
        print(f"| convo {h} | {len(qs)} | {sum(bool(events(q.text)) for q in qs)} | {timed} |")
    code = cm.load()
    for h in ("dev", "test"):
        qs = [q for q in code.questions if q.half == h]
        now = datetime.now().astimezone()
        timed = sum(time_window(q.text, datetime.fromisoformat(q.asked_at.replace("Z", "+00:00")) if q.asked_at else now) is not None for q in qs)
        print(f"| codemem {h} | {len(qs)} | {sum(bool(events(q.text)) for q in qs)} | {timed} |")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", type=Path, default=lme.DEFAULT_DATA)
    p.add_argument("--store", type=Path)
    p.add_argument("--half", choices=("dev", "test"), default="dev")
    p.add_argument("--count", action="store_true")
    p.add_argument("--show", action="store_true", help="print each split question with its hits before and after")
    args = p.parse_args()
    if args.count:
        return count()
    if args.store is None or not args.store.exists():
        raise SystemExit("--store: build it first with bench/longmemeval.py --store PATH --asked-at")
    data = lme.load(args.data)
    questions = [q for q in data.questions if lme.half(q.id) == args.half]
    kw = lme.KnotworkStore(data.turns, args.store, asked_at=True)

    def ids(text: str, q: lme.Question, depth: int, recipe: str | None = None) -> list[str]:
        extra = {"recipe": recipe} if recipe else {}
        return [h.memory.id for h in kw.mem.search(text, workspace=lme.WORKSPACE, limit=depth, now=lme.session_time(q.date), **extra)]

    rows = []
    for q in questions:
        split = events(q.text)
        rows.append((q, ids(q.text, q, 30), [ids(e, q, 10) for e in split], ids(q.text, q, 5, "memory_bm25"), ids(q.text, q, 5, "memory_vector")))
    kw_turns = kw.turns_of

    def score(fn: Callable[..., list[str]], only_split: bool = False) -> tuple[float, float, int]:
        s5, t10 = [], []
        for q, main, parts, bm, vec in rows:
            if only_split and not parts:
                continue
            ranked = [k for mid in fn(main, parts, bm, vec) for k in kw_turns[mid]]
            hit = lme.evaluate(ranked, q.answer_sessions, q.answer_turns, [5, 10])
            s5.append(hit["session@5"])
            if hit["turn@10"] is not None:
                t10.append(hit["turn@10"])
        return sum(s5) / max(len(s5), 1), sum(t10) / max(len(t10), 1), len(s5)

    if args.show:
        for q, main, parts, _, _ in rows:
            if parts:
                before = lme.evaluate([k for m in main for k in kw_turns[m]], q.answer_sessions, q.answer_turns, [5, 10])
                after = lme.evaluate([k for m in interleave(main, parts) for k in kw_turns[m]], q.answer_sessions, q.answer_turns, [5, 10])
                print(f"S@5 {before['session@5']}->{after['session@5']} T@10 {before['turn@10']}->{after['turn@10']} {parts} | {q.text[:80]}")
    variants: list[tuple[str, Callable[..., list[str]]]] = [
        ("default", lambda m, p, b, v: m),
        ("events: best of each, per=1", lambda m, p, b, v: interleave(m, p, 1) if p else m),
        ("events: best two of each", lambda m, p, b, v: interleave(m, p, 2) if p else m),
        ("leaders: bm25+vector top 1 at 3rd", lambda m, p, b, v: put_first(m, b[:1] + v[:1], 2)),
        ("leaders: bm25+vector top 1 at 4th", lambda m, p, b, v: put_first(m, b[:1] + v[:1], 3)),
        ("leaders: bm25+vector top 1 at 5th", lambda m, p, b, v: put_first(m, b[:1] + v[:1], 4)),
        ("leaders: vector top 1 at 5th", lambda m, p, b, v: put_first(m, v[:1], 4)),
        ("leaders: bm25+vector top 2 at 4th", lambda m, p, b, v: put_first(m, b[:2] + v[:2], 3)),
    ]
    print(f"load {os.getloadavg()[0]:.1f}; {args.half} half, {len(questions)} questions, "
          f"{sum(bool(r[2]) for r in rows)} split into events")
    print("| variant | S@5 | T@10 | S@5 split q | T@10 split q |")
    print("|---|---:|---:|---:|---:|")
    for name, fn in variants:
        s5, t10, _ = score(fn)
        s5s, t10s, _ = score(fn, only_split=True)
        print(f"| {name} | {s5:.3f} | {t10:.3f} | {s5s:.3f} | {t10s:.3f} |", flush=True)
    kw.close()


if __name__ == "__main__":
    main()
