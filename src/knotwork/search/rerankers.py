"""Rerankers: small pure functions over candidates.

Each takes the candidates (best first) plus the facts it needs as plain
values, and returns new candidates with updated scores, re-sorted. None of
them does I/O; the pipeline fetches what they need before calling them.
Each writes its resulting score under its own name in ``scores`` so that
``explain`` can show every stage.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

import numpy as np


_FRESH: dict[str, float] = {}  # "no scores given": each such candidate gets a new dict of its own


@dataclass(frozen=True, slots=True)
class Candidate:
    """A memory id moving through the pipeline, with the score of every stage it passed."""

    id: str
    score: float
    scores: dict[str, float] = field(default_factory=dict)

    def __init__(self, id: str, score: float, scores: dict[str, float] = _FRESH) -> None:  # noqa: A002
        # Trigger: a search builds some 1,300 candidates (fusion, then each reranker rescores every one). Why:
        # the ``__init__`` a frozen dataclass is given sets each field through ``object.__setattr__``, about
        # 7% of a search's CPU. Outcome: the fields are set through their slots' own setters (the frozen
        # class still refuses every later assignment); the same fields, defaults and checks as before.
        _set_id(self, id)
        _set_score(self, score)
        _set_scores(self, {} if scores is _FRESH else scores)

    def rescored(self, stage: str, score: float) -> Candidate:
        # Built directly, not with dataclasses.replace: a search rescores a few hundred candidates per
        # reranker, and replace() costs about twice the construction.
        return Candidate(self.id, score, {**self.scores, stage: score})


_set_id, _set_score, _set_scores = Candidate.id.__set__, Candidate.score.__set__, Candidate.scores.__set__  # type: ignore[attr-defined]


def _noted(c: Candidate, stage: str, value: float) -> Candidate:
    """``c`` with a stage's value recorded beside its score, the score unchanged."""
    return Candidate(c.id, c.score, {**c.scores, stage: value})


def _sorted(cands: list[Candidate]) -> list[Candidate]:
    return sorted(cands, key=lambda c: -c.score)


def node_distance(cands: Sequence[Candidate], hops: Mapping[str, int], weight: float = 0.5) -> list[Candidate]:
    """Blend in closeness to a center: ``(1-w)·score + w/(1+hops)``; unreachable adds nothing."""
    return _sorted([
        c.rescored("node_distance", (1 - weight) * c.score + (weight / (1 + hops[c.id]) if c.id in hops else 0.0))
        for c in cands
    ])


def episode_mentions(cands: Sequence[Candidate], mentions: Mapping[str, int], weight: float = 0.1) -> list[Candidate]:
    """Boost what is referred to often: ``score·(1 + w·ln(1+mentions))``."""
    return _sorted([c.rescored("episode_mentions", c.score * (1 + weight * math.log1p(mentions.get(c.id, 0)))) for c in cands])


def mmr(cands: Sequence[Candidate], vectors: Mapping[str, np.ndarray], lambda_: float = 0.7, k: int | None = None) -> list[Candidate]:
    """Maximal marginal relevance: greedily pick ``λ·relevance − (1−λ)·max similarity to picked``.

    Relevance is the incoming score scaled to [0, 1]. Candidates without a
    vector count as dissimilar to everything. The first ``k`` (default all)
    come in selection order; the rest follow in their incoming order. MMR
    decides the order only: each candidate keeps its score (its relevance),
    and the MMR value it was picked with is kept under ``mmr``.
    """
    pool = list(cands)
    if not pool:
        return []
    top = max(c.score for c in pool) or 1.0
    rel = np.array([c.score / top for c in pool])
    dim = next((len(v) for v in vectors.values()), 0)
    matrix = np.array([vectors[c.id] if c.id in vectors else np.zeros(dim) for c in pool], dtype=np.float32)
    redundancy = np.zeros(len(pool))  # each candidate's highest similarity to anything picked so far
    left = np.ones(len(pool), dtype=bool)
    picked: list[Candidate] = []
    for _ in range(len(pool) if k is None else min(k, len(pool))):
        value = np.where(left, lambda_ * rel - (1 - lambda_) * redundancy, -np.inf)
        best = int(np.argmax(value))
        left[best] = False
        picked.append(_noted(pool[best], "mmr", float(value[best])))
        if dim:
            redundancy = np.maximum(redundancy, matrix @ matrix[best])
    return picked + [_noted(c, "mmr", -math.inf) for c, keep in zip(pool, left) if keep]


