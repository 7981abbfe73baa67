"""Conversations without thread keys: candidates that follow each other closely in time, scored together.

A pure step over plain values, like the rerankers of search/rerankers.py. A store
of chat turns loaded without ``thread`` still says which turns belong together:
the turns of one conversation follow each other within minutes, in one
workspace and partition. Among the first candidates of a search, those of one
workspace and partition whose times follow each other with no gap longer than
``gap_minutes`` form a *neighbourhood*; a memory with a thread keeps its thread.
Then each thread or neighbourhood is scored as ``thread_score`` scores threads:
by its share of what matched, each of its members moving toward its best by
that share. Where the matches are spread over many neighbourhoods (separate
notes written on different days), little moves.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from datetime import datetime

from knotwork.search.rerankers import THREAD_DEPTH, Candidate, thread_score


def neighbourhoods(
    places: Mapping[str, tuple[str, str, str]], dates: Mapping[str, datetime], gap_minutes: float, same_time: bool = True
) -> dict[str, Hashable]:
    """A key for each id of ``places``: ``("thread", workspace, partition, thread)`` for a memory with a
    thread; for one without, ``("near", workspace, partition, n)``, the same ``n`` for memories whose
    ``valid_at`` follow each other (sorted) with no gap over ``gap_minutes``. ``same_time=False``: memories
    at exactly the same time do not join (a batch written with one date, not a conversation).

    >>> from datetime import datetime as d
    >>> p = {"a": ("w", "", ""), "b": ("w", "", ""), "c": ("w", "", ""), "t": ("w", "", "x")}
    >>> t = {"a": d(2026, 1, 1, 10, 0), "b": d(2026, 1, 1, 10, 5), "c": d(2026, 1, 2), "t": d(2026, 1, 1, 10, 1)}
    >>> keys = neighbourhoods(p, t, 10)
    >>> keys["a"] == keys["b"] != keys["c"], keys["t"]
    (True, ('thread', 'w', '', 'x'))
    """
    keys: dict[str, Hashable] = {}
    loose: dict[tuple[str, str], list[tuple[datetime, str]]] = {}
    for mid, (workspace, partition, thread) in places.items():
        if thread:
            keys[mid] = ("thread", workspace, partition, thread)
        elif mid in dates:
            loose.setdefault((workspace, partition), []).append((dates[mid], mid))
    gap = gap_minutes * 60
    n = 0
    for (workspace, partition), items in loose.items():
        items.sort()
        previous: datetime | None = None
        for at, mid in items:
            seconds = None if previous is None else (at - previous).total_seconds()
            if seconds is None or seconds > gap or (seconds == 0 and not same_time):
                n += 1
            keys[mid] = ("near", workspace, partition, n)
            previous = at
    return keys


def neighbourhood_score(
    cands: Sequence[Candidate],
    places: Mapping[str, tuple[str, str, str]],
    dates: Mapping[str, datetime],
    gap_minutes: float = 30.0,
    weight: float = 1.0,
    depth: int = THREAD_DEPTH,
    same_time: bool = True,
) -> list[Candidate]:
    """``thread_score`` over threads and, for memories without one, neighbourhoods in time (:func:`neighbourhoods`).

    The step's score is recorded as ``neighbourhood_score``; a store whose memories all name a thread ranks as
    under ``thread_score``.
    """
    top = [c.id for c in cands[:depth]]
    keys = neighbourhoods({i: places[i] for i in top if i in places}, dates, gap_minutes, same_time)
    moved = thread_score(cands, keys, weight=weight, depth=depth)
    out = []
    for c in moved:  # the step's score under its own name
        scores = dict(c.scores)
        scores["neighbourhood_score"] = scores.pop("thread_score", c.score)
        out.append(Candidate(c.id, c.score, scores))
    return out
