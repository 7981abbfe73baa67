"""A retired memory never ranks above the memory that retired it.

A search with ``include_invalid`` (or one asked at a ``now`` after a memory's ``invalid_at``) may hold both an
older memory and the newer one that superseded it ("Harbor's primary database is MySQL 5.7" retired by "... is
PostgreSQL 16"). The older one often matches the question's words better: it came first, and the newer one
carries the reason for the change ("since the March migration"). Ranked above its successor, it is the costliest
wrong answer: stale, and first. So after every stage, each retired candidate whose successor (``superseded_by``
in its metadata, set when it was retired) is also a candidate goes right below that successor, scored no higher;
a chain (A retired by B, B by C) ends C, B, A. Everything else keeps its order. The default search leaves
retired memories out, so this moves nothing there unless ``now`` makes a memory retired that is not retired
today (it never is: retired means ``invalid_at <= now``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from knotwork.domain.models import SUPERSEDED_BY, Memory
from knotwork.search.rerankers import Candidate


def successors_first(cands: Sequence[Candidate], memories: Mapping[str, Memory], at: datetime) -> list[Candidate]:
    """``cands`` with every candidate retired at ``at`` placed right after the candidate that retired it."""
    ids = {c.id for c in cands}
    successor: dict[str, str] = {}
    for c in cands:
        m = memories.get(c.id)
        if m is None or m.invalid_at is None or m.invalid_at > at:
            continue
        told = m.metadata.get(SUPERSEDED_BY)
        by = told.get("id") if isinstance(told, dict) else None
        if by in ids and by != c.id:
            successor[c.id] = by
    if not successor:
        return list(cands)
    out: list[Candidate] = []
    placed: dict[str, float] = {}
    waiting: dict[str, list[Candidate]] = {}

    def place(c: Candidate) -> None:
        out.append(c)
        placed[c.id] = c.score
        for w in waiting.pop(c.id, []):
            place(Candidate(w.id, min(w.score, c.score), {**w.scores, "successor_first": min(w.score, c.score)})
                  if w.score > c.score else w)

    for c in cands:
        by = successor.get(c.id)
        if by is not None and by not in placed:
            waiting.setdefault(by, []).append(c)
        else:
            place(c)
    for stuck in list(waiting.values()):  # a cycle of retirements (never made by the write path): as they came
        for c in stuck:
            if c.id not in placed:
                place(c)
    return out