def freshness(
    cands: Sequence[Candidate], dates: Mapping[str, datetime | None], now: datetime, half_life_days: float = 30.0, weight: float = 1.0
) -> list[Candidate]:
    """Decay with age: ``score·((1−w) + w·exp(−age_days/half_life))``; undated items keep their score."""
    out = []
    for c in cands:
        when = dates.get(c.id)
        if when is None:
            out.append(c.rescored("freshness", c.score))
            continue
        age = max(0.0, (now - when).total_seconds() / 86400)
        out.append(c.rescored("freshness", c.score * ((1 - weight) + weight * math.exp(-age / half_life_days))))
    return _sorted(out)


def diversity(cands: Sequence[Candidate], keys: Mapping[str, str | None], per_key: int = 1) -> list[Candidate]:
    """At most ``per_key`` results per group key first (artifact, entity, subject–object pair), the rest after.

    Candidates with no key are never held back. Scores are unchanged; only the order moves.
    """
    counts: dict[str, int] = {}
    first, rest = [], []
    for c in cands:
        key = keys.get(c.id)
        if key is None or counts.get(key, 0) < per_key:
            first.append(c)
            if key is not None:
                counts[key] = counts.get(key, 0) + 1
        else:
            rest.append(c)
    return [c.rescored("diversity", c.score) for c in first + rest]


def novelty(cands: Sequence[Candidate], surfaced: Mapping[str, float], weight: float = 0.5) -> list[Candidate]:
    """Penalise what was shown recently: ``score / (1 + w·recent_surfacings)``."""
    return _sorted([c.rescored("novelty", c.score / (1 + weight * surfaced.get(c.id, 0.0))) for c in cands])


def importance(cands: Sequence[Candidate], values: Mapping[str, float], weight: float = 0.3) -> list[Candidate]:
    """Boost important memories: ``score·(1 + w·(importance − 0.5))`` (importance 0.5 is neutral)."""
    return _sorted([c.rescored("importance", c.score * (1 + weight * (values.get(c.id, 0.5) - 0.5))) for c in cands])


def brevity(cands: Sequence[Candidate], lengths: Mapping[str, int], weight: float = 0.3) -> list[Candidate]:
    """Prefer the concise: ``score·(words / mean words)^−w``, the mean taken over the candidates.

    A short memory that matches says more about the match than a long one
    that mentions the same words in passing (a document-length prior).
    Candidates of unknown length keep their score.
    """
    known = [n for c in cands if (n := lengths.get(c.id))]
    if not known:
        return [c.rescored("brevity", c.score) for c in cands]
    mean = sum(known) / len(known)
    return _sorted([
        c.rescored("brevity", c.score * (max(lengths[c.id], 1) / mean) ** -weight if lengths.get(c.id) else c.score)
        for c in cands
    ])


def time_window(
    cands: Sequence[Candidate],
    dates: Mapping[str, datetime | None],
    window: tuple[datetime, datetime] | None,
    boost: float = 0.5,
    late_days: float = 0.0,
) -> list[Candidate]:
    """Favour what was valid when the query says: ``score·(1 + boost)`` inside ``window``.

    ``window`` comes from the query's own words ("two weeks ago", "in March";
    see ``search.when``); with none, nothing changes. ``late_days`` stretches
    its end: what happened in the window is often told a day or two after it
    ("I tried a mezcal sour last weekend", said on the Wednesday).
    """
    if window is None:
        return [c.rescored("time_window", c.score) for c in cands]
    start, end = window
    end += timedelta(days=late_days)
    return _sorted([
        c.rescored("time_window", c.score * (1 + boost) if (d := dates.get(c.id)) and start <= d <= end else c.score)
        for c in cands
    ])


def later_above(
    order: list[Candidate],
    dates: Mapping[str, datetime | None],
    usable: Callable[[Candidate], bool],
    replaces: Callable[[Candidate, Candidate], bool],
) -> list[Candidate]:
    """``order`` with the latest later candidate that ``replaces`` an earlier one (``replaces(earlier, later)``)
    moved right above it, taking its score; the one it passed is looked at again (a chain A -> B -> C ends C, B,
    A), and the newcomer keeps its place. Only candidates ``usable`` (and dated) take part; the rest stay where
    they are. The walk :func:`restated` and :mod:`~knotwork.search.later` share."""
    order = list(order)
    moved: set[str] = set()
    pos = 0
    while pos < len(order):
        a = order[pos]
        if not usable(a) or a.id in moved or dates.get(a.id) is None:
            pos += 1
            continue
        later = [b for b in order[pos + 1 :] if usable(b) and dates.get(b.id) is not None
                 and dates[b.id] > dates[a.id] and replaces(a, b)]  # type: ignore[operator]
        if not later:
            pos += 1
            continue
        b = max(later, key=lambda c: dates[c.id])  # type: ignore[arg-type, return-value]
        order.remove(b)
        order.insert(pos, replace(b, score=a.score))
        moved.add(b.id)
    return order


