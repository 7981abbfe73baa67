"""How unlike the fact scorer's training text a memory is, and how much less sure a fact read from it is.

The fact scorer (:mod:`~knotwork.knowledge.scorer`) is calibrated on its training text, which is mostly
memory-style sentences ("We use Postgres for the orders service.", "My sister Amira lives in Rabat."). On
text of another register (chat, issue threads, READMEs, agent instruction files) the same features meet
different sentences and the confidence is too high: scored by a scorer that never saw such text (the
corpus left out of its fit), 0.64 of the outside candidates it puts at 0.9 or more are right (dev). More
readings do not fix that; knowing when the text is unlike the training text does.

Two small parts, both fitted by ``bench/train_fact_scorer.py`` (``bench/fact_outside.py``) on the dev
halves, folds grouped by source:

- **an outside-text model**: a logistic regression over the register of the candidate's text alone (first
  and second person, chat markers, markdown, code and paths, questions and hedges, length, sentence
  count, parse depth, the share of proper nouns and of words no dictionary knows, a lower-case start, no
  closing punctuation), whose label is "outside text" (the corpus) against "memory-style" (the older
  sets). Its probability ``r`` says how unlike the training memories the text is; it never sees whether
  a fact is right.
- **a map for unfamiliar text**: a Platt map from the scorer's logit to how often such a candidate is
  right on a source the scorer never saw (the corpus' candidates scored with their source, and again with
  their whole kind, left out of the scorer's fit).

A candidate's confidence becomes ``min(p, (1 - w)·p + w·g(p))`` with ``w`` rising from 0 to 1 as ``r``
goes from ``ramp[0]`` to ``ramp[1]``: text that reads like a memory (``r`` under ``ramp[0]``) keeps the
scorer's probability exactly, outside text gets the map's, and nothing is ever raised. The ramp starts
high so that memory-style text, where the scorer is calibrated (held-out test half ECE 0.02), is left
alone.

The lowering stops at ``keep`` (0.7, the reading default): a candidate the scorer puts above it stays at
or above it, and one at or under it is left alone. So what is stored and what a reader sees by default do
not change; what changes is how sure an outside fact claims to be above the default, the range a reader
who filters at 0.8 or 0.9 relies on. Lowered all the way, outside facts were right more often at the
default on dev, but the corpus' dev value-change sequences fell from 36 to 25 of 48 current (both values
of a change went under the default) and its recall from 0.34 to 0.25 (bench/RESULTS.md, issue 36
round 6). Reading it needs NumPy and the parse the scorer already has.
"""

from __future__ import annotations

import math
import re
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from knotwork.domain.calibrated import CalibratedLogistic, bucket
from knotwork.knowledge.models import Extraction
from knotwork.knowledge.scorer import depth, sentence_of

WEIGHTS = Path(__file__).parent / "data" / "fact_outside.json"

_FIRST = re.compile(r"\b(?:I|me|my|mine|I['’]m|I['’]ve)\b")
_WE = re.compile(r"\b(?:we|us|our|ours)\b", re.I)
_YOU = re.compile(r"\b(?:you|your|yours)\b", re.I)
_CHAT = re.compile(r"(?i:\b(?:haha+|lol|lmao|omg|yeah|yep|nope|gonna|wanna|kinda|btw|tbh|hi|hey|thanks|ok|okay)\b)"
                   r"|[:;]-?[()DPp]\B|!!|\?!")
_MARKDOWN = re.compile(r"^\s*(?:[-*+•]\s|#{1,6}\s|\d+[.)]\s|>\s)|\*\*|\]\(|^\s*\|", re.M)
_HEDGE = re.compile(r"\b(?:might|may|maybe|perhaps|probably|possibly|could|guess|think|seems?|apparently|not sure|"
                    r"likely|kind of|sort of)\b", re.I)
_PATH = re.compile(r"\w/\w|\w\.\w{1,4}\b|::|\(\)|==|->|=>|\$\s")
_CLOSED = (".", "!", "?", '"', ")")


