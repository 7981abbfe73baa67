"""Query-side stages: pseudo-relevance feedback and spreading the top over conversations.

A question and the memory that answers it often share few words ("which
gadget did I get first?" against "the Galaxy S22 arrived today"). The first
few results of a search are usually about the right topic even when the
answer is not among them; their words and their vectors say what that topic
looks like in the store's own language. These stages use them, as pure
functions over candidates (``rerankers`` style): the pipeline fetches the
vectors, the texts and the second lexical pass they need.

- :func:`feedback`: dense feedback (Rocchio): the query's vector moved toward
  the mean of the first ``depth`` candidates' vectors, every candidate scored
  again against it and blended in.
- :func:`lexical_feedback`: lexical feedback (RM3 style): the terms that
  weigh most in the first candidates (by their score, their share of each
  text and their rarity in the store), added to the query for a second BM25
  pass whose relevance is blended in. :func:`expansion_terms` picks them.
- :func:`thread_spread`: at most ``per_thread`` turns of one conversation in
  the first ``k``, for questions whose answer is spread over several.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Mapping, Sequence

import numpy as np

from knotwork.search.rerankers import Candidate, _sorted


def feedback(
    cands: Sequence[Candidate],
    vectors: Mapping[str, np.ndarray],
    query: np.ndarray | None,
    depth: int = 5,
    alpha: float = 1.0,
    weight: float = 0.2,
) -> list[Candidate]:
    """Dense pseudo-relevance feedback: ``(1−w)·score + w·cos(v, q′)``, ``q′ = q̂ + α·mean(top depth vectors)``.

    ``vectors`` holds the candidates' vectors (unit length), ``query`` the
    query's. ``q′`` is normalised; a candidate without a vector scores 0
    against it. With no query vector or no vector among the first ``depth``,
    nothing changes.
    """
    top = [vectors[c.id] for c in cands[:depth] if c.id in vectors]
    if query is None or not top or weight == 0:
        return [c.rescored("feedback", c.score) for c in cands]
    q = np.asarray(query, dtype=np.float32)
    q = q / (np.linalg.norm(q) or 1.0) + alpha * np.mean(np.stack(top), axis=0)
    q = q / (np.linalg.norm(q) or 1.0)
    return _sorted([
        c.rescored("feedback", (1 - weight) * c.score + weight * (float(vectors[c.id] @ q) if c.id in vectors else 0.0))
        for c in cands
    ])


def expansion_terms(
    docs: Sequence[tuple[Sequence[str], float]],
    query: Sequence[str],
    idf: Callable[[str], float],
    terms: int = 10,
) -> list[str]:
    """The ``terms`` expansion terms of a query (RM3 style) from its first results.

    ``docs`` are the first results as (their analyzed terms, their score);
    a term weighs ``Σ score·tf/len`` over them, times its ``idf``; terms of
    the query, and terms only one document holds, are left out (a word one
    turn happens to say is not the topic).

    >>> docs = [(["pasta", "sauc", "tomato"], 1.0), (["tomato", "basil"], 0.5), (["car"], 0.1)]
    >>> expansion_terms(docs, ["sauc"], lambda t: 1.0, terms=2)
    ['tomato']
    """
    asked = set(query)
    weight: Counter[str] = Counter()
    held: Counter[str] = Counter()
    for words, score in docs:
        if not words or score <= 0:
            continue
        counts = Counter(words)
        for t, n in counts.items():
            if t not in asked:
                weight[t] += score * n / len(words)
                held[t] += 1
    ranked = sorted((w * idf(t), t) for t, w in weight.items() if held[t] >= 2)
    return [t for _, t in reversed(ranked[-terms:])] if terms > 0 else []


def lexical_feedback(
    cands: Sequence[Candidate], relevance: Mapping[str, float], weight: float = 0.2, depth: int = 10, terms: int = 10
) -> list[Candidate]:
    """Blend in the expanded query's BM25 relevance: ``(1−w)·score + w·relevance``.

    ``relevance`` is the second pass's relevance in [0, 1] by memory id
    (missing: 0); empty (no expansion terms) leaves every score as it is.
    ``depth`` (how many first candidates give terms) and ``terms`` (how many
    join the query) shape that pass, which the pipeline runs
    (:func:`expansion_terms`); they are named here so a recipe step holds them.
    """
    if not relevance or weight == 0:
        return [c.rescored("lexical_feedback", c.score) for c in cands]
    return _sorted([c.rescored("lexical_feedback", (1 - weight) * c.score + weight * relevance.get(c.id, 0.0)) for c in cands])


def thread_spread(
    cands: Sequence[Candidate],
    threads: Mapping[str, Hashable],
    k: int = 5,
    per_thread: int = 2,
    max_share: float = 1.0,
    depth: int = 50,
) -> list[Candidate]:
    """At most ``per_thread`` candidates of one thread among the first ``k``; those that would pass it wait below.

    Only a thread whose share of what matched (its candidates' scores among
    the first ``depth`` over all of theirs, as in ``thread_score``) is below
    ``max_share`` is limited: a conversation that holds most of the matches
    is where the answer is, and its turns keep their places.

    Walking down the list, a candidate whose thread already has ``per_thread``
    places in the top is held back until the top ``k`` is full; then the held
    ones follow in their order, then the rest. Candidates with no thread are
    never held. Scores do not change, only the order (each is noted under
    ``thread_spread``); a later stage that sorts by score undoes it, so it
    belongs last.
    """
    total = sum(max(c.score, 0.0) for c in cands[:depth])
    mass: Counter[Hashable] = Counter()
    for c in cands[:depth]:
        if (key := threads.get(c.id)) is not None:
            mass[key] += max(c.score, 0.0)
    top: list[Candidate] = []
    held: list[Candidate] = []
    seen: Counter[Hashable] = Counter()
    rest = list(cands)
    while rest and len(top) < k:
        c = rest.pop(0)
        key = threads.get(c.id)
        if key is not None and seen[key] >= per_thread and (total <= 0 or mass[key] / total < max_share):
            held.append(c)
            continue
        seen[key] += 1
        top.append(c)
    return [Candidate(c.id, c.score, {**c.scores, "thread_spread": c.score}) for c in (*top, *held, *rest)]


QUERY_STAGES: dict[str, Callable[..., list[Candidate]]] = {
    "feedback": feedback,
    "lexical_feedback": lexical_feedback,
    "thread_spread": thread_spread,
}