def restated(
    cands: Sequence[Candidate],
    vectors: Mapping[str, np.ndarray],
    dates: Mapping[str, datetime | None],
    topics: Mapping[str, set[str]] | None = None,
    threshold: float = 0.75,
    topic_threshold: float | None = None,
) -> list[Candidate]:
    """A later memory that says again what a higher-ranked, earlier one says moves just above it.

    "My 5K best is 27:12" in May and "hoping to beat my best of 25:50" in
    July both answer "what is my 5K best?", and the older one often matches
    the words better. ``vectors`` holds, for each candidate, its passage
    closest to the query; two candidates whose such passages have a cosine
    of at least ``threshold`` state the same thing, and the later one is
    the one that holds now. ``topics`` gives, for each candidate, the
    entities the query names that it mentions: two candidates about the same
    named thing ("Instagram", "Wells Fargo") need only ``topic_threshold``
    (None: no such allowance).
    The later one takes the place (and the score) of the first earlier
    restatement above it; everything else keeps its order. Candidates
    without a vector or a date stay where they are.
    """
    topics = topics or {}
    order = list(cands)
    usable = [i for i, c in enumerate(order) if c.id in vectors and dates.get(c.id) is not None]
    if len(usable) < 2:
        return [c.rescored("restated", c.score) for c in order]
    ids = [order[i].id for i in usable]
    similar = np.stack([vectors[i] for i in ids]) @ np.stack([vectors[i] for i in ids]).T
    at = {cid: k for k, cid in enumerate(ids)}
    def same(a: Candidate, b: Candidate) -> bool:
        ka, kb = at.get(a.id), at[b.id]
        return ka is not None and (
            similar[ka, kb] >= threshold
            or topic_threshold is not None
            and similar[ka, kb] >= topic_threshold
            and bool(topics.get(a.id, set()) & topics.get(b.id, set()))
        )

    order = later_above(order, dates, lambda b: b.id in at, same)
    return [c.rescored("restated", c.score) for c in order]


def named_first(cands: Sequence[Candidate], source: str = "names") -> list[Candidate]:
    """The candidates the query names come first, then the rest, each group in its incoming order.

    A named candidate has a ``source`` score above 0: 1 / the number of memories holding the
    name (an evidence id, artifact or tag value equal to an identifier in the query), so the
    rarer name goes first. A named candidate scores at least as much as the best of the rest,
    so scores still fall down the list.
    """
    named = sorted((c for c in cands if c.scores.get(source, 0.0) > 0), key=lambda c: -c.scores[source])
    rest = [c for c in cands if c.scores.get(source, 0.0) <= 0]
    floor = max((c.score for c in rest), default=0.0)
    lifted: list[Candidate] = []
    for c in reversed(named):  # from the last named up, so that scores never rise down the list
        floor = max(floor, c.score)
        lifted.append(c.rescored("named_first", floor))
    return lifted[::-1] + [c.rescored("named_first", c.score) for c in rest]


def source_leaders(
    cands: Sequence[Candidate],
    sources: Sequence[str] = ("bm25", "vector"),
    place: int = 3,
    tallies_only: bool = False,
    tally: bool = True,
) -> list[Candidate]:
    """The best candidate of each of ``sources`` on its own moves up to ``place`` (1-based) when it sits lower.

    A source's best is the candidate with the highest raw score under that
    source's name in ``scores`` (above 0; the first such in the incoming
    order on a tie). The fused score can bury it: a turn that is BM25's
    first but a weak vector match, or the vectors' first with none of the
    query's words. Sources are taken in order, each leader put at
    ``place``, so a later source's leader lands above an earlier one's. A
    moved candidate takes the score of the one it displaces, so scores still
    fall down the list; nothing else changes. With ``tallies_only``, only a
    question that asks for a count, a total or an order (``tally``, from
    ``search.shapes.tallies``) moves anything.

    >>> cands = [Candidate("a", 0.9, {"bm25": 0.5}), Candidate("b", 0.8, {"bm25": 0.4}), Candidate("c", 0.3, {"vector": 0.7})]
    >>> [(c.id, c.score) for c in source_leaders(cands, place=2)]
    [('a', 0.9), ('c', 0.8), ('b', 0.8)]
    """
    out = [c.rescored("source_leaders", c.score) for c in cands]
    if tallies_only and not tally:
        return out
    at = max(place, 1) - 1
    for source in sources:
        best = max(range(len(out)), key=lambda i: (out[i].scores.get(source, 0.0), -i), default=None)
        if best is None or out[best].scores.get(source, 0.0) <= 0 or best <= at:
            continue
        leader = out.pop(best)
        out.insert(at, leader.rescored("source_leaders", out[at].score))
    return out