def features(text: str, sentence: str, sent: Any = None, doc: Any = None) -> list[str]:
    """The register of a candidate's text (``sentence``: the one it came from; ``sent``/``doc``: their parse,
    or None without spaCy). Nothing here depends on the candidate itself."""
    out = [f"mode:{'parse' if sent is not None else 'rules'}"]
    for name, rx in (("first", _FIRST), ("we", _WE), ("you", _YOU), ("chat", _CHAT), ("markdown", _MARKDOWN),
                     ("hedge", _HEDGE), ("path", _PATH)):
        if rx.search(text):
            out.append(f"reg:{name}")
    if "?" in text:
        out.append("reg:question")
    if "`" in text:
        out.append("reg:code")
    if "http" in text:
        out.append("reg:url")
    out.append(f"reg:chars{bucket(len(text), (80, 160, 320))}")
    if text[:1].islower():
        out.append("reg:lower")
    if not sentence.rstrip().endswith(_CLOSED):
        out.append("reg:unpunct")
    if sent is not None and doc is not None:
        toks = list(sent)
        n = max(1, len(toks))
        out.append(f"reg:depth{bucket(max((depth(t, 30) for t in toks), default=0), (3, 5, 7))}")
        out.append(f"reg:propn{bucket(int(10 * sum(t.pos_ == 'PROPN' for t in toks) / n), (0, 1, 2))}")
        words = _dictionary_words()
        lower = [t for t in toks if t.is_alpha and t.is_lower]
        if words is not None:
            unknown = sum(t.lemma_.lower() not in words and t.lower_ not in words for t in lower)
            out.append(f"reg:unknown{bucket(int(20 * unknown / max(1, len(lower))), (0, 1, 2))}")
        out.append(f"reg:sentences{bucket(len(list(doc.sents)), (1, 2, 4))}")
    return out


@lru_cache(maxsize=1)
def _dictionary_words() -> frozenset[str] | None:
    """Every word of the parser's lemma index (WordNet's), or None without one."""
    from knotwork.knowledge.mentions import _dictionary

    index = _dictionary()
    return None if index is None else frozenset().union(*index.values())


class Outside(CalibratedLogistic):
    """The outside-text model (its weights; ``calibration.platt`` is [1, 0]: its probability is the model's),
    the map for unfamiliar text and the ramp."""

    def __init__(self, data: dict[str, Any]) -> None:
        super().__init__(data, WEIGHTS.name)
        self.map_slope, self.map_intercept = (float(x) for x in data["unfamiliar_map"])
        self.low, self.high = (float(x) for x in data["ramp"])
        if not (0.0 <= self.low < self.high <= 1.0):
            raise ValueError(f"{WEIGHTS.name}: ramp must be [low, high] with 0 <= low < high <= 1")
        self.keep = float(data["keep"])
        if not 0.0 <= self.keep <= 1.0:
            raise ValueError(f"{WEIGHTS.name}: keep must be in [0, 1]")

    def weight(self, r: float) -> float:
        """How far toward the unfamiliar map a candidate goes, from the outside probability ``r``."""
        return min(1.0, max(0.0, (r - self.low) / (self.high - self.low)))

    def lower(self, p: float, r: float) -> float:
        """The confidence ``p`` of a candidate whose text is outside text with probability ``r``: never above
        ``p``; ``p`` itself when ``r`` is under the ramp or ``p`` is at most ``keep``; never under ``keep``
        when ``p`` is above it."""
        w = self.weight(r)
        if w <= 0.0 or p <= self.keep:
            return p
        q = min(max(p, 1e-4), 1 - 1e-4)
        g = 1.0 / (1.0 + math.exp(-(self.map_slope * math.log(q / (1 - q)) + self.map_intercept)))
        return max(self.keep, min(p, (1 - w) * p + w * g))


@lru_cache(maxsize=1)
def load(path: str | None = None) -> Outside | None:
    """The shipped model (None when the file is absent: the scorer's probability then stands)."""
    return Outside.read(Path(path) if path else WEIGHTS)


def lower_confidence(out: Extraction, text: str, doc: Any = None) -> Extraction:
    """Each scored fact's confidence, lowered where its sentence's text is unlike the training memories
    (:meth:`Outside.lower`; one outside probability per sentence). It runs after the mention model, which reads
    the scorer's own probability of the facts a name ends (what it was fitted on)."""
    cap = load()
    if cap is None or not out.facts:
        return out
    far: dict[str, float] = {}

    def lowered(p: float, sentence: str, sent: Any) -> float:
        if sentence not in far:
            far[sentence] = cap.probability(features(text, sentence, sent, doc))
        return round(cap.lower(p, far[sentence]), 3)

    out.facts = [replace(f, confidence=lowered(f.confidence, *sentence_of(doc, text, f))) for f in out.facts]
    return out
