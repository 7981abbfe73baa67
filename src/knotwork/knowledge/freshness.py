"""Freshness as a tie-break: of two memories about the same things, the later one first.

A memory store keeps what was true and what is true: "my 5K best is 27:12"
and, a month later, "... beat my best of 25:50". A query matches both about
equally well, and ranking by match alone puts either first. This tie-break
uses what the knowledge graph knows: two hits are *about the same things*
when they mention a common entity or share most of their content words.
Within such a group an older hit that matched at most ``margin`` (a share of
the top score) better than a later one moves to just after it, taking its
score; a clearly better match keeps its place, and hits about other things
keep theirs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

#: How much better (as a share of the best score) an older hit must match to stay above a later one.
#: Tuned with bench/knowledge_update.py: a wider margin fixes few more knowledge updates and moves
#: more of the older answers other questions need out of the top 5.
MARGIN = 0.15
#: Content-word overlap (Jaccard) that makes two hits about the same thing without a common entity
#: (two chat turns about one topic share 0.13-0.24 of their words, unrelated ones far less).
WORD_OVERLAP = 0.15


def related(a_entities: set[str], b_entities: set[str], a_words: set[str], b_words: set[str]) -> bool:
    if a_entities & b_entities:
        return True
    union = a_words | b_words
    return bool(union) and len(a_words & b_words) / len(union) >= WORD_OVERLAP


def prefer_current(
    hits: Sequence[Any],
    entities: Mapping[str, set[str]],
    words: Callable[[str], set[str]],
    when: Callable[[Any], datetime],
    margin: float = MARGIN,
) -> list[Any]:
    """``hits`` (with ``.memory`` and ``.score``) re-ranked so the latest of each related group leads it.

    ``entities`` gives the entity ids each memory id mentions; ``words`` the
    content words of a text; ``when`` the time a hit's memory speaks of.
    """
    if len(hits) < 2:
        return list(hits)
    top = max(abs(h.score) for h in hits) or 1.0
    ents = [entities.get(h.memory.id, set()) for h in hits]
    vocab = [words(h.memory.content) for h in hits]
    order = list(range(len(hits)))
    score = [h.score for h in hits]
    # Oldest first: each hit moves to just after the latest related hit ranked below it and close in score,
    # so a chain old > mid > new ends as new, mid, old.
    for i in sorted(order, key=lambda k: (when(hits[k]), k)):
        later = [
            j for j in order[order.index(i) + 1 :]
            if when(hits[j]) > when(hits[i]) and score[i] - hits[j].score <= margin * top
            and related(ents[i], ents[j], vocab[i], vocab[j])
        ]
        if not later:
            continue
        anchor = max(later, key=lambda j: (when(hits[j]), -order.index(j)))
        order.remove(i)
        order.insert(order.index(anchor) + 1, i)
        score[i] = score[anchor]
    return [replace(hits[k], score=score[k]) if score[k] != hits[k].score else hits[k] for k in order]