THREAD_DEPTH = 50  # the candidates thread_score weighs and moves (the pipeline reads the threads of these only)


def thread_score(
    cands: Sequence[Candidate], threads: Mapping[str, Hashable], weight: float = 1.0, depth: int = THREAD_DEPTH
) -> list[Candidate]:
    """Score each thread, then its turns: a turn moves toward its thread's best score by the thread's share.

    ``threads`` gives each candidate's thread (any key: the store's is its
    workspace, partition and ``metadata.thread``, the conversation it belongs to). A thread's share is the sum of its
    candidates' scores among the first ``depth`` over the sum of all of
    theirs: how much of what the search found is in that conversation. A
    turn scores ``score + w·share·(best of its thread − score)``. The search
    often finds the right conversation through one turn that says the
    question's words and misses the turn beside it that answers; when one
    conversation holds most of what matched, its other turns come up beside
    that turn, and when the matches are spread over many, little moves (the
    best turns of several conversations keep their places). A thread's best
    turn, a candidate with no thread, and every candidate after the first
    ``depth`` keep their scores.
    """
    top = cands[:depth]
    total = sum(max(c.score, 0.0) for c in top)
    mass: dict[Hashable, float] = {}
    best: dict[Hashable, float] = {}
    for c in top:
        if (key := threads.get(c.id)) is not None:
            best[key] = max(best.get(key, c.score), c.score)
            mass[key] = mass.get(key, 0.0) + max(c.score, 0.0)

    def lifted(c: Candidate) -> float:
        key = threads.get(c.id)
        if key is None or total <= 0:
            return c.score
        # best − (1 − w·share)·(best − score), which is score + w·share·(best − score) written so that it stays
        # monotone in the score: when one thread holds every match (share 1) its turns tie at its best, exactly,
        # and keep their order (the sort is stable) instead of being reordered by rounding
        return best[key] - (1.0 - weight * mass[key] / total) * (best[key] - c.score)

    return _sorted([c.rescored("thread_score", lifted(c)) for c in top] + [c.rescored("thread_score", c.score) for c in cands[depth:]])


def thread_neighbours(
    cands: Sequence[Candidate],
    neighbours: Mapping[str, tuple[str, Sequence[str]]],
    weight: float = 0.2,
    expand: bool = False,
    in_time: bool = False,
) -> list[Candidate]:
    """A turn scored with the turns around it: ``score + w·max(neighbour scores)``.

    ``neighbours`` gives, for a candidate, its thread ('' when it names none)
    and the memories just before and just after it in that thread (or in
    time, in its workspace and partition, when it names none). A question and
    its answer sit side by side: the user turn that holds the fact and the
    reply that repeats the question's words lift each other. Neighbours in
    time count only with ``in_time`` (a store of conversations without thread
    keys); in a store of separate notes the memory written before another is
    not its context. With ``expand``, a neighbour that is not a candidate
    joins with ``w·`` the best score of the candidates beside it. A candidate
    with no neighbour among the candidates keeps its score.
    """
    score = {c.id: c.score for c in cands}
    beside: dict[str, float] = {}
    for cid, (thread, around) in neighbours.items():
        if cid not in score or not (thread or in_time):
            continue
        for n in around:
            beside[n] = max(beside.get(n, 0.0), score[cid])
    out = [c.rescored("thread_neighbours", c.score + weight * beside.get(c.id, 0.0)) for c in cands]
    if expand:
        out += [Candidate(n, weight * s, {"thread_neighbours": weight * s}) for n, s in beside.items() if n not in score]
    return _sorted(out)

RERANKERS: dict[str, Callable[..., list[Candidate]]] = {
    "node_distance": node_distance,
    "episode_mentions": episode_mentions,
    "mmr": mmr,
    "freshness": freshness,
    "diversity": diversity,
    "novelty": novelty,
    "importance": importance,
    "brevity": brevity,
    "time_window": time_window,
    "restated": restated,
    "named_first": named_first,
    "thread_score": thread_score,
    "thread_neighbours": thread_neighbours,
    "source_leaders": source_leaders,
}
