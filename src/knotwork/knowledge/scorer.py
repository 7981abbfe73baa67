"""How likely an offline candidate fact is right: a calibrated logistic model over what found it.

The rules of :mod:`~knotwork.knowledge.parse` and :mod:`~knotwork.knowledge.extract` propose
candidates; a constant confidence per rule kind did not separate the right ones from the wrong
ones. Each candidate gets named binary features (the rule and its family, the predicate, the kinds
and NER labels of its ends, how its subject was found, cue words for negation, hedges, plans,
questions and conditions in its sentence, the clause count, the distance between its ends, the
dependency depth and role of its object, …) and a logistic model over them, calibrated by Platt
scaling on out-of-fold scores, says the probability that it is right. That probability is the
fact's ``confidence``; a setting drops what falls below a floor before it is stored.

The weights are ``data/fact_scorer.json``, fitted by ``bench/train_fact_scorer.py`` on the dev
halves of the labelled sets (the script rebuilds the file byte for byte). Reading them needs only
the standard library and NumPy. Caller facts and LLM facts never pass through here. On text unlike
the training memories (chat, issue threads, READMEs) the extraction then lowers the probability,
never raises it (:mod:`~knotwork.knowledge.outside`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from knotwork.domain.calibrated import CalibratedLogistic, bucket
from knotwork.knowledge import gate
from knotwork.knowledge import vocabulary as V
from knotwork.knowledge.lexicon import TECH
from knotwork.knowledge.models import Extraction, FactDraft
from knotwork.knowledge.sentences import sentences

WEIGHTS = Path(__file__).parent / "data" / "fact_scorer.json"
USER, TEAM = "User", "Team"

_NEGATION = re.compile(r"\b(?:not|never|no longer|anymore|nobody|none|neither|nor|without)\b|n['’]t\b", re.I)
_HEDGE = re.compile(r"\b(?:might|may|maybe|perhaps|probably|possibly|could|guess|think|seems?|apparently|"
                    r"not sure|i believe|likely|unsure|kind of|sort of)\b", re.I)
_PLAN = re.compile(r"\b(?:will|going to|gonna|plan(?:ning|s)? to|want(?:s)? to|hoping|hope to|considering|"
                   r"thinking (?:about|of)|next (?:week|month|year|quarter|sprint)|tomorrow|soon|someday|would like)\b",
                   re.I)
_QUESTION = re.compile(r"\?|^\s*(?:should|shall|can|could|would|do|does|did|is|are|was|were|what|which|who|why|how|"
                       r"where|when)\b", re.I)
_CONDITION = re.compile(r"\b(?:if|unless|whenever|in case|assuming|otherwise|once)\b", re.I)
_PAST = re.compile(r"\b(?:used to|previously|formerly|back in|ago|was|were|had|until|no longer)\b", re.I)
_CHANGE = re.compile(r"\b(?:from|instead of|rather than|in favou?r of|replaced|switched|migrated|moved|"
                     r"dropped|ditched|abandoned)\b", re.I)
_REPORTED = re.compile(r"\b(?:said|says|told|tells|mentioned|according to|heard|asked|suggested|recommended)\b", re.I)
_ORDER = re.compile(r"^\s*(?:please\s+)?(?:use|don['’]t|do not|never|always|make sure|remember|avoid|add|run|"
                    r"keep|try|let['’]s)\b", re.I)
_MUST = re.compile(r"\b(?:must|should|need to|needs to|have to|has to|make sure|ensure|do not|don['’]t)\b", re.I)
_CHATTY = re.compile(r"(?i:\b(?:haha+|lol|lmao|omg|yeah|yep|nope|gonna|wanna|kinda|btw|tbh)\b)|\bi\b|[:;]-?[()DPp]\B|!!|\?!")
_TRACKER = re.compile(r"#\d+|\bPR\b|\bv?\d+\.\d+\.\d+|https?://|\b(?:fixes|closes|bump|changelog|deprecat\w*)\b", re.I)
#: The same for a version fact: without version numbers and "bump", which are the fact's own value and verb
_TRACKER_WORDS = re.compile(r"#\d+|\bPR\b|https?://|\b(?:fixes|closes|changelog|deprecat\w*)\b", re.I)
_PRONOUN = re.compile(r"\b(?:he|she|him|her|it|they|them)\b", re.I)
_FIRST = re.compile(r"\b(?:I|me|my|mine|I['’]m|I['’]ve)\b")
_WE = re.compile(r"\b(?:we|us|our|ours)\b", re.I)


def _find(text: str, name: str) -> int:
    """Where ``name`` first appears in ``text`` (case-insensitive), or -1."""
    if not name:
        return -1
    at = text.lower().find(name.lower())
    if at < 0 and " " in name:
        at = text.lower().find(name.split()[0].lower())
    return at


def sentence_of(doc: Any, text: str, f: FactDraft) -> tuple[str, Any]:
    """The sentence the fact most likely came from (its object named there; else its subject), and
    its spaCy span (None without a parse)."""
    if doc is None:

        parts = sentences(text) or [text]
        for name in (f.object, f.subject):
            for part in parts:
                if _find(part, name) >= 0:
                    return part, None
        return parts[0], None
    sents = list(doc.sents)
    for name in (f.object, f.subject):
        for s in sents:
            if _find(s.text, name) >= 0:
                return s.text, s
    return (sents[0].text, sents[0]) if sents else (text, None)


def _token(sent: Any, name: str) -> Any | None:
    """The head token of the first mention of ``name`` in a parsed sentence."""
    at = _find(sent.text, name)
    if at < 0:
        return None
    start = sent.start_char + at
    end = start + len(name)
    toks = [t for t in sent if t.idx < end and t.idx + len(t) > start]
    if not toks:
        return None
    inside = {t.i for t in toks}
    heads = [t for t in toks if t.head.i not in inside or t.head.i == t.i]
    return heads[0] if heads else toks[0]


def depth(tok: Any, most: int = 12) -> int:
    """How many heads up ``tok``'s root is, counted to ``most`` at the longest."""
    n = 0
    while tok.head.i != tok.i and n < most:
        tok = tok.head
        n += 1
    return n


