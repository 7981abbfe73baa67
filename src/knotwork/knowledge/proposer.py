"""A learned proposer of candidate facts: for each pair of mentions in a parsed sentence, which predicate
(if any) the sentence states between them.

The rules of :mod:`~knotwork.knowledge.parse` read the shapes they were written for; in READMEs, issue
threads, chat and meeting notes most right facts come in wordings no rule reads ("`ruff` — an extremely
fast Python linter", "we've been on Postgres since the rewrite"). This module reads every ordered pair of
mentions of one sentence (the names the extraction already finds, "I"/"we" as User/Team, the noun phrases
the parse names, status words and versions) and describes the pair by what the existing parse gives for
free: the dependency path between the two heads (dependency labels, and the lemma where the path turns),
the governing word's lemma with its particles and the preposition before the object, the kinds of the two
ends, their order and distance, copula / possessive / apposition shapes, and the sentence gate's cue
features (:func:`knotwork.knowledge.gate.features`: question, condition, instruction, hedge, plan, ...).

One logistic model per predicate, each Platt-calibrated on out-of-fold scores of the pairs it reads, says
how likely the sentence states that fact; a pair gets the predicate with the highest probability, when it
reaches the file's ``threshold``. That probability is the fact's ``confidence`` (the fact scorer, fitted on
the rules' candidates, does not re-score it), and the store floor applies as to every fact. The fact is over
(stored retired) when the rules' cues say so on the verb nearest its object (:func:`over`: negation, "no
longer", "used to", a past state verb). A proposed fact is added only for a pair of names the rules left
unrelated: where a rule reads a pair, its reading stands.

The weights are ``data/fact_proposer.json``, fitted by ``bench/train_fact_proposer.py`` on the dev halves
of the labelled sets (``--check`` rebuilds the file byte for byte). Reading them needs only NumPy: the
per-class weights become one matrix, so the pairs of a memory cost one row gather and a sum. It reads the
parse the extraction already made (no second parse). On unless the setting ``KNOTWORK_KG_PROPOSER`` turns it
off, at the shipped threshold 0.6 (the store floor): out of fold on the dev halves, folds grouped by source, it
adds right facts and no wrong one there, and every lower threshold costs some set's precision (bench/RESULTS.md,
issue 36 round 5).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from knotwork.domain.calibrated import bucket
from knotwork.knowledge import gate
from knotwork.knowledge import vocabulary as V
from knotwork.knowledge.models import Extraction, FactDraft

WEIGHTS = Path(__file__).parent / "data" / "fact_proposer.json"
USER, TEAM = "User", "Team"
RULE = "learned"
#: at most this many mentions of one sentence are paired (the first ones), and only pairs whose heads are at
#: most ``MAX_PATH`` dependency arcs apart: a long sentence's far pairs are almost never a stated fact and
#: would cost the most to read
MAX_MENTIONS = 10
MAX_PATH = 6
#: status words an end may be ("`proxies` is now deprecated"), from the labelled sets' status facts
STATUS_WORDS = frozenset(
    "deprecated removed blocked broken fixed archived done merged released legacy obsolete stable experimental "
    "abandoned unmaintained shipped live paused cancelled canceled".split())
_VERSION = re.compile(r"^(?:v|\^|~|>=|<=|==|>|<)?\d+(?:\.\d+){0,3}(?:[a-z]+\d*)?$", re.I)
_FIRST = {"i": USER, "me": USER, "my": USER, "mine": USER, "myself": USER,
          "we": TEAM, "us": TEAM, "our": TEAM, "ours": TEAM, "ourselves": TEAM}


@dataclass(frozen=True, slots=True)
class Mention:
    name: str
    kind: str       # the span's type, user, team, noun, status, version
    tok: Any        # its head token
    cut: str = ""   # a common noun's name cut to the guide's extent (:func:`guide_name`) when it differs


def mentions(sent: Any, spans: list[Any]) -> list[Mention]:
    """The mentions of one parsed sentence, in order: each regex name span (by its head token), first
    person as User / Team, other nouns by the name the parse gives them, status words, versions."""
    from knotwork.knowledge.parse import _Names

    base = sent.start_char
    out: list[Mention] = []
    seen: set[str] = set()
    taken: set[int] = set()

    def add(name: str, kind: str, tok: Any, cut: str = "") -> None:
        key = name.casefold()
        if name and key not in seen:
            seen.add(key)
            out.append(Mention(name, kind, tok, "" if cut == name else cut))

    for span in spans:
        toks = [t for t in sent if t.idx - base < span.end and t.idx - base + len(t) > span.start]
        if not toks:
            continue
        inside = {t.i for t in toks}
        taken |= inside
        heads = [t for t in toks if t.head.i not in inside or t.head.i == t.i]
        add(span.name, span.type or "name", heads[0] if heads else toks[0])
    names = _Names(sent, spans, {})
    for tok in sent:
        if tok.i in taken:
            continue
        low = tok.lower_
        if low in _FIRST:
            add(_FIRST[low], "user" if _FIRST[low] == USER else "team", tok)
        elif low in STATUS_WORDS and tok.pos_ in ("ADJ", "VERB", "NOUN"):
            add(tok.text, "status", tok)
        elif _VERSION.match(tok.text) and any(c.isdigit() for c in tok.text):
            add(tok.text, "version", tok)
        elif tok.pos_ in ("NOUN", "PROPN") and tok.dep_ not in ("compound", "amod", "poss"):
            try:
                named = names.name(tok)
            except (IndexError, ValueError):  # a parse the name reader does not expect: no mention
                named = None
            if named and named[0] not in (USER, TEAM):
                add(named[0], "noun" if named[1] is None else named[1], tok,
                    guide_name(tok) if named[1] is None and tok.pos_ == "NOUN" else "")
    out.sort(key=lambda m: m.tok.i)
    return out[:MAX_MENTIONS]


def guide_name(tok: Any) -> str:
    """A common noun's name under the labelling guide's extent (bench/data/extraction_corpus/GUIDE.md, section
    4): the head noun with the common nouns compounded right before it, without articles, possessors,
    adjectives, numbers or a proper name in front ("a comprehensive Python toolchain" is "toolchain", "a
    Rule-based analysis framework" is "analysis framework", "home automation application" keeps its nouns).
    The parse's own phrase (:class:`knotwork.knowledge.parse._Names`) keeps the modifiers, which the labels keep
    on a named part ("the ingest job", "the e2e suite") and leave out of a kind: a fact's subject is the
    parse's phrase, an ``is_a`` object this name (:func:`object_name`)."""
    start = tok.i
    while start > tok.sent.start:
        prev = tok.doc[start - 1]
        if prev.dep_ == "compound" and prev.pos_ == "NOUN" and prev.head.i in range(start, tok.i + 1) \
                and prev.text.islower() and prev.text.isalpha():
            start -= 1
        else:
            break
    return tok.doc[start : tok.i + 1].text


def object_name(o: Mention, predicate: str) -> str:
    """The name a fact's object takes: a kind (``is_a``) by the guide's extent ("Biome is a Rust-based monorepo":
    ``monorepo``), any other object as the parse names it."""
    return o.cut or o.name if predicate == "is_a" else o.name


def _up(tok: Any) -> list[Any]:
    """``tok`` and its heads up to the root."""
    chain = [tok]
    while chain[-1].head.i != chain[-1].i and len(chain) < 20:
        chain.append(chain[-1].head)
    return chain


def _path(a: Any, b: Any) -> tuple[list[Any], Any, list[Any]] | None:
    """The dependency path from ``a`` up to the lowest common head and down to ``b``, or None."""
    up_a, up_b = _up(a), _up(b)
    ids_b = {t.i: n for n, t in enumerate(up_b)}
    for n, t in enumerate(up_a):
        if t.i in ids_b:
            return up_a[:n], t, up_b[:ids_b[t.i]]
    return None


def over(s: Mention, o: Mention) -> bool:
    """Whether the sentence states the pair's fact as over: the verb nearest the object on the path between
    them negated or ended ("no longer uses", "doesn't support", "anymore"), a simple past of a state verb
    ("the docs were built with Sphinx"), a past leaving ("left Acme", "moved out of Hackney", "migrated from
    Heroku"), or "used to" (the rules' cues, :mod:`knotwork.knowledge.cues`)."""
    from knotwork.knowledge.cues import negated, state_past

    found = _path(s.tok, o.tok)
    if found is None:
        return False
    ups, top, downs = found
    verb = next((t for t in [*downs[1:], top] if t.pos_ in ("VERB", "AUX")), None)  # the verb nearest the object
    if verb is None:
        return False
    if negated(verb) or state_past(verb):
        return True
    if verb.tag_ in ("VBD", "VBN") and (verb.lemma_ in ("leave", "quit") or (  # "left Acme", "moved out of Hackney"
            verb.lemma_ in ("move", "relocate", "migrate", "switch") and _away(verb, downs))):
        return True
    head = verb.head if verb.dep_ == "xcomp" else verb  # "we used to deploy with Capistrano"
    return head.lemma_ == "use" and head.tag_ == "VBD" and any(c.dep_ == "xcomp" for c in head.children)


def _away(verb: Any, downs: list[Any]) -> bool:
    """A move away from the object: "from" or "of" on the path to it, or "out of" / "away from" on the verb
    (the parse hangs "in Hackney" of "moved out of my flat in Hackney" on the verb)."""
    if any(t.dep_ == "prep" and t.lower_ in ("from", "of") for t in downs):
        return True
    return any(c.lower_ in ("out", "away") and any(g.lower_ in ("of", "from") for g in c.children)
               for c in verb.children)


def _lemma(tok: Any) -> str:
    return tok.lemma_.lower() if tok.pos_ in ("VERB", "AUX", "ADP", "ADJ", "NOUN") else tok.pos_


def sentence_features(sent: Any) -> list[str]:
    """What the pair features share within one sentence: the gate's cue features, prefixed."""
    return ["g:" + f for f in gate.features(sent.text, sent)]


def pair_features(s: Mention, o: Mention, shared: list[str], rules: str | None) -> list[str] | None:
    """The named present-or-absent features of the ordered pair (subject ``s``, object ``o``), or None
    when their heads are too far apart. ``rules``: the predicate a rule gave this pair under the store
    floor, if any."""
    if s.tok.i == o.tok.i:
        return None
    found = _path(s.tok, o.tok)
    if found is None:
        return None
    ups, top, downs = found
    if len(ups) + len(downs) > MAX_PATH:
        return None
    deps = "^".join(t.dep_ for t in ups) + "|" + "v".join(t.dep_ for t in reversed(downs))
    lemma = _lemma(top)
    parts = [c.lower_ for c in top.children if c.dep_ == "prt"]
    prep = next((t.lower_ for t in downs if t.dep_ in ("prep", "agent", "dative")), "-")
    skind, okind = s.kind, o.kind
    out = [f"path:{deps}", f"path*top:{deps}*{lemma}", f"top:{lemma}", f"top*prep:{lemma}*{prep}",
           f"prep:{prep}", f"toppos:{top.pos_}", f"skind:{skind}", f"okind:{okind}", f"kinds:{skind}*{okind}",
           f"kinds*top:{skind}*{okind}*{lemma}", f"len:{len(ups)}+{len(downs)}",
           f"order:{'so' if s.tok.i < o.tok.i else 'os'}",
           f"dist:{bucket(abs(s.tok.i - o.tok.i), (1, 2, 3, 5, 8, 12))}",
           f"sdep:{s.tok.dep_}", f"odep:{o.tok.dep_}", f"deps:{s.tok.dep_}*{o.tok.dep_}",
           f"odep*top:{o.tok.dep_}*{lemma}", f"sdep*top:{s.tok.dep_}*{lemma}"]
    if parts:
        out.append(f"top*prt:{lemma}*{parts[0]}")
    said = top.lemma_.lower()
    for key in (f"{said} {parts[0]}" if parts else "", f"{said} {prep}", said):
        if key in V.PHRASES:  # what the vocabulary's phrase table makes of the governing words
            predicate, retired = V.PHRASES[key]
            out += [f"phrase:{predicate}", f"phrase*kinds:{predicate}*{skind}*{okind}"]
            if retired:
                out.append("phrase-retired")
            break
    if top.i in (s.tok.i, o.tok.i):
        out.append(f"top-is:{'s' if top.i == s.tok.i else 'o'}")
    kids = list(top.children)
    if any(c.dep_ == "neg" for c in kids):
        out.append("neg")
    if any(c.dep_ in ("aux", "auxpass") and c.tag_ == "MD" for c in kids):
        out.append("modal")
    if top.tag_ in ("VBD", "VBN"):
        out.append(f"tense:{top.tag_}")
    if top.lemma_ == "be" or any(c.dep_ == "cop" for c in kids):
        out.append("copula")
    if "appos" in deps:
        out.append("appos")
    if "poss" in deps:
        out.append("poss")
    sk, ok = V.kind(s.name, None if s.kind in ("noun", "name", "user", "team", "status") else s.kind), \
        V.kind(o.name, None if o.kind in ("noun", "name", "user", "team", "status", "version") else o.kind)
    out.append(f"vkinds:{sk}*{ok}")
    if rules:
        out.append(f"rules:{rules}")
    return out + shared


# -- run time --------------------------------------------------------------------------------------------------


class Proposer:
    """The fitted classes: one weight column, bias and Platt map per predicate."""

    def __init__(self, data: dict[str, Any]) -> None:
        name = WEIGHTS.name
        if data.get("version") != 1:
            raise ValueError(f"{name}: version must be 1")
        classes = data.get("classes")
        if not isinstance(classes, dict) or not classes:
            raise ValueError(f"{name}: classes must be a non-empty object")
        threshold = data.get("threshold")
        if not isinstance(threshold, (int, float)) or not 0 < threshold <= 1:
            raise ValueError(f"{name}: threshold must be in (0, 1]")
        self.threshold = float(threshold)
        self.labels: list[str] = []
        vocab: dict[str, int] = {}
        cols: list[dict[str, float]] = []
        bias, slope, intercept = [], [], []
        for label in sorted(classes):
            spec = classes[label]
            if not re.fullmatch(r"[a-z][a-z_]*", label):
                raise ValueError(f"{name}: class {label!r} must be a predicate (lower case, _ between words)")
            platt = spec.get("calibration", {}).get("platt") if isinstance(spec, dict) else None
            if not (isinstance(platt, list) and len(platt) == 2 and platt[0] > 0):
                raise ValueError(f"{name}: class {label!r}: calibration.platt must be [slope > 0, intercept]")
            weights = spec.get("weights")
            if not isinstance(weights, dict):
                raise ValueError(f"{name}: class {label!r}: weights must be an object")
            self.labels.append(label)
            bias.append(float(spec["bias"]))
            slope.append(float(platt[0]))
            intercept.append(float(platt[1]))
            cols.append({k: float(v) for k, v in weights.items()})
            for k in weights:
                vocab.setdefault(k, len(vocab))
        self.vocab = vocab
        self.matrix = np.zeros((len(vocab) + 1, len(cols)))  # the last row: features no class weighs
        for j, col in enumerate(cols):
            for k, v in col.items():
                self.matrix[vocab[k], j] = v
        self.bias = np.asarray(bias)
        self.slope = np.asarray(slope)
        self.intercept = np.asarray(intercept)

    @classmethod
    def read(cls, path: Path) -> Proposer | None:
        if not path.exists():
            return None
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path.name}: not JSON ({exc.msg})") from exc
        if not isinstance(data, dict):
            raise ValueError(f"{path.name}: must hold a JSON object")
        return cls(data)

    def probabilities(self, feats: list[str]) -> np.ndarray:
        """The calibrated probability of each class for one pair."""
        return self.many([feats])[0]

    def many(self, feats: list[list[str]]) -> np.ndarray:
        """The calibrated probability of each class for each pair (pairs × classes), in one gather and sum."""
        if not feats:
            return np.zeros((0, len(self.labels)))
        unknown = len(self.vocab)
        rows: list[int] = []
        starts: list[int] = []
        for fs in feats:
            starts.append(len(rows))
            rows += [self.vocab.get(f, unknown) for f in set(fs)] or [unknown]
        z = self.slope * (self.bias + np.add.reduceat(self.matrix[rows], starts, axis=0)) + self.intercept
        return 1.0 / (1.0 + np.exp(-z))


