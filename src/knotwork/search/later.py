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

A second reading needs no sentence shape (``cosine``; None leaves it off, the default search sets
``LATER_COSINE``): a pair the rules do not read still moves when the two memories' own stored vectors (no
embedding at search time) have a cosine of at least ``cosine``, and the texts line up as one frame with two values
(:func:`another_value`): each names a value the other does not (a token with a digit, a number or cadence word, a
capitalised word that does not start a sentence), both open on the same values, and at least ``LATER_FRAME`` of
the other words line up. "The firmware image size limit is 512 KB." / "After the flash layout change the image size
limit is 768 KB." (cosine 0.71) and "The default temperature reporting interval is 5 minutes." / "Reporting
interval default: 2 minutes (was too coarse ...)" are read by no consolidation rule. The guards come from what
the reading moved on the other sets, or read in the labelled pairs, before they were there:

- the opening: changelog records ("Flask 2.0.0: Drop support for Python 3.5." / "Flask 2.3.0: ... 3.7.") are two
  releases' records, both true, and moving the later one cost codemem R@1 0.869 -> 0.792 (dev);
- one telling: two turns of one thread, or written within ``SAME_TELLING`` ("Eli: We did how are you doing?" /
  "Eli: What did you do?"), are one conversation, not a value and its change (convo and convo2 R@5 lost 2
  questions each);
- a frame of at least ``FRAME_WORDS`` words besides the values, and a capital that starts a sentence or follows a
  colon is no value ("Fay: Okay." / "Fay: Right!");
- one stretch of values changed, not two (:func:`stretches`: a subject and its value both other are two things),
  and not a name after a shared name ("the Electron API working group" / "the Electron Releases working group").

On every pair of two memories of one project of the project check's dev half (5,334 pairs), the reading holds 37
of the 156 labelled changes, none of the 89 labelled compatible pairs and 14 of the 5,089 others (mostly two
links of one chain of changes, "Zephyr RTOS 3.4" / "3.5"). It is no supersession rule: on the labelled pair sets
(texts under 300 characters) it adds 21 changes to what the rules read and reads 45 of 906 compatible pairs as a
change (75 without the family guard, 121 without either stretch guard). Here a pair read wrongly only orders two
true memories, the later first. In the search it puts the newer memory first for 4 more of 128 project dev
changes, and moves no top-10 list of LongMemEval, codemem, convo or convo2 (both halves each; bench/RESULTS.md,
"Issue 35, round 6: the later of two alike memories").
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from difflib import SequenceMatcher
from functools import lru_cache

import numpy as np

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
# The vector reading's word share: a third of the shorter text's words in both (the rules' reading asks for half;
# "The firmware image size limit is 512 KB." / "After the flash layout change the image size limit is 768 KB." 0.75).
NEAR_SHARED = 0.3
# The cosine of two memories' own vectors at and above which two texts that name two values state one attribute.
# Chosen on the project check's dev half with every other set watched: 0.6 to 0.7 gain the same 4 changes there,
# and below 0.7 (frame 0.4) two convo dev top-10 lists move.
LATER_COSINE = 0.7
# The share of the shorter text's other words (values left out) that the two texts hold in one order. 0.65 gains
# 2 dev changes, 0.4 gains 4, 0 gains 4 and moves one convo dev list.
LATER_FRAME = 0.4
# A frame is at least this many words besides the values ("Fay: Okay." / "Fay: Right!" has none to line up).
FRAME_WORDS = 3
# The words that open a text: a value among them names what the text is about (a release, a person, a group).
OPENING_WORDS = 3
# Two memories closer in time than this (or of one thread) are one telling (the turns of one conversation), not a
# value and its change: the gap ``neighbourhood_score`` reads as one chat.
SAME_TELLING = timedelta(minutes=30)
_WORD = re.compile(r"\w+")
_TOKEN = re.compile(r"[^\W_]+(?:[.:,/][^\W_]+)*")  # "3.12", "15:00", "Fly.io" are one token each
# Words that are values without a digit or a capital: amounts and cadences ("three release branches", "weekly").
_VALUE_WORDS = frozenset(
    "one two three four five six seven eight nine ten eleven twelve fifteen twenty thirty forty fifty hundred "
    "daily weekly biweekly fortnightly monthly quarterly yearly annually nightly hourly".split()
)


