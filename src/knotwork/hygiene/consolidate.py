"""Consolidation on add: is a new memory new, an update of one already stored, or the same again?

Pure functions over texts and cosine similarities; the service finds the
candidates (same workspace and partition, current) and acts on the decision.

- ``NOOP``: the new text says nothing the old one does not: its words are the
  old one's in the same order with some left out (case and punctuation aside)
  or with only a filler lead ("as I said, ..."), it keeps at least
  ``NOOP_OVERLAP`` of the old one's words, and it drops no negation.
- ``UPDATE``: the new text says everything the old one did, in order, and more
  (no negation added): the old memory takes the new text, its earlier version
  kept in the history.
- ``SUPERSEDE``: the same statement with one value changed ("uses Python
  3.11" → "uses Python 3.12"): one short span differs, after a shared lead of
  at least two words, and either the span is a number or version on both
  sides right after a word of state or quantity ("uses", "was", "costs",
  "around", ... among the three words before it), or one of those three is a
  single-valued word ("is", "prefers", "lives", ...). The new memory is stored and supersedes the old
  one, which retires at the new ``valid_at``.
- ``ADD``: anything else.

A wrong NOOP or SUPERSEDE loses a true memory, so every rule also needs a high
cosine and the thresholds were chosen on labelled pairs (bench/consolidation.py,
results in bench/RESULTS.md) for precision first.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

# Thresholds on the embedder's cosine (all-MiniLM-L6-v2), chosen on the dev half of
# bench/data/consolidation_pairs.jsonl for precision first (bench/consolidation.py).
NOOP_COSINE = 0.94
UPDATE_COSINE = 0.70
SUPERSEDE_COSINE = 0.80
NOOP_OVERLAP = 0.5  # share of the old memory's words the new one repeats
CANDIDATE_COSINE = min(NOOP_COSINE, UPDATE_COSINE, SUPERSEDE_COSINE)
MAX_SPAN = 3  # words a superseding value may take on either side
MIN_LEAD = 2  # shared words before the changed value
LEAD_WINDOW = 3  # how many of them may hold the word of state ("costs $30", "is now 3.12")

_WORD = re.compile(r"[a-z0-9]+(?:[.'][a-z0-9]+)*")
NEGATIONS = frozenset({"not", "no", "never", "don't", "doesn't", "didn't", "isn't", "aren't", "wasn't", "won't",
                       "can't", "cannot", "shouldn't", "nor", "without", "none", "nobody", "nothing", "longer"})
SINGLE_VALUED = frozenset({"is", "are", "prefers", "prefer", "favorite", "favourite", "lives", "live", "located",
                           "moved", "switched", "changed", "default", "set", "now", "called", "named", "equals"})
STATE_WORDS = SINGLE_VALUED | frozenset({"uses", "use", "using", "runs", "run", "version", "requires", "needs",
                                         "pinned", "targets", "costs", "cost", "takes", "took", "has", "have", "had",
                                         "was", "were", "paid", "around", "about", "approximately", "roughly",
                                         "nearly", "over", "under", "averaging", "for", "at", "limit", "timeout"})
# Words a restatement may lead with ("As I said, ...") without saying anything new.
FILLERS = frozenset({"as", "i", "said", "just", "to", "repeat", "reminder", "like", "mentioned", "again", "note",
                     "noted", "fyi", "btw", "by", "the", "way", "recall", "once", "more", "also", "so", "well",
                     "ok", "okay", "yes", "yeah", "said", "before", "earlier", "previously"})


@dataclass(frozen=True, slots=True)
class Decision:
    kind: str  # ADD, UPDATE, SUPERSEDE or NOOP
    target: str | None = None  # the existing memory's id
    reason: str | None = None
    cosine: float | None = None


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower().replace("\u2019", "'"))


def overlap(a: str, b: str) -> float:
    """Jaccard overlap of two texts' word sets (0-1)."""
    sa, sb = set(words(a)), set(words(b))
    return len(sa & sb) / len(sa | sb) if sa | sb else 1.0


def _value_like(tokens: list[str]) -> bool:
    return any(any(ch.isdigit() for ch in t) for t in tokens)


def value_change(old: list[str], new: list[str]) -> str | None:
    """The changed value when ``new`` is ``old`` with one short span replaced after a stateful lead, else None."""
    ops = [op for op in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes() if op[0] != "equal"]
    if len(ops) != 1 or ops[0][0] != "replace":
        return None
    _, i1, i2, j1, j2 = ops[0]
    gone, came = old[i1:i2], new[j1:j2]
    if len(gone) > MAX_SPAN or len(came) > MAX_SPAN or i1 < MIN_LEAD:
        return None
    if NEGATIONS & (set(gone) | set(came)):
        return None  # "is" -> "is not" is a contradiction to keep, not a value to overwrite
    lead = set(old[max(0, i1 - LEAD_WINDOW) : i1])  # the words just before the value say what it is
    if (_value_like(gone) and _value_like(came) and lead & STATE_WORDS) or lead & SINGLE_VALUED:
        return f"{' '.join(gone)} -> {' '.join(came)}"
    return None


def _edits(old: list[str], new: list[str]) -> tuple[list[str], list[str], bool]:
    """(words only ``old`` has, words only ``new`` has, whether any span was replaced) in order."""
    gone: list[str] = []
    came: list[str] = []
    replaced = False
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes():
        if op == "equal":
            continue
        gone += old[i1:i2]
        came += new[j1:j2]
        replaced |= op == "replace"
    return gone, came, replaced


def decide(new_text: str, candidates: list[tuple[str, str, float]]) -> Decision:
    """The decision for ``new_text`` against ``candidates`` (id, text, cosine), nearest first."""
    new = words(new_text)
    if not new:
        return Decision("ADD")
    for target, old_text, cosine in candidates:
        old = words(old_text)
        if not old:
            continue
        gone, came, replaced = _edits(old, new)
        kept = len(set(new) & set(old)) / len(set(old))
        filler_only = not came or (not replaced and set(came) <= FILLERS)
        if cosine >= NOOP_COSINE and filler_only and kept >= NOOP_OVERLAP and not NEGATIONS & set(gone):
            return Decision("NOOP", target, "says nothing the stored memory does not", cosine)
        if cosine >= UPDATE_COSINE and not gone and came and not set(came) <= FILLERS and not NEGATIONS & set(came):
            return Decision("UPDATE", target, "adds to the stored memory", cosine)
        if cosine >= SUPERSEDE_COSINE and (change := value_change(old, new)):
            return Decision("SUPERSEDE", target, f"value changed: {change}", cosine)
    return Decision("ADD")