@lru_cache(maxsize=1)
def load(path: str | None = None) -> Proposer | None:
    """The shipped model (None when the file is absent)."""
    return Proposer.read(Path(path) if path else WEIGHTS)


def pairs(doc: Any, out: Extraction, floor: float, every: bool = False
          ) -> list[tuple[Mention, Mention, list[str]]]:
    """Every ordered pair of mentions of each sentence of ``doc`` that the rules' facts at or over ``floor``
    leave unrelated, with its features. Shared by the run time and the training script; ``every`` (training):
    the pairs the rules relate too, marked by a last feature ``covered``."""
    from knotwork.knowledge.extract import _spans

    kept = {(f.subject.casefold(), f.object.casefold()) for f in out.facts if f.confidence >= floor}
    kept |= {(f.subject.casefold(), f.replaces.casefold()) for f in out.facts if f.confidence >= floor and f.replaces}
    kept |= {(o, s) for s, o in kept}
    under = {(f.subject.casefold(), f.object.casefold()): f.predicate for f in out.facts if f.confidence < floor}
    def keys(m: Mention) -> list[str]:
        return [m.name.casefold()] + ([m.cut.casefold()] if m.cut else [])

    found = []
    for sent in doc.sents:
        ms = mentions(sent, _spans(sent.text))
        if len(ms) < 2:
            continue
        shared = sentence_features(sent)
        for s in ms:
            if s.kind in ("status", "version"):
                continue
            for o in ms:
                if o is s or o.kind in ("user", "team"):
                    continue
                covered = any((a, b) in kept for a in keys(s) for b in keys(o))
                if covered and not every:
                    continue
                ruled = None if covered else under.get((s.name.casefold(), o.name.casefold()))
                feats = pair_features(s, o, shared, ruled)
                if feats is not None:
                    found.append((s, o, feats + ["covered"] if covered else feats))
    return found