def values(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """The tokens of ``text`` that name a value, and those of them in its opening (the first ``OPENING_WORDS``
    words). A value is a token with a digit, a number or cadence word, or a capitalised word that does not start
    the text, a sentence or what follows a colon (those are capitalised whatever they are: "Fay: Okay.")."""
    out: set[str] = set()
    opening: set[str] = set()
    for k, m in enumerate(_TOKEN.finditer(text)):
        tok = m.group()
        starts = not text[: m.start()].rstrip(" \"'(*`") or text[: m.start()].rstrip(" \"'(*`")[-1] in ".!?:;"
        if any(ch.isdigit() for ch in tok) or tok.lower() in _VALUE_WORDS or (tok[0].isupper() and not starts):
            out.add(tok.lower())
            if k < OPENING_WORDS:
                opening.add(tok.lower())
    return frozenset(out), frozenset(opening)


def another_value(older: str, newer: str, frame: float = 0.0) -> bool:
    """Each text names a value the other does not, both open on the same values, the rest of the two texts lines
    up (at least ``frame`` of the shorter one's other words, in order, are in both: a sequence match; each has
    ``FRAME_WORDS`` or more of them), and the values differ in one stretch only (:func:`stretches`), not a name
    after a shared name. One attribute given two values.

    The opening names what a text is about: "Flask 2.0.0: Drop support for Python 3.5." / "Flask 2.3.0: Drop
    support for Python 3.7." are two releases' records, "Alice Chen is a maintainer" / "Marcus Lee is a
    maintainer" two people, "The Ruby SIG meets ..." / "The Rust SIG meets ..." two groups; each holds."""
    (a, open_a), (b, open_b) = values(older), values(newer)
    if not (a - b and b - a) or open_a != open_b:
        return False
    rest_a = [t.lower() for t in _TOKEN.findall(older) if t.lower() not in a]
    rest_b = [t.lower() for t in _TOKEN.findall(newer) if t.lower() not in b]
    if min(len(rest_a), len(rest_b)) < FRAME_WORDS:
        return False
    same = sum(block.size for block in SequenceMatcher(None, rest_a, rest_b, autojunk=False).get_matching_blocks())
    if same < frame * min(len(rest_a), len(rest_b)):
        return False
    changed = stretches(older, newer, a, b)  # none: a value dropped here and another added there ("A; B stays")
    if len(changed) > 1:
        return False
    # A name after a shared name ("the Electron API working group" / "the Electron Releases working group"): two
    # members of one family (two groups, two products), both of which may hold, not one value changed.
    return not any(before in a and before in b and not any(ch.isdigit() for t in (*gone, *came) for ch in t)
                   for gone, came, before in changed)


def stretches(
    older: str, newer: str, values_a: frozenset[str], values_b: frozenset[str]
) -> list[tuple[list[str], list[str], str | None]]:
    """The stretches of the two texts (aligned word by word) where each puts a value of its own, each with the word
    both have just before it. One is one value changed; two are a subject and its value both other ("The first
    release of Python 3.9 is dated 2020-10-05." / "The first release of Python 3.7 is dated 2018-06-27."): two
    things, both true."""
    words_a = [t.lower() for t in _TOKEN.findall(older)]
    words_b = [t.lower() for t in _TOKEN.findall(newer)]
    return [
        (words_a[i1:i2], words_b[j1:j2], words_a[i1 - 1] if i1 and j1 and words_a[i1 - 1] == words_b[j1 - 1] else None)
        for op, i1, i2, j1, j2 in SequenceMatcher(None, words_a, words_b, autojunk=False).get_opcodes()
        if op == "replace"
        and any(t in values_a and t not in values_b for t in words_a[i1:i2])
        and any(t in values_b and t not in values_a for t in words_b[j1:j2])
    ]


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
    vectors: Mapping[str, np.ndarray] | None = None,
    cosine: float | None = None,
    frame: float = LATER_FRAME,
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
    a date or a text stay where they are. With ``cosine``, a pair the rules do not read moves too when the
    two memories' ``vectors`` (each memory's own, as stored) are at least that alike and each text names a value
    the other does not (:func:`another_value`)."""
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
        share = len(bags[a] & bags[b]) / max(min(len(bags[a]), len(bags[b])), 1)
        if share >= NEAR_SHARED and alike(a, b) and another_value(texts[a], texts[b], frame):
            return True
        if share < SHARED:
            return False
        if (a, b) not in read:
            if len(read) >= pairs:
                return False
            read[a, b] = value_change(texts[a], texts[b]) is not None
        return read[a, b]

    def alike(a: str, b: str) -> bool:
        if cosine is None or vectors is None or a not in vectors or b not in vectors:
            return False
        if places is not None and places.get(a, ("", "", ""))[2:3] == places.get(b, ("", "", ""))[2:3] != ("",):
            return False  # one thread: one conversation's turns
        if abs(dates[b] - dates[a]) < SAME_TELLING:  # type: ignore[operator]
            return False
        return float(vectors[a] @ vectors[b]) >= cosine

    top = later_above(top, dates, lambda c: c.id in usable, lambda a, b: changes(a.id, b.id))
    return [c.rescored("later_value", c.score) for c in top + order[depth:]]
