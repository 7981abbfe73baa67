"""How likely a sentence states a fact at all: a small calibrated model in front of the fact scorer.

Most sentences of real text state nothing a memory should keep: instructions ("Use `uv` for ..."),
questions, conditions ("If set, uv will ..."), plans and hedges, glossary lines whose description is
not a kind ("`uv-cache`: Global cache infrastructure"), changelog imperatives, examples. The rules
still find candidate facts in them, and the fact scorer, which sees one candidate at a time, was
fitted mostly on sentences that do state something, so it kept those candidates' confidence high.

This model reads the sentence alone, with what the parse gives for free: the mood of its root (an
imperative has a bare verb and no subject), its subject's person, modal auxiliaries, question,
condition, plan and hedge cues, and the register (inline code, a list item, a glossary line, a
trailing colon, first and second person, a URL, length). A logistic regression over those named
features, calibrated by Platt scaling, says the probability that the sentence states a fact; the fact
scorer reads that probability (bucketed) as one more feature, so candidates in sentences that state
nothing lose confidence. Nothing here runs a model per sentence beyond a sum of weights.

The weights are ``data/sentence_gate.json``, fitted by ``bench/train_sentence_gate.py`` on the dev
halves of the labelled sets (the script rebuilds the file byte for byte).
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from knotwork.domain.calibrated import CalibratedLogistic, bucket

WEIGHTS = Path(__file__).parent / "data" / "sentence_gate.json"

_QUESTION = re.compile(r"\?\s*$|^\s*(?:should|shall|can|could|would|do|does|did|is|are|was|were|what|which|who|"
                       r"why|how|where|when|any(?:one|body))\b", re.I)
_CONDITION = re.compile(r"\b(?:if|unless|whenever|in case|assuming|otherwise|as long as)\b", re.I)
_WHEN = re.compile(r"^\s*(?:when|once|while|before|after)\b", re.I)
_HEDGE = re.compile(r"\b(?:might|may|maybe|perhaps|probably|possibly|could|guess|i think|seems?|likely|"
                    r"not sure|i believe|kind of|sort of)\b", re.I)
_PLAN = re.compile(r"\b(?:will|going to|gonna|plan(?:ning|s)? to|want(?:s)? to|hoping|hope to|considering|"
                   r"thinking (?:about|of)|next (?:week|month|year|quarter|sprint)|tomorrow|soon|would like|"
                   r"in the future|roadmap|goal)\b", re.I)
_MUST = re.compile(r"\b(?:must|should|need(?:s)? to|have to|has to|make sure|ensure|do not|don['’]t|never|always|"
                   r"required|prefer|avoid)\b", re.I)
_ORDER = re.compile(r"^\s*(?:please\s+)?(?:use|don['’]t|do not|never|always|make sure|remember|avoid|add|run|"
                    r"keep|try|let['’]s|see|install|create|update|include|write|check|set|fix|remove|drop|bump|"
                    r"allow|support|consider|prefer|review|format|follow|note)\b", re.I)
_EXAMPLE = re.compile(r"\b(?:e\.g\.|i\.e\.|for example|for instance|such as|eg\.|like)\b", re.I)
_NEGATION = re.compile(r"\b(?:not|never|no longer|anymore|nobody|none|neither|nor|without)\b|n['’]t\b", re.I)
_PAST = re.compile(r"\b(?:used to|previously|formerly|back in|ago|until|no longer)\b", re.I)
_CHANGE = re.compile(r"\b(?:switched|migrated|moved|replaced|dropped|ditched|abandoned|renamed|instead of|"
                     r"in favou?r of)\b", re.I)
_FIRST = re.compile(r"\b(?:I|me|my|mine|I['’]m|I['’]ve)\b")
_WE = re.compile(r"\b(?:we|us|our|ours)\b", re.I)
_YOU = re.compile(r"\b(?:you|your|yours)\b", re.I)
_CHATTY = re.compile(r"(?i:\b(?:haha+|lol|lmao|omg|yeah|yep|nope|kinda|btw|tbh|hi|hey|thanks|thank you|ok|okay)\b)"
                     r"|[:;]-?[()DPp]\B|!!")
_GLOSSARY = re.compile(r"^\s*[`\"']?[\w./@:<>!-]+(?:\([^)]*\))?[`\"']?\s*(?::|\s[-–—]\s)")
_LIST = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s")
_CAPS = re.compile(r"\b[A-Z]{4,}\b")
_VERSION = re.compile(r"\bv?\d+\.\d+(?:\.\d+)?\b")


def features(sentence: str, sent: Any = None) -> list[str]:
    """The named binary features of one sentence (``sent``: its spaCy span, or None without a parse)."""
    s = sentence.strip()
    out = [f"mode:{'parse' if sent is not None else 'rules'}"]
    for name, rx in (("question", _QUESTION), ("condition", _CONDITION), ("when", _WHEN), ("hedge", _HEDGE),
                     ("plan", _PLAN), ("must", _MUST), ("order", _ORDER), ("example", _EXAMPLE),
                     ("neg", _NEGATION), ("past", _PAST), ("change", _CHANGE), ("first", _FIRST), ("we", _WE),
                     ("you", _YOU), ("chat", _CHATTY), ("glossary", _GLOSSARY), ("list", _LIST), ("caps", _CAPS),
                     ("version", _VERSION)):
        if rx.search(s):
            out.append(f"cue:{name}")
    ticks = s.count("`") // 2
    out.append(f"code:{bucket(ticks, (0, 1, 3))}")
    if "http://" in s or "https://" in s:
        out.append("cue:url")
    if s.endswith(":"):
        out.append("end:colon")
    elif s.endswith("."):
        out.append("end:period")
    elif s.endswith("!"):
        out.append("end:bang")
    elif s.endswith("?"):
        out.append("end:question")
    else:
        out.append("end:none")
    if s[:1].islower():
        out.append("start:lower")
    elif s[:1] == "`":
        out.append("start:code")
    words = s.split()
    out.append(f"words:{bucket(len(words), (3, 6, 10, 16, 25, 40))}")
    if s.count(",") >= 3:
        out.append("commas:3+")
    first = words[0].strip("`*_\"'(").lower() if words else ""
    if first.isalpha():
        out.append(f"first:{first}")
    if sent is None:
        return out
    root = sent.root
    out += [f"root:{root.pos_}", f"roottag:{root.tag_}"]
    kids = list(root.children)
    subj = [c for c in kids if c.dep_ in ("nsubj", "nsubjpass", "expl", "csubj")]
    aux = [c for c in kids if c.dep_ in ("aux", "auxpass")]
    if not subj:
        out.append("nosubj")
        if root.tag_ == "VB" and not aux:
            out.append("imperative")
    else:
        st = subj[0]
        person = st.lower_ if st.lower_ in ("i", "we", "you", "it", "they", "he", "she", "this", "that") else (
            "propn" if st.pos_ == "PROPN" else "noun" if st.pos_ == "NOUN" else "other")
        out.append(f"subj:{person}")
        if subj[0].dep_ == "nsubjpass":
            out.append("passive")
    for a in aux:
        if a.tag_ == "MD":
            out.append(f"modal:{a.lower_}")
    if root.lemma_ == "be" or any(c.dep_ == "cop" for c in kids):
        out.append("copula")
    if any(c.dep_ == "neg" for c in kids):
        out.append("rootneg")
    for c in kids:
        if c.dep_ == "advcl":
            marks = [m.lower_ for m in c.children if m.dep_ == "mark"]
            out.append(f"advcl:{marks[0] if marks else '-'}")
    verbs = sum(1 for t in sent if t.pos_ in ("VERB", "AUX"))
    out.append(f"verbs:{bucket(verbs, (0, 1, 2, 4))}")
    propn = sum(1 for t in sent if t.pos_ == "PROPN")
    out.append(f"propn:{bucket(propn, (0, 1, 3))}")
    tense = root.morph.get("Tense")
    if tense:
        out.append(f"tense:{tense[0]}")
    if root.pos_ in ("VERB", "AUX"):
        out.append(f"lemma:{root.lemma_.lower()}")
    return out


class Gate(CalibratedLogistic):
    """A fitted model: feature weights, a bias and the Platt map from its raw logit to a probability."""

    def __init__(self, data: dict[str, Any]) -> None:
        super().__init__(data, WEIGHTS.name)


@lru_cache(maxsize=1)
def load(path: str | None = None) -> Gate | None:
    """The shipped model (None when the file is absent: the fact scorer then reads no gate feature)."""
    return Gate.read(Path(path) if path else WEIGHTS)


def probability(sentence: str, sent: Any = None) -> float | None:
    """The probability that ``sentence`` states a fact (None without a shipped model)."""
    model = load()
    return None if model is None else model.probability(features(sentence, sent))