def readings(out: Extraction, doc: Any, floor: float, model: Proposer) -> list[FactDraft]:
    """The model's best reading of each pair of names the rules left unrelated (whatever its probability,
    which is the draft's confidence), one per pair, most sure first; readings whose ends do not fit their
    predicate's kinds ("Team lives_in Valkey") are left out."""
    from knotwork.knowledge.resolve import normalize

    best: dict[tuple[str, str], FactDraft] = {}
    found = pairs(doc, out, floor)
    filled = {(f.predicate, normalize(f.object)) for f in out.facts if f.confidence >= floor}
    for (s, o, _), p in zip(found, model.many([f for _, _, f in found])):
        j = int(np.argmax(p))
        predicate = model.labels[j]
        if (predicate, normalize(o.name)) in filled or (o.cut and (predicate, normalize(o.cut)) in filled):
            continue  # the rules' stored facts give the object this relation already ("e2e suite uses X")
        past = over(s, o)
        obj = object_name(o, predicate)
        if V.fit(predicate, s.name, type_of(s), o.name, type_of(o), None) <= 0:
            continue
        key = (s.name.casefold(), o.name.casefold())
        fact = FactDraft(s.name, predicate, obj, subject_type=type_of(s), object_type=type_of(o), past=past,
                         confidence=round(float(p[j]), 3), rule=f"{RULE}:{predicate}")
        if key not in best or fact.confidence > best[key].confidence:
            best[key] = fact
    return sorted(best.values(), key=lambda f: -f.confidence)


def propose(out: Extraction, doc: Any, floor: float, model: Proposer | None = None) -> Extraction:
    """``out`` (the rules' facts, already scored) with the facts the model (default: the shipped one) proposes
    at its threshold for pairs of names the rules left unrelated, each with the model's probability as its
    confidence. A rule's candidate for the same pair under the floor gives way to the model's reading."""
    model = model or load()
    if model is None or doc is None:
        return out
    found = {(f.subject.casefold(), f.object.casefold()): f for f in readings(out, doc, floor, model)
             if f.confidence >= model.threshold}
    if found:
        out.facts = [f for f in out.facts
                     if not (f.confidence < floor and (f.subject.casefold(), f.object.casefold()) in found)]
        out.facts += list(found.values())
    return out


def type_of(m: Mention) -> str | None:
    """The entity type a fact's end gets from its mention (None: the extraction could not tell)."""
    if m.kind == "user":
        return "person"
    if m.kind == "team":
        return "team"
    if m.kind in ("status", "version"):
        return m.kind
    return None if m.kind in ("noun", "name") else m.kind