def _ner(doc: Any, tok: Any | None) -> str:
    if tok is None or doc is None:
        return "none"
    return tok.ent_type_ or "O"


#: Where the sentence gate's probability is cut into the scorer's present-or-absent features.
GATE_EDGES = (0.1, 0.2, 0.35, 0.5, 0.65, 0.8)
GateOf = Callable[[str, Any], "float | None"]


def _gate_bucket(p: float) -> str:
    for e in GATE_EDGES:
        if p < e:
            return f"<{e}"
    return f">={GATE_EDGES[-1]}"


def features(f: FactDraft, text: str, doc: Any = None, n_facts: int = 1, gate_of: GateOf | None = None) -> list[str]:
    """The named binary features of one candidate fact of ``text`` (``doc``: its parse, or None).
    ``gate_of(sentence, span)``: how likely the candidate's sentence states a fact at all
    (:mod:`knotwork.knowledge.gate`; default the shipped gate; the training script passes out-of-fold values)."""
    rule = f.rule or "?"
    parts = rule.split(":")
    family = ":".join(parts[:2])
    source = parts[0]
    pred = f.predicate
    pfam = "relative" if pred.endswith("_of") else "favorite" if pred.startswith("favorite_") else \
        "attribute" if pred.startswith("has_") else pred
    sentence, sent = sentence_of(doc, text, f)
    out = [f"mode:{'parse' if doc is not None else 'rules'}", f"source:{source}", f"family:{family}",
           f"rule:{rule}", f"pred:{pfam}", f"pred*source:{pfam}*{source}"]
    skind = V.kind(f.subject, f.subject_type) or "none"
    okind = V.kind(f.object, f.object_type) or "none"
    out += [f"skind:{skind}", f"okind:{okind}", f"pred*okind:{pfam}*{okind}", f"pred*skind:{pfam}*{skind}",
            f"stype:{f.subject_type or 'none'}", f"otype:{f.object_type or 'none'}"]
    fit = V.fit(pred, f.subject, f.subject_type, f.object, f.object_type, f.replaces)
    out.append(f"fit:{fit:.2f}")
    if f.past:
        out += ["past", f"past*pred:{pfam}"]
    if f.replaces:
        out += ["replaces", f"replaces*family:{family}"]
    if f.turn:
        out.append("turn")
    if f.when or f.valid_at:
        out.append("dated")
    # how the subject was found
    s_at = _find(sentence, f.subject)
    if f.subject == USER:
        how = "user-said" if _FIRST.search(sentence) else "user-implicit"
    elif f.subject == TEAM:
        how = "team-said" if _WE.search(sentence) else "team-implicit"
    elif f.subject.startswith((USER + "'s", TEAM + "'s")):
        how = "relative-phrase"
    elif s_at >= 0:
        how = "named"
    else:
        how = "pronoun" if _PRONOUN.search(sentence) else "elsewhere"
    out += [f"subject:{how}", f"subject*pred:{how}*{pfam}"]
    # shape of the ends
    if how == "named":
        out.append(f"swords:{bucket(len(f.subject.split()), (1, 2, 3))}")
        if f.subject[:1].islower():
            out.append("slower")
    words = f.object.split()
    out.append(f"owords:{bucket(len(words), (1, 2, 3))}")
    if f.object[:1].isupper():
        out.append("ocap")
    elif f.object[:1].islower():
        out.append("olower")
    if f.object.lower() in TECH:
        out.append("otech")
    if any(c.isdigit() for c in f.object):
        out.append("odigit")
    # cues in its sentence
    for name, rx in (("neg", _NEGATION), ("hedge", _HEDGE), ("plan", _PLAN), ("question", _QUESTION),
                     ("condition", _CONDITION), ("pastword", _PAST), ("change", _CHANGE), ("reported", _REPORTED),
                     ("order", _ORDER)):
        if rx.search(sentence):
            out += [f"cue:{name}", f"cue*source:{name}*{source}"]
    if _MUST.search(sentence):
        out += ["cue:must", f"cue*source:must*{source}"]
    if ":" in sentence:
        out.append("cue:colon")
    if "`" in sentence:
        out.append("cue:code")
    if sentence.count(",") >= 3:
        out.append("cue:list")
    if sentence.lstrip()[:1] in ("-", "*", "`", "(") or sentence.rstrip().endswith(":"):
        out.append("cue:fragment")
    o_at = _find(sentence, f.object)
    if s_at >= 0 and o_at >= 0:
        between = sentence[min(s_at, o_at): max(s_at, o_at)]
        out.append(f"gap:{bucket(len(between.split()), (1, 2, 4, 7, 12))}")
        if o_at < s_at:
            out.append("object-first")
        if re.search(r"[,;:()—–-]\s", between):
            out.append("gap-punct")
        if re.search(r"\b(?:and|but|or|which|who|that|because|while|although)\b", between, re.I):
            out.append("gap-clause")
    else:
        out.append("gap:none")
    out.append(f"words:{bucket(len(sentence.split()), (6, 10, 16, 25))}")
    # the register of the text: hand-written notes, chat, changelogs and trackers differ in how often a reading is right
    out.append(f"chars:{bucket(len(text), (60, 120, 240, 480))}")
    if _CHATTY.search(text):
        out.append("register:chat")
    if (_TRACKER_WORDS if pred == "uses_version" else _TRACKER).search(text):
        out.append("register:tracker")
    if not sentence.rstrip().endswith((".", "!", "?", '"', "”", ")")):
        out.append("register:unpunctuated")
    if text[:1].islower():
        out.append("register:lower-start")
    out.append(f"facts:{bucket(n_facts, (1, 2, 4))}")
    p = (gate_of or gate.probability)(sentence, sent)
    if p is not None:
        out.append(f"gate:{_gate_bucket(p)}")
    if doc is not None:
        out.append(f"sentences:{bucket(len(list(doc.sents)), (1, 2, 3))}")
    if sent is not None:
        verbs = [t for t in sent if t.pos_ in ("VERB", "AUX") and t.dep_ in ("ROOT", "conj", "advcl", "ccomp",
                                                                            "xcomp", "relcl", "acl", "csubj")]
        out.append(f"clauses:{bucket(len(verbs), (1, 2, 3))}")
        otok = _token(sent, f.object)
        stok = _token(sent, f.subject) if how == "named" else None
        out += [f"oner:{_ner(doc, otok)}", f"sner:{_ner(doc, stok) if how == 'named' else how}"]
        if otok is not None:
            out += [f"odep:{otok.dep_}", f"odepth:{bucket(depth(otok), (1, 2, 3, 4))}",
                    f"opath:{otok.dep_}<{otok.head.dep_}", f"opos:{otok.pos_}"]
            if otok.head.dep_ == "prep":
                out.append(f"oprep:{otok.head.lower_}")
            if any(c.dep_ == "neg" for c in otok.head.children) or any(
                    c.dep_ == "neg" for c in otok.head.head.children):
                out.append("oneg")
            if stok is not None:
                out.append(f"same-head:{stok.head.i == otok.head.i or stok.head.i == otok.head.head.i}")
        else:
            out.append("otok:none")
        root = sent.root
        out.append(f"root:{root.pos_}")
        if any(c.dep_ == "aux" and c.lower_ in V.HEDGE_MODALS for c in root.children):
            out.append("root-modal")
    return out


class Scorer(CalibratedLogistic):
    """A fitted model: feature weights, a bias and the Platt map from its raw logit to a probability."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.version = int(data["version"])
        super().__init__(data, WEIGHTS.name)


@lru_cache(maxsize=1)
def load(path: str | None = None) -> Scorer | None:
    """The shipped model (None when the file is absent: confidence then stays the rules' constant)."""
    return Scorer.read(Path(path) if path else WEIGHTS)


def score(out: Extraction, text: str, doc: Any = None) -> Extraction:
    """Each candidate's confidence becomes the model's probability that it is right."""
    model = load()
    if model is None or not out.facts:
        return out
    n = len(out.facts)
    seen: dict[str, float | None] = {}

    def gate_of(sentence: str, span: Any) -> float | None:  # one gate reading per sentence, however many candidates
        if sentence not in seen:
            seen[sentence] = gate.probability(sentence, span)
        return seen[sentence]

    out.facts = [replace(f, confidence=round(model.probability(features(f, text, doc, n, gate_of)), 3))
                 for f in out.facts]
    return out
