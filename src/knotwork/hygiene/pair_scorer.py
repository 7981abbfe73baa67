"""Does a newer memory retire an older one? A calibrated logistic model over the one span where they differ.

The rules of :mod:`~knotwork.hygiene.consolidate` (``value_change``, ``frame_change``) tell a changed value
by its shape: a number, a name, a time word in the value's place. Shape alone also retires memories that
still hold ("the fd is readable" / "writable", "removal in 25.0.0" / "24.0.0") and rewordings that lose
nothing ("3 minute" / "three minute"). So the rules, and a looser reading of the same pair, only propose:
a pair is a candidate when its texts, or their first clauses, differ in one short span (:func:`swap`), and
this model says how likely the older memory no longer holds. Its named binary features describe the two
spans (number, version, date, name, time or state word, a number written as a word; how long), where they
sit (the word before, whether a noun follows, how far in), the frame around them (a copula, a word of
state, a noun of kind, other numbers), the pair as a whole (embedding cosine and word overlap, in steps;
length; first person) and which rule fired. A span's own embedding was left out: it would cost an
embedder call per candidate on every add.

The weights are ``data/supersession_scorer.json``, fitted by ``bench/train_supersession_scorer.py`` on
the dev halves of ``bench/data/supersession_pairs.jsonl``, ``bench/data/supersession_memory_pairs.jsonl``
(memory wording) and ``bench/data/consolidation_pairs.jsonl``
(the script rebuilds the file byte for byte); the file also holds the probability a pair needs
(``threshold``): a pair a rule proposed is kept unless the model finds it more likely wrong than right
(0.5); a pair only the looser reading proposes would need a probability chosen on dev out-of-fold scores,
but that reading is off in the shipped file (``"looser": null``): on the test half its proposals lost true
memories ("compiled with bzip2 support" / "zlib support"), so the scorer only gates the rules (figures in
bench/RESULTS.md). Reading it needs only the standard
library and NumPy.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from knotwork.domain.calibrated import CalibratedLogistic
from knotwork.hygiene.spans import (AFTER_VALUE, CLAUSE_END, KIND_NOUNS as _KIND_NOUNS, NEGATIONS, RAW_WORD as _RAW_WORD,
                                    STATUS_WORDS, TIME_WORDS, WHICH_ONE, frame_tokens, respelled, short_swap)

WEIGHTS = Path(__file__).parent / "data" / "supersession_scorer.json"

NUMBER_WORDS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty".split())}
STATE_WORDS = STATUS_WORDS | frozenset("feature prerelease bugfix security eol".split())
COPULAS = frozenset("is are was were be been being remains now equals becomes became".split())
VERBS_OF_STATE = frozenset(
    "uses use using runs run requires needs pinned targets costs cost takes took has have had prefers prefer "
    "lives live located moved switched changed default set called named supports support reaches".split()
)
PREPOSITIONS = frozenset("in of for on at to from with by as than since until via per into over under about".split())
KIND_NOUNS = _KIND_NOUNS | {"version"}
PRONOUNS = frozenset("i me my we us our you your he him his she her they them their it its".split())
COSINE_STEPS = (0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 0.98)
OVERLAP_STEPS = (0.4, 0.5, 0.6, 0.7, 0.8, 0.9)


@dataclass(frozen=True, slots=True)
class Swap:
    """One short span of ``old`` replaced in ``new``: the tokens (case kept) of the part compared, where the
    span starts and ends on each side, and whether only the first clauses were compared."""

    old: list[str]
    new: list[str]
    i1: int
    i2: int
    j1: int
    j2: int
    clause: bool

    @property
    def gone(self) -> list[str]:
        return self.old[self.i1:self.i2]

    @property
    def came(self) -> list[str]:
        return self.new[self.j1:self.j2]


def _tokens(text: str) -> list[str]:
    return _RAW_WORD.findall(text.replace("\u2019", "'"))


def _one_replace(old: list[str], new: list[str], clause: bool) -> Swap | None:
    lo, ln = [t.lower() for t in old], [t.lower() for t in new]
    if lo == ln or len(lo) < 2:
        return None
    found = short_swap(lo, ln)
    if found is None:
        return None
    i1, i2, j1, j2 = found
    if NEGATIONS & set(lo[i1:i2] + ln[j1:j2]):
        return None  # "is" -> "is not": a contradiction to keep, not a value to overwrite
    if respelled(lo[i1:i2], ln[j1:j2]):
        return None  # one spelling of one thing ("PEP8" -> "PEP 8"), or one name inside the other
    if _names_which(old, lo, i1, i2, ln[j1:j2]):
        return None
    return Swap(old, new, i1, i2, j1, j2, clause)


def _names_which(old: list[str], lo: list[str], i1: int, i2: int, came: list[str]) -> bool:
    """A number that says which thing, not how much or which value: after a noun of which-one ("PR 123",
    "note 6"), an identifier (a hash, a ULID), or a release of a named thing followed by what it does
    ("Celery 5.4 supports Django 2.2" / "Celery 5.5 supports ...": two releases, both statements hold). The
    labelled pairs hold few of these and disagree on the last ("Flask 0.5 introduces ..." / "Flask 0.3
    introduces ..." was a correction), so they stay out for precision, as in the rules."""
    span = lo[i1:i2] + came
    if not all(any(ch.isdigit() for ch in t) for t in span):
        return False
    if any(len(t) >= 12 and any(ch.isalpha() for ch in t) for t in span):
        return True
    if i1 and lo[i1 - 1] in WHICH_ONE:
        return True
    after = lo[i2] if i2 < len(lo) else None
    return bool(i1 and old[i1 - 1][:1].isupper() and after is not None and after not in AFTER_VALUE
                and after not in KIND_NOUNS)


def swap(old_text: str, new_text: str) -> Swap | None:
    """The one short span where the two texts differ (the whole texts, else their first clauses), or None;
    failing both, the same read as one frame (:func:`~knotwork.hygiene.spans.frame_tokens`: "now" left out,
    "an" as "a"), as the frame rule reads them."""
    for tokens in (_tokens, lambda text: frame_tokens(_tokens(text))):
        found = _one_replace(tokens(old_text), tokens(new_text), False)
        if found is None:
            old_first, new_first = (CLAUSE_END.search(t) for t in (old_text, new_text))
            found = _one_replace(tokens(old_text[: old_first.start()] if old_first else old_text),
                                 tokens(new_text[: new_first.start()] if new_first else new_text), True)
        if found is not None:
            return found
    return None


def _number(token: str) -> float | None:
    t = token.lower().replace(",", "")
    if t in NUMBER_WORDS:
        return float(NUMBER_WORDS[t])
    try:
        return float(t)
    except ValueError:
        return None


def span_kind(tokens: list[str]) -> str:
    """What a span is: date, year, version, number, number word, time, state, pronoun, code, name or word."""
    low = [t.lower() for t in tokens]
    joined = " ".join(low)
    if re.fullmatch(r"(?:19|20)\d\d(?:[ .-]\d\d?){0,2}", joined) or re.search(r"\b(?:19|20)\d\d\b", joined) and (
            set(low) & TIME_WORDS):
        return "date"
    if all(any(c.isdigit() for c in t) for t in low):
        if len(low) == 1 and re.fullmatch(r"(?:19|20)\d\d", low[0]):
            return "year"
        if any(re.search(r"\d\.\d", t) for t in low) or any(re.fullmatch(r"[a-z]+\d+", t) for t in low):
            return "version"
        return "number"
    if any(t in NUMBER_WORDS for t in low):
        return "numword"
    if all(t in TIME_WORDS or t.isdigit() for t in low):
        return "time"
    if len(low) == 1 and low[0] in STATE_WORDS:
        return "state"
    if set(low) & PRONOUNS:
        return "pronoun"
    if any(re.search(r"[A-Za-z][._][A-Za-z]", t) for t in tokens):
        return "code"
    if tokens[0][:1].isupper():
        return "name"
    return "word"


def _steps(name: str, value: float, steps: tuple[float, ...]) -> list[str]:
    """Cumulative steps ("cos>=0.80" for every step at or below the value): a monotone reading of a number."""
    return [f"{name}>={s:.2f}" for s in steps if value >= s]


def features(old_text: str, new_text: str, cosine: float, found: Swap, rule: str | None = None) -> list[str]:
    """The named binary features of one candidate pair (``found``: its :func:`swap`; ``rule``: which rule of
    :mod:`~knotwork.hygiene.consolidate` proposed it, if one did)."""
    gone, came = found.gone, found.came
    lo = [t.lower() for t in found.old]
    kg, kc = sorted((span_kind(gone), span_kind(came)))  # one reading in either order: an older value may arrive late
    out = [f"where:{'clause' if found.clause else 'whole'}", f"rule:{rule or 'none'}", f"kind:{kg}", f"kind:{kc}",
           f"kinds:{kg}+{kc}", "span:{}+{}".format(*sorted((min(len(gone), 3), min(len(came), 3))))]
    if kg == kc:
        out.append("same-kind")
    before = lo[found.i1 - 1] if found.i1 else None
    out.append(f"lead:{min(found.i1, 3)}")
    if before is None:
        out.append("before:start")
    else:
        out.append(f"before:{before}")
        for cls, words in (("copula", COPULAS), ("state", VERBS_OF_STATE), ("prep", PREPOSITIONS),
                           ("which", WHICH_ONE), ("kind", KIND_NOUNS)):
            if before in words:
                out.append(f"before-is:{cls}")
        if found.old[found.i1 - 1][:1].isupper():
            out += ["before-is:capital", f"before-capital*kinds:{kg}+{kc}"]
        if any(c.isdigit() for c in before):
            out.append("before-is:digit")
    after = found.old[found.i2] if found.i2 < len(found.old) else None
    if after is None:
        out += ["after:end", f"after-end*kinds:{kg}+{kc}"]
    else:
        low = after.lower()
        out.append(f"after:{low}")
        cls = ("function" if low in AFTER_VALUE else "kind" if low in KIND_NOUNS else "digit"
               if any(c.isdigit() for c in low) else "capital" if after[:1].isupper() else "noun")
        out += [f"after-is:{cls}", f"after*kinds:{cls}*{kg}+{kc}"]
    frame = set(lo[: found.i1] + lo[found.i2:])
    if frame & COPULAS:
        out.append("frame:copula")
    if frame & VERBS_OF_STATE:
        out.append("frame:state-verb")
    if frame & KIND_NOUNS:
        out.append("frame:kind-noun")
    if frame & PRONOUNS:
        out.append("frame:pronoun")
    if any(any(c.isdigit() for c in t) for t in frame):
        out.append("frame:number")
    a, b = [_number(t) for t in gone], [_number(t) for t in came]
    if len(a) == len(b) == 1 and a[0] is not None and b[0] is not None:
        out.append("numbers:" + ("same" if a[0] == b[0] else "differ"))
        if a[0] == b[0]:
            out.append("reformat")  # "3 minute" -> "three minute"
    if [t.lower() for t in gone] == [t.lower() for t in came][::-1]:
        out.append("reordered")
    out += _steps("cos", cosine, COSINE_STEPS)
    ow, nw = set(lo), {t.lower() for t in found.new}
    out += _steps("overlap", len(ow & nw) / len(ow | nw) if ow | nw else 1.0, OVERLAP_STEPS)
    n = max(len(found.old), len(found.new))
    out.append(f"words:{'<=5' if n <= 5 else '<=9' if n <= 9 else '<=15' if n <= 15 else '>15'}")
    if {"i", "my", "me", "i'm", "i've"} & (ow | nw):
        out.append("first-person")
    if not all(t.rstrip().endswith((".", "!", "?")) for t in (old_text, new_text)):
        out.append("unpunctuated")
    return out


class Scorer(CalibratedLogistic):
    """A fitted model (weights, a bias, the Platt map from its raw logit to a probability) and the
    probability a pair needs to retire the older memory."""

    def __init__(self, data: dict[str, Any]) -> None:
        super().__init__(data, WEIGHTS.name)
        threshold = data["threshold"]
        self.rule_threshold = float(threshold["rule"])
        looser = threshold.get("looser")
        self.looser_threshold = float("inf") if looser is None else float(looser)
        if not (0.0 < self.rule_threshold < 1.0 and (looser is None or 0.0 < self.looser_threshold < 1.0)):
            raise ValueError(f"{WEIGHTS.name}: thresholds must lie between 0 and 1")

    def threshold(self, rule: str | None) -> float:
        """The probability a pair needs when a rule proposed it, and when only :func:`swap` did (infinite
        when the looser reading is off: the scorer then only gates the rules)."""
        return self.rule_threshold if rule else self.looser_threshold



@lru_cache(maxsize=1)
def load(path: str | None = None) -> Scorer | None:
    """The shipped model (None when the file is absent: the rules then decide alone)."""
    return Scorer.read(Path(path) if path else WEIGHTS)
