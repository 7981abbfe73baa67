"""Of two current memories that state one attribute with two values, the later one ranks first.

"Analytics events are forwarded to Amplitude." (March) and "Analytics events are forwarded to PostHog,
self-hosted in our own cluster." (September) both answer "where do analytics events go?", and both may still be current: consolidation
retires the older only when the pair clears its cosine floors and its pair scorer. The older one often matches the question's
words better (the newer carries the reason for the change), and ranked first it is the costliest wrong answer:
stale, and stated with confidence.

This step moves only such a pair, and only by a swap: among the first ``depth`` candidates, a later one (by
``valid_at``) whose text states the same attribute as a higher-ranked earlier one with another value goes right
above it, taking its score; nothing else moves. "The same attribute, another value" is what consolidation reads
(:func:`knotwork.hygiene.consolidate.supersedes`: a rule proposes one frame with one value swapped, the pair
scorer keeps it, else one slot filled twice, a role's holders, an employer, a place, a default, a schedule),
here as if the two texts' cosine were 1: both memories answer one question already, which is what the cosine
floors stand in for. The scorer stays: on the labelled memory-wording pairs (bench/data/
supersession_memory_pairs.jsonl, texts under 300 characters) the rules alone read 24 of 168 compatible pairs as
a change ("Graphiti needs pydantic 2.11.5 or newer" / "... needs tenacity 9.0.0 or newer"), with the scorer 7,
and both read 205 of the 222 changes. Two memories that merely talk about one topic ("We use Postgres for orders"
/ "We use Redis for caching"), which a similarity threshold cannot tell from a change (the ``restated`` step,
measured costly on conversations and code memories), are not read as a change and keep their order.

Cheap by design: string rules over at most ``depth`` short texts (a text of ``TEXT_CHARS`` or more is not one
statement of one attribute, and is left where it is), no model.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from functools import lru_cache

from knotwork.hygiene.consolidate import supersedes
from knotwork.search.rerankers import Candidate, later_above

LATER_DEPTH = 10  # the candidates compared: pairs further down do not decide what is read first
TEXT_CHARS = 300  # the start of each text read; a text this long or longer is left where it is
# Two texts that state one attribute repeat its frame: at least this share of the shorter one's words is in both.
# Of the 613 pairs of the labelled pair sets (bench/data/*pairs.jsonl, texts under 300 characters) that
# :func:`value_change` reads as a change, 611 share half or more ("Requests needs urllib3 1.26 or newer." / "...
# idna 2.5 ..." 0.57); the two below are an employer given up in other words ("works at Cisco" / "is now
# independent"). A set intersection costs far less than the rules (a sequence match and the pair scorer), so most
# pairs never reach them.
SHARED = 0.5
# At most this many pairs read by the rules per search (each reading is a sequence match and the pair scorer, a
# fraction of a millisecond): the first ones walking down the list, the pairs that decide what is read first. Ten
# texts of one frame ("Graphiti needs X or newer" ten times, each ranked above a later one) would otherwise be 45
# readings. Counted per search: the project check reads at most 7, codemem (dev) 7, convo (dev) 17, a mean of 3.8.
LATER_PAIRS = 12
_WORD = re.compile(r"\w+")


@lru_cache(maxsize=4096)  # a store's memories meet again in the next search; texts are short
def value_change(older: str, newer: str) -> str | None:
    """The change (``"a -> b"``) when ``newer`` states the attribute ``older`` states with another value, else None."""
    return supersedes(older, newer, 1.0)


def later_value(
    cands: Sequence[Candidate],
    texts: Mapping[str, str],
    dates: Mapping[str, datetime | None],
    places: Mapping[str, tuple[str, ...]] | None = None,
    depth: int = LATER_DEPTH,
    pairs: int = LATER_PAIRS,
) -> list[Candidate]:
    """``cands`` with each later restatement of a value moved right above the earlier one it changes.

    ``texts`` holds the start of each of the first ``depth`` candidates' texts (at most ``TEXT_CHARS``
    characters; one that long is not compared). Walking down, a candidate with later candidates below it
    (within ``depth``) that state its attribute with another value yields its place to the latest of them,
    which takes its score; the one that yielded is looked at again, so a chain A -> B -> C ends C, B, A.
    ``places`` gives each candidate's workspace and partition (and thread, not read): two memories of two
    workspaces or partitions (a project's and a global one, two agents') hold in their own scopes, as for
    consolidation, which compares a memory with its own scope's only; with ``places``, only a pair of one scope
    moves. At most ``pairs`` pairs are read by the rules; a pair after those stays as it is. Candidates without
    a date or a text stay where they are."""
    order = list(cands)
    top = order[:depth]
    usable = {c.id for c in top if dates.get(c.id) is not None and 0 < len(texts.get(c.id, "")) < TEXT_CHARS}
    if len(usable) < 2:
        return [c.rescored("later_value", c.score) for c in order]
    bags = {i: set(_WORD.findall(texts[i].lower())) for i in usable}

    read: dict[tuple[str, str], bool] = {}  # each pair read once (a candidate that yielded is looked at again)

    def changes(a: str, b: str) -> bool:
        if places is not None and places.get(a, ("",))[:2] != places.get(b, ("",))[:2]:
            return False
        if len(bags[a] & bags[b]) < SHARED * min(len(bags[a]), len(bags[b])):
            return False
        if (a, b) not in read:
            if len(read) >= pairs:
                return False
            read[a, b] = value_change(texts[a], texts[b]) is not None
        return read[a, b]

    top = later_above(top, dates, lambda c: c.id in usable, lambda a, b: changes(a.id, b.id))
    return [c.rescored("later_value", c.score) for c in top + order[depth:]]
