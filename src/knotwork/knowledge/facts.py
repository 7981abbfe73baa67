"""Facts in time: what a new fact does to the facts already stored.

Pure functions: given the new fact and the stored facts with the same
subject and predicate, :func:`plan` says whether the new fact is a repeat of
a stored one, which stored facts it retires, and whether it arrives already
retired. The knowledge service writes what the plan says.

Rules (world time; a missing ``valid_at`` is "since always", a missing
``invalid_at`` "still true"):

- same object, overlapping time: a repeat — the stored fact gains a source;
  stated from an earlier time, with no other value in between, the stored
  fact starts then (``start_repeat``), so arrival order does not decide it;
- single-valued predicate (``lives_in``, ``prefers``…), other object,
  overlapping time:
  - the stored fact started no later than the new one: it is retired at the
    new fact's ``valid_at`` and points at the new fact;
  - the stored fact started later (the new fact arrived late): the new fact
    is stored already retired at the stored fact's ``valid_at`` and points
    at it;
- ``replaces=Y`` ("moved from Y to Z"): facts with object Y that overlap are
  retired the same way, whatever the predicate's kind;
- ``turn`` ("the API is now deployed on Z", a predicate whose values take
  turns): when exactly one other value holds at the new fact's start and
  started no later, it is retired the same way; with several, none is (the
  sentence does not say which one it replaced); a stored turn that starts
  after a late-arriving value, with nothing else held then, ends that value
  (``turned``);
- same object, the new fact stated as over ("no longer uses Y": no start,
  an end) while the stored one is still open: a repeat that ends the stored
  fact at the new fact's end (``end_repeat``);
- a fact stated as over ends at the memory's time (:func:`over_at`), unless
  it names its own start and the memory is dated within that start's year
  ("Back in 2023 Jeff lived in Denver" in a memory dated 2023): then the
  memory's date is the time spoken of, the end is unknown, and the fact
  stays open until a later value retires it.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from knotwork.knowledge.models import Fact


@dataclass(frozen=True, slots=True)
class Retire:
    fact_id: str
    invalid_at: datetime | None
    superseded_by: str


@dataclass
class Plan:
    repeat_of: str | None = None           # the stored fact this one repeats (add a source, write nothing new)
    invalid_at: datetime | None = None     # the new fact's end
    superseded_by: str | None = None       # the fact that already replaces the new one
    retire: list[Retire] = field(default_factory=list)
    restated: bool = False                  # the replaced object was never stored: store it retired
    end_repeat: datetime | None = None      # the repeated stored fact ends then ("no longer uses Y")
    start_repeat: datetime | None = None    # the repeated stored fact starts then (stated again from earlier)


def _start(t: datetime | None) -> tuple[int, datetime | None]:
    return (0, None) if t is None else (1, t)


def overlaps(a_start: datetime | None, a_end: datetime | None, b_start: datetime | None, b_end: datetime | None) -> bool:
    """Do [a_start, a_end) and [b_start, b_end) share a moment? (None = unbounded.)"""
    a_before_b_ends = a_start is None or b_end is None or a_start < b_end
    b_before_a_ends = b_start is None or a_end is None or b_start < a_end
    return a_before_b_ends and b_before_a_ends


def over_at(start: datetime | None, said_at: datetime) -> datetime | None:
    """The end of a fact stated as over ("lived in", "used to use") in a memory dated ``said_at``.

    Trigger: a past fact with its own start ("Back in 2023 …", start 2023-01-01) in a memory dated no
    later than that year. Why: a memory dated within the year it speaks of is dated by the time spoken
    of, not by the time of speaking, so its date is no end (and an end at or before the start stored
    nothing at all). Outcome: no end (None); a later value retires the fact in time order."""
    if start is not None and said_at < start.replace(year=start.year + 1, month=1, day=1, hour=0, minute=0,
                                                     second=0, microsecond=0):
        return None
    return said_at


def starts_no_later(a: datetime | None, b: datetime | None) -> bool:
    return _start(a) <= _start(b)


def lone_later(object_id: str, valid_at: datetime | None, stored: Sequence[Fact]) -> list[Fact]:
    """Stored values of another object that start after ``valid_at`` with no other value held when they start
    (what one retired when it came counts as held then): the values a late-arriving one may have given way to."""
    out = []
    for t in stored:
        if t.object_id == object_id or starts_no_later(t.valid_at, valid_at):
            continue
        if not any(g.id != t.id and g.object_id != t.object_id and starts_no_later(g.valid_at, t.valid_at)
                   and (g.superseded_by == t.id or overlaps(g.valid_at, g.invalid_at, t.valid_at, t.invalid_at))
                   for g in stored):
            out.append(t)
    return out


def plan(
    new_id: str,
    object_id: str,
    valid_at: datetime | None,
    invalid_at: datetime | None,
    stored: Sequence[Fact],
    *,
    single_valued: bool,
    replaces_object_id: str | None = None,
    turn: bool = False,
    turned: Collection[str] = (),
) -> Plan:
    """What storing ``(object_id, valid_at, invalid_at)`` does, given ``stored`` facts of the same subject and predicate."""
    out = Plan(invalid_at=invalid_at)
    for f in stored:
        if f.object_id == object_id and overlaps(f.valid_at, f.invalid_at, valid_at, invalid_at):
            out.repeat_of = f.id
            if valid_at is None and invalid_at is not None and (f.invalid_at is None or f.invalid_at > invalid_at):
                out.end_repeat = invalid_at
            elif valid_at is not None and f.valid_at is not None and valid_at < f.valid_at:
                # Trigger: the same value stated from an earlier time than the stored fact's start (the memory
                # that says so arrived later). Why: time order, not arrival order. Outcome: the stored fact
                # starts earlier, unless another value, or another statement of this one, holds in between.
                between = [
                    g for g in stored
                    if g.id != f.id and (g.object_id == object_id or single_valued)
                    and overlaps(g.valid_at, g.invalid_at, valid_at, f.valid_at)
                ]
                if not between:
                    out.start_repeat = valid_at
            return out
    before: set[str] = set()
    if turn and not single_valued and valid_at is not None:
        # Trigger: "now" on a predicate whose values take turns. Why: it says the value before is over, but not
        # which one when several hold. Outcome: the one value holding then is retired; with several, none.
        held = [f for f in stored if f.object_id != object_id and starts_no_later(f.valid_at, valid_at)
                and overlaps(f.valid_at, f.invalid_at, valid_at, invalid_at)]
        before = {f.id for f in held} if len({f.object_id for f in held}) == 1 else set()
    if turned and not single_valued:
        # Trigger: a stored value stated as a turn ("now …", ids in ``turned``) starts after the new one. Why: the
        # new value is the one it replaced when nothing else held then (the memory saying so came late).
        # Outcome: the new value ends where the turn starts.
        before |= {t.id for t in lone_later(object_id, valid_at, stored) if t.id in turned}
    conflicting = [
        f
        for f in stored
        if f.object_id != object_id
        and (single_valued or f.object_id == replaces_object_id or f.id in before)
        and overlaps(f.valid_at, f.invalid_at, valid_at, out.invalid_at)
    ]
    later = [f for f in conflicting if not starts_no_later(f.valid_at, valid_at)]
    if later:
        first = min(later, key=lambda f: _start(f.valid_at))
        if out.invalid_at is None or (first.valid_at is not None and first.valid_at < out.invalid_at):
            out.invalid_at = first.valid_at
        out.superseded_by = first.id
    for f in conflicting:
        # Trigger: a new fact with no start ("used to live in Y", true since always). Why: it names no
        # moment the stored value ended at, and retiring at None would make that value true forever again.
        # Outcome: the stored fact keeps its own time; the new one was already cut at the first later start.
        if valid_at is None:
            continue
        if starts_no_later(f.valid_at, valid_at) and overlaps(f.valid_at, f.invalid_at, valid_at, out.invalid_at):
            out.retire.append(Retire(f.id, valid_at, new_id))
    if replaces_object_id and not any(f.object_id == replaces_object_id for f in stored):
        out.restated = True
    return out



def shown_change(confidence: float, p: Plan, stored: Sequence[Fact], shown: float, scored: Collection[str],
                 ours: bool) -> tuple[float, list[str]]:
    """A change of a value the reader is shown is shown too: (the new fact's confidence, stored facts to raise).

    Trigger: the plan retires a shown stored fact (a caller's, or a scored one at least ``shown``, the reading
    default) in favour of a new scored fact under ``shown``; or a shown new fact arrives retired in favour of a
    stored scored one under it (the older memory came late). ``scored``: the extractors whose confidence is the
    fact scorer's; ``ours``: the new fact is one of theirs.
    Why: the scorer rates each sentence alone; "V8 6.6 landed today on master" (0.60) or "since I moved to
    Alameda" (0.65) are unsure on their own, but after a shown value of the same subject and predicate they are
    its successor, and a hidden successor leaves the reader with nothing current, or the stale value ``as_of``
    later. On the dev sequences of every set each such successor was right (3 of 3; bench/RESULTS.md).
    Outcome: the successor's confidence is raised to ``shown``. Which facts retire is the plan's alone."""
    by_id = {f.id: f for f in stored}

    def visible(f: Fact) -> bool:
        return f.extractor not in scored or f.confidence >= shown

    raise_new = ours and confidence < shown and any(
        visible(by_id[r.fact_id]) for r in p.retire if r.fact_id in by_id)
    later = by_id.get(p.superseded_by) if p.superseded_by else None
    new_visible = not ours or confidence >= shown
    raise_stored = [later.id] if (later is not None and new_visible and not visible(later)) else []
    return (shown if raise_new else confidence), raise_stored
