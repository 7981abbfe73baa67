"""Facts from sentence structure: rules over spaCy's dependency parse.

The regular-expression rules of :mod:`knotwork.knowledge.extract` still find
the names (code identifiers, paths, known technologies, capitalised runs);
the parse says how they relate:

- each verb clause gives its subjects (``nsubj``; a passive's ``by`` agent;
  a coordinated verb's shared subject; "I" for a subjectless diary line) and
  objects (the direct object, or the object of each preposition), with
  coordination read on both sides ("the app and the site both use X",
  "uses A, B and C", "written in Go and deployed to Fly");
- the verb's lemma, particle and preposition name the predicate through
  :data:`~knotwork.knowledge.vocabulary.PHRASES`;
- negation, "no longer", "anymore", "used to", a past tense of a state verb
  and retiring verbs ("quit", "grew up in", "sold", "dropped") make the fact
  *past* (stored retired); "from A to B", "replaced A with B", "B replaced A",
  "A was replaced by B", "dropped A for B" retire the old value;
- hedges (modal verbs, "thinking of", "planning to", "maybe"), questions and
  instructions give no fact;
- "my sister Emma", "Emma, my sister,", "Emma is my sister" give
  ``Emma sister_of User``; he/she stand for the last person named before.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from knotwork.knowledge import ends as _ends
from knotwork.knowledge import attributes as _attributes
from knotwork.knowledge import registers as _registers
from knotwork.knowledge import vocabulary as V
from knotwork.knowledge.cues import (
    NOW as _NOW, READ_ELSEWHERE as _READ_ELSEWHERE,
    children as _children, conjuncts as _conjuncts,
    instead as _instead,
    place_name as _place_name,
    is_hedged as _is_hedged,
    negated as _negated, disliked as _disliked,
    question_or_order as _question_or_order,
    relative as _relative,
    school as _school,
    state_past as _state_past,
    tech_name as _tech_name,
    technical as _technical,
    turn_predicates as _turn_predicates,
    verbs as _verbs,
    when as _when,
    year as _year,
)
from knotwork.knowledge.carry import carried, carry, fix_lemmas, note_person
from knotwork.knowledge.lexicon import COMMON, DAYS, GENERIC_ACRONYMS
from knotwork.knowledge.models import EntityDraft, Extraction, FactDraft

USER = "User"
TEAM = "Team"

_ARG_DEPS = {"nsubj", "nsubjpass", "dobj", "pobj", "attr", "appos", "conj", "oprd", "npadvmod", "dative"}
_NAME_MODS = {"compound", "flat", "nmod", "nummod"}
_SKIP_NOUNS = frozenset(
    "everything something anything nothing everyone someone anyone nobody one thing things stuff lot bit way time "
    "week month year day weekend today yesterday tomorrow morning evening night place job work home all version versions".split()
)
NOT_NAMES = _SKIP_NOUNS | {"no one", "none"}
_PERSON_PREDICATES = frozenset(
    "lives_in works_at works_as studies_at from likes dislikes allergic_to training_for learning speaks plays "
    "member_of reading".split()
)
_CHANGE_VERBS = frozenset("switch migrate move change go transition upgrade".split())
_DROP_VERBS = frozenset("drop ditch remove abandon leave stop".split())
_FUTURE = frozenset("next tomorrow soon later".split())
_PRONOUN_PERSON = frozenset("he she him her".split())
#: Adjectives that describe a thing rather than name it ("the old cron jobs", "a small bakery").
_PLAIN_ADJECTIVES = frozenset(
    "old new former small big large little great good bad whole current previous entire various other same own best "
    "closest close huge nice main few many several some latest last next first second early late whole real".split()
)
_PLACE_NOUNS = frozenset("flat apartment place house home room studio bedsit condo".split())
#: Generic last words after a code name ("the QueueConsumer class") or a product ("Temporal workflows").
_KIND_WORDS = frozenset(
    "class interface protocol trait struct enum type function method component hook boxes box servers instances "
    "workflows jobs dags charts cluster".split()
)
_ADOPT_VERBS = frozenset("adopt introduce install enable roll out add use".split(" ")) | {"roll out"}
_TECH_PREDICATES = frozenset("uses runs_on depends_on implements extends calls".split())
_NAMED_PLACES = frozenset("works_at studies_at lives_in from member_of".split())


class _Names:
    """The names of one sentence: regex spans by character, pronouns by the document so far."""

    def __init__(self, sent: Any, spans: Sequence[Any], state: dict[str, str]) -> None:
        self.sent = sent
        self.base = sent.start_char
        self.spans = spans
        self.state = state
        self.things: set[str] = set()  # names headed by a common noun ("the ingest worker")
        self.kinds: set[str] = set()  # noun phrases that name a kind ("an S3 bucket", "logs"): ends.generic

    def span_at(self, start: int, end: int) -> Any | None:
        for s in self.spans:
            if s.start < end and start < s.end:
                return s
        return None

    def name(self, tok: Any) -> tuple[str, str | None] | None:
        """The name a noun (or pronoun) token stands for, with its type, or None for no name."""
        low = tok.lower_
        if tok.pos_ == "PRON" or low in ("i", "me", "we", "us"):
            if low in ("i", "me", "myself"):
                return USER, "person"
            if low in ("we", "us", "ourselves"):
                return TEAM, "team"
            if low in _PRONOUN_PERSON and self.state.get("person"):
                return self.state["person"], "person"
            if low == "it" and tok.dep_ in ("nsubj", "nsubjpass") and self.state.get("thing"):
                return self.state["thing"], None
            if low in ("it", "there") and self.state.get("place"):
                return self.state["place"], None
            return self.name(tok.head.head) if _ends.relative_who(tok) else None  # "Tomás, who uses Neovim"
        if tok.pos_ in ("VERB", "AUX", "ADP", "PUNCT", "DET", "SCONJ", "CCONJ", "PART", "ADV"):
            if not (tok.pos_ == "VERB" and tok.tag_ in ("VBG",) and tok.dep_ in ("dobj", "pobj", "conj", "xcomp")) \
                    and not _ends.misread(tok, self.span_at(tok.idx - self.base, tok.idx - self.base + len(tok)), self.base):
                return None
        called = [c for c in tok.children if c.dep_ == "acl" and c.lemma_ in ("call", "name")]
        for c in called:
            for n in c.children:
                if n.dep_ in ("oprd", "attr", "dobj", "xcomp", "npadvmod"):
                    return self.name(n)
        # "a small flat in Camden", "a new place in Brooklyn": the place is the name
        if tok.lower_ in _PLACE_NOUNS and (tok.pos_ == "NOUN" or tok.dep_ == "pobj"):  # "a flat" parsed as ADJ too
            for p in _ends.place_preps(tok):  # its own "in X", or the verb's right after it ("moved to a flat in X")
                if p.dep_ == "prep" and p.lower_ in ("in", "near", "on"):
                    for q in p.children:
                        if q.dep_ == "pobj" and q.pos_ == "PROPN":
                            return self.name(q)
        if _ends.never_named(tok):
            return None  # "for three years", "our PRs"
        start, end = self._extent(tok)
        doc = tok.doc
        chars = (doc[start].idx - self.base, doc[end].idx + len(doc[end]) - self.base)
        inside = [s for s in self.spans if s.start < chars[1] and chars[0] < s.end]
        if len(inside) > 1:  # the parse ran two names together ("`a` and b.py"): the head's own
            own = tok.idx - self.base
            span = next((s for s in inside if s.start <= own < s.end), None)
            return (span.name, span.type) if span else None
        span = inside[0] if inside else None
        if span is not None and span.start <= chars[0] + 1 and span.end >= chars[1] - 1:
            return span.name, span.type
        if span is not None and span.type == "identifier" and span.end == chars[1] - len(tok) - 1 \
                and start < tok.i and tok.lower_ in _ends.CODE_KINDS:
            return span.name, span.type  # "the `thumbor` API", "the `MessageHandler` interface": the identifier
        # the phrase from the first kept modifier to the noun (a span that reaches further widens it)
        text = doc[start : end + 1].text
        if span is not None and (span.start < chars[0] or span.end > chars[1]):
            lo, hi = min(span.start, chars[0]), max(span.end, chars[1])
            text = self.sent.text[lo:hi]
        text = re.sub(r"\s*-\s*", "-", text) if "-" in text and " - " in text else text
        text = re.sub(r"['’]s$", "", text).strip(" ,.;:!?\"'“”()")
        head = tok.lower_
        if not text or (start == end and (head in _SKIP_NOUNS or head in COMMON)):
            return None
        if tok.pos_ == "NOUN" and start == end and tok.tag_ == "NNS" and head.endswith("ings"):
            return None
        if start == end and tok.text in GENERIC_ACRONYMS and tok.dep_ in ("nsubj", "nsubjpass") and tok.i > tok.sent.start and not any(
                c.dep_ in ("det", "poss") for c in tok.children):
            return None  # a bare "API" the parse cut from its name ("The payments API runs on…")
        if re.search(r"\s(?:and|or|&)\s", text) and not (span is not None and re.search(r"\s(?:and|or|&)\s", span.name)):
            return None  # "OAuth and API keys": the parse ran two names into one
        if tok.pos_ == "NOUN" and not (span is not None and span.name == text):
            self.things.add(text)
        own = tok.idx - self.base
        if _ends.generic(tok, span is not None and span.start <= own < span.end):
            self.kinds.add(text)
        return text, span.type if span is not None and span.name == text else None

    def _extent(self, tok: Any) -> tuple[int, int]:
        """Token range of the name headed by ``tok``: its compound/flat chain and hyphenated parts."""
        lo = hi = tok.i
        stack = [tok]
        while stack:
            t = stack.pop()
            for c in t.children:
                keep = c.dep_ in _NAME_MODS and not (c.dep_ == "nummod" and c.i < tok.i)
                keep = keep or (c.dep_ == "punct" and c.tag_ == "HYPH") or _ends.hyphen_before(c, t)  # "react-table"
                keep = keep or (c.dep_ == "amod" and (c.tag_ == "NNP" or any(g.tag_ == "HYPH" for g in c.children)
                                                     or "-" in c.text))
                keep = keep or (c.dep_ == "poss" and c.pos_ == "PROPN")
                keep = keep or (c.dep_ == "case" and c.head.dep_ == "poss" and c.head.pos_ == "PROPN")
                keep = keep or (c.dep_ == "amod" and c.i < tok.i and c.text[:1].isupper() and c.i > t.sent.start)
                keep = keep or (c.dep_ == "amod" and c.i < tok.i and re.search(r"[a-z]\d|\d[a-z]", c.lower_) is not None)
                keep = keep or (c.dep_ in ("amod", "compound") and c.i < tok.i and tok.lower_ in V.JOB_WORDS)
                keep = keep or (c.dep_ == "amod" and c.i < tok.i and t.i == tok.i and tok.pos_ == "NOUN"
                                and c.lower_ not in _PLAIN_ADJECTIVES and c.pos_ == "ADJ" and c.i > t.sent.start)
                if c.dep_ == "compound" and c.lower_ in V.RELATIVES and c.pos_ == "NOUN" and tok.text[:1].isupper() \
                        and not tok.text.isupper():
                    keep = False  # "my girlfriend Saga": the relation is not part of her name ("partner API" is one)
                if keep and not (c.dep_ == "poss" and c.lower_ in ("my", "our", "your", "his", "her", "their", "its")):
                    lo, hi = min(lo, c.i), max(hi, c.i)
                    stack.append(c)
        while lo < tok.i and (tok.doc[lo].is_punct or tok.doc[lo].lower_ in _PLAIN_ADJECTIVES):
            lo += 1
        return lo, hi


def _common(word: str) -> bool:
    return word in COMMON or (word.endswith("s") and word[:-1] in COMMON)


def _subjects(verb: Any, names: _Names, seen: int = 0) -> list[tuple[str, str | None]] | None:
    """Subjects of a clause; None when it has one that names nothing ("Nobody uses it")."""
    toks = _children(verb, "nsubj", "nsubjpass")
    if verb.tag_ == "VB" and not toks and verb.i == verb.sent.start and not any(c.dep_ == "aux" for c in verb.children):
        return None  # "Use ruff for linting; black is no longer used": an instruction, whoever the parse hangs it on
    if toks:
        out = []
        for t in toks:
            for c in _conjuncts(t):
                rel = _relative(c)
                named = [a for a in _children(c, "appos") if a.pos_ == "PROPN"] if rel else []
                if rel and not named:
                    owner = USER if any(p.lower_ == "my" for p in c.children) else TEAM
                    out.append((f"{owner}'s {c.text.lower()}", "person"))
                    continue
                n = names.name(named[0] if named else c)
                if n:
                    out.append(n)
        return out or None
    # a diary line without a subject: "Moved back to Lyon last week!"
    first = next((t for t in verb.sent if not (t.is_punct or t.pos_ in ("ADV", "INTJ"))), None)
    if first is not None and first.i == verb.i and verb.tag_ in ("VBD", "VBN") and verb.dep_ in ("ROOT", "advcl", "ccomp", "csubj"):
        return [(USER, "person")]
    if verb.dep_ in ("conj", "xcomp", "advcl") and seen < 3 and verb.head.i != verb.i:
        return _subjects(verb.head, names, seen + 1)
    return None


def _bare(name: tuple[str, str | None], tech: bool) -> tuple[str, str | None]:
    """"QueueConsumer class" -> "QueueConsumer"; as a technology, "Temporal workflows" -> "Temporal"."""
    words = name[0].split()
    if len(words) >= 2 and words[-1].lower() in _KIND_WORDS and (tech or words[-1].lower() in (
            "class", "interface", "protocol", "trait", "struct", "enum", "function", "method")):
        head = words[:-1]
        if all(w[:1].isupper() or any(c.isupper() for c in w) for w in head):
            return " ".join(head), name[1]
    return name


def _fact(out: Extraction, subj: tuple[str, str | None], predicate: str, obj: tuple[str, str | None],
          past: bool = False, replaces: str | None = None, how: str = "") -> None:
    """Append a candidate fact; ``how`` names the reading that found it (``FactDraft.rule``, for accounting)."""
    subj = _bare(subj, False)
    obj = _bare(obj, predicate in _TECH_PREDICATES)
    if predicate != "uses_version":  # "depends on `pydantic` v2": the version is not part of the name
        subj, obj = _ends.unversioned(subj), _ends.unversioned(obj)
    if not obj[0] or subj[0].casefold() == obj[0].casefold():
        return
    if (obj[0].casefold() in DAYS and (predicate in _TECH_PREDICATES or predicate in _NAMED_PLACES)  # a day says when
            or predicate in _PERSON_PREDICATES and subj[1] in ("identifier", "function", "file", "url", "technology")):
        return
    out.facts.append(FactDraft(subj[0], predicate, obj[0], subject_type=subj[1], object_type=obj[1],
                               past=past, replaces=replaces, rule=f"parse:{how}"))


def _key(verb: Any) -> str:
    parts = [verb.lemma_.lower()]
    parts += [c.lower_ for c in verb.children if c.dep_ == "prt"  # "live up in X" is where one lives
              and not (parts[0] == "live" and c.lower_ in ("up", "down", "out", "over"))]
    return " ".join(parts)


_THINGS: set[str] = set()


def _is_person(subj: tuple[str, str | None], things: set[str] = _THINGS) -> bool:
    if subj[1] == "person" or subj[0] in (USER, TEAM):
        return True
    return subj[1] is None and subj[0][:1].isupper() and subj[0] not in things


def _predicate(key: str, subj: tuple[str, str | None], obj_tok: Any | None,
               things: set[str] = _THINGS) -> tuple[str, bool] | None:
    if key in V.BY_SUBJECT:
        person = _is_person(subj, things)
        if key == "join" and obj_tok is not None and obj_tok.lemma_.lower() in V.GROUP_WORDS:
            return "member_of", False
        if key == "go to" and not (obj_tok is not None and _school(obj_tok)):
            return None
        if key == "move to" and obj_tok is not None and _technical(obj_tok) and not (person and _place_name(obj_tok)):
            return "uses", False
        if key == "move to" and not person:
            return None  # "our family moved to Canada": neither a person's home nor a tool, as far as the words say
        if key in ("have", "get") and not (obj_tok is not None and obj_tok.pos_ == "PROPN"):
            return None
        chosen = V.BY_SUBJECT[key][0 if person else 1]
        return (chosen, False) if chosen else None
    if key in ("go to",) and not (obj_tok is not None and _school(obj_tok)):
        return None
    found = V.PHRASES.get(key)
    if found and found[0] == "works_at" and obj_tok is not None:
        if _school(obj_tok) and key in ("start at", "join", "leave", "quit"):
            return "studies_at", found[1]  # "started at Hillside Primary"
        if obj_tok.lemma_.lower() in V.GROUP_WORDS:
            return "member_of", found[1]  # "left the platform team"
    if found and found[0] == "owns" and key in ("buy", "adopt") and obj_tok is not None and obj_tok.pos_ != "PROPN":
        if not any(c.dep_ == "acl" for c in obj_tok.children):
            return None
    return found


def _copula(verb: Any, subjects: list[tuple[str, str | None]], names: _Names, out: Extraction, past: bool) -> None:
    """Clauses on "be": status, is_a / works_as, relatives, favourites, versions, "be allergic to"…"""
    for subj_tok in _children(verb, "nsubj"):
        fav = [c for c in subj_tok.children if c.dep_ == "amod" and c.lower_ in ("favourite", "favorite", "preferred")]
        if fav and any(c.lower_ == "my" for c in subj_tok.children):
            for attr in _children(verb, "attr", "acomp"):
                n = names.name(attr) if attr.pos_ != "ADJ" else (attr.doc[attr.left_edge.i : attr.i + 1].text, None)
                if n:
                    _fact(out, (USER, "person"), f"favorite_{subj_tok.lemma_.lower()}", n, past, how="favorite")
            return
    for c in verb.children:
        if c.dep_ in ("acomp", "attr"):
            word = c.lower_
            phrase = " ".join(w.lower_ for w in c.subtree if not w.is_punct)
            if word in V.STATUSES or phrase in V.STATUSES:
                for s in subjects:
                    _fact(out, s, "status", (phrase if phrase in V.STATUSES else word, "status"), past, how="be-status")
                continue
            rel = _relative(c) or next((_relative(p) for p in c.subtree if p.i != c.i and _relative(p)), None)
            if rel:
                for s in subjects:
                    _fact(out, s, f"{rel[0]}_of", (USER, "person"), past or rel[1], how="be-relative")
                continue
            if word in ("intolerant", "allergic"):
                for mod in c.children:
                    if mod.dep_ in ("amod", "npadvmod", "compound"):
                        for s in subjects:
                            _fact(out, s, "allergic_to", (mod.text, None), past, how="be-allergic")
            for prep in _children(c, "prep"):
                key = f"be {c.lemma_.lower()} {prep.lower_}"
                pred = V.PHRASES.get(key)
                if pred and pred[0] == "likes" and any(n.dep_ == "neg" for n in verb.children):
                    pred, past = ("dislikes", False), False  # "I'm not a fan of jazz"
                if pred:
                    for pobj in _children(prep, "pobj"):
                        for o in _conjuncts(pobj):
                            n = names.name(o)
                            if n:
                                for s in subjects:
                                    _fact(out, s, pred[0], n, past or pred[1], how=f"be-adj-prep:{key}")
            if c.dep_ == "attr" and c.pos_ in ("NOUN", "PROPN") and not any(p.lower_ == "of" for p in _children(c, "prep")):
                n = names.name(c)
                if not n:
                    continue
                last = c.lower_
                if any(w.lower_ in ("version",) for w in c.subtree):
                    continue
                if last in V.IS_A_NOUNS:
                    pred = "is_a"
                elif last in V.JOB_WORDS and all(_is_person(s) for s in subjects) and not any(
                        d.dep_ == "det" and d.lower_ == "the" for d in c.children):  # "the on-call engineer this week": a role
                    pred = "works_as"
                elif c.pos_ == "PROPN" and subjects and any(w.lower_ in ("my", "our") for w in verb.subtree):
                    continue
                elif any(d.dep_ == "det" and d.lower_ in ("a", "an") for d in c.children):
                    pred = "is_a"
                else:
                    continue
                if pred == "is_a" and (verb.tag_ == "VBD" or last in _READ_ELSEWHERE and all(map(_is_person, subjects))):
                    continue  # "the launch was a success": an event; "I'm a Shawn Mendes fan": likes says it (cues)
                for s in subjects:
                    if pred == "is_a" and s[0] == TEAM:
                        continue
                    _fact(out, s, pred, n, past, how=f"be-noun:{pred}")
                for prep in _children(c, "prep"):
                    if prep.lower_ == "at" and pred == "works_as":
                        for pobj in _children(prep, "pobj"):
                            org = names.name(pobj)
                            if org:
                                for s in subjects:
                                    _fact(out, s, "works_at", org, past, how="works-as-at")
    for prep in _children(verb, "prep"):
        key = f"be {prep.lower_}"
        for pobj in _children(prep, "pobj"):
            if pobj.lower_ == "version" or (prep.lower_ in ("on", "at") and re.fullmatch(r"v?\d+(\.\d+)*", pobj.text)):
                value = next((n.text for n in pobj.subtree if re.fullmatch(r"v?\d+(\.\d+)*", n.text)), None)
                if value:
                    for s in subjects:
                        _fact(out, s, "uses_version", (value, "version"), past, how="be-version")
                continue
            if pobj.lower_ == "charge":
                for of in _children(pobj, "prep"):
                    for o in _children(of, "pobj"):
                        n = names.name(o)
                        if n:
                            for s in subjects:
                                _fact(out, s, "owns", n, past, how="in-charge")
                continue
            pred = V.PHRASES.get(key)
            if pred:
                for o in _conjuncts(pobj):
                    n = names.name(o)
                    if n:
                        for s in subjects:
                            _fact(out, s, pred[0], n, past or pred[1], how=f"be-prep:{key}")


def _been_at(verb: Any, subjects: list[tuple[str, str | None]], names: _Names, out: Extraction, past: bool) -> None:
    """"Priya has been at Meta since January": where a person works (or studies) (ends.been_at)."""
    for pobj in _ends.been_at(verb, _when(verb) is not None):
        n = names.name(pobj)
        for s in subjects if n else []:
            if _is_person(s, names.things) and s[0] != TEAM:
                _fact(out, s, "studies_at" if _school(pobj) else "works_at", n, past, how="been-at")


def _clause(verb: Any, names: _Names, out: Extraction, past: bool = False) -> None:
    """The facts of one verb clause; "X instead of Y" / "rather than Y" with "now" (or a change verb)
    retires Y for the same subject and predicate."""
    before = len(out.facts)
    _clause_facts(verb, names, out, past)
    year = _year(verb) if _state_past(verb) else None
    if year is not None:  # "Back in 2023 Jeff lived in Denver": true in 2023, whenever it was said
        for i in range(before, len(out.facts)):
            f = out.facts[i]
            if f.past and f.valid_at is None and not f.replaces:
                out.facts[i] = FactDraft(f.subject, f.predicate, f.object, valid_at=year, subject_type=f.subject_type,
                                         object_type=f.object_type, past=True, rule=f.rule)
    start = _when(verb)
    if start:  # "Two years ago Jeff moved to Denver": a current value starts then (cues.when); a past one keeps its time
        for i in range(before, len(out.facts)):
            f = out.facts[i]
            if f.valid_at is None and f.when is None and not f.past:
                out.facts[i] = replace(f, when=start)
    turns = _turn_predicates(verb)  # "is now deployed on Fly.io", "switched to Zed": the value before is over
    for i in range(before, len(out.facts)):
        f = out.facts[i]
        if f.predicate in turns and not f.past and not f.replaces:
            out.facts[i] = replace(f, turn=True)
    others = _instead(verb, names)
    if not others or len(out.facts) == before:
        return
    changed = any(a.lower_ in _NOW for a in verb.subtree) or verb.lemma_ in _CHANGE_VERBS
    if not changed:
        return  # "we use pnpm instead of npm" says nothing of npm ever being used
    for i in range(before, len(out.facts)):
        f = out.facts[i]
        if not f.past and not f.replaces and f.predicate in V.PREDICATES and f.predicate != "status":
            out.facts[i] = FactDraft(f.subject, f.predicate, f.object, replaces=others[0][0], subject_type=f.subject_type,
                                     object_type=f.object_type, rule=f.rule)


def _clause_facts(verb: Any, names: _Names, out: Extraction, past: bool = False) -> None:
    """The facts of one verb clause."""
    if _is_hedged(verb):
        return
    # "used to X", "stopped using X", "started working at X": the fact is in the complement
    for x in _children(verb, "xcomp"):
        if verb.lemma_ == "use" and any(c.lower_ == "to" for c in x.children):
            _clause(x, names, out, past=True)
            return
        if verb.lemma_ in ("stop", "quit") and x.tag_ == "VBG":
            alt = _in_favour_of(x, names)
            _clause(x, names, out, past=True)
            if alt:
                subjects = _subjects(verb, names) or []
                for s in subjects:
                    for o in _objects(x, names)[1]:
                        _fact(out, s, "uses", alt, replaces=o[0], how="stop-in-favour")
            return
        if verb.lemma_ in ("start", "begin", "keep", "continue"):
            _clause(x, names, out, past=past)
            return
    subjects = _subjects(verb, names)
    if not subjects:
        return
    past = (past or _negated(verb) or _state_past(verb)) and not _disliked(verb)
    cannot = any(c.dep_ == "neg" for c in verb.children) and any(c.lower_ == "ca" for c in verb.children)
    if verb.lemma_ == "be":
        _been_at(verb, subjects, names, out, past)
        _copula(verb, subjects, names, out, past)
        return
    key = "dislike" if _disliked(verb) else _key(verb)
    passive = any(c.dep_ in ("auxpass", "nsubjpass") for c in verb.children)
    if passive and verb.lower_ in V.STATUSES and not _children(verb, "agent") and not any(
            p.lower_ in ("to", "via", "with", "from", "into") for p in _children(verb, "prep")):
        for s in subjects:  # "the build is broken", "the migration is blocked"
            _fact(out, s, "status", (verb.lower_, "status"), past, how="passive-status")
        return
    if cannot and verb.lemma_ in ("eat", "have", "drink"):
        for o in _objects(verb, names)[1]:
            for s in subjects:
                _fact(out, s, "allergic_to", o, how="cannot-eat")
        return
    if cannot and verb.lemma_ == "stand":
        past = False
    if verb.lemma_ in ("eat", "drink") and past:
        if not any(w.lower_ in V.ENDED_WORDS or w.lower_ == "never" for w in verb.subtree):
            return  # "I don't drink alcohol": a habit, not a taste that ended
        for o in _objects(verb, names)[1]:
            for s in subjects:
                _fact(out, s, "likes", o, past=True, how="ate-past")
        return
    if verb.lemma_ == "replace" or (verb.lemma_ in ("swap", "substitute")):
        _replace(verb, subjects, names, out, passive)
        return
    preps = {p.lower_: p for p in _children(verb, "prep")}
    for d in _children(verb, "dobj"):  # "switched the app from A to B": the parse may hang them on the object
        for p in _children(d, "prep"):
            preps.setdefault(p.lower_, p)
    if "from" in preps:
        for p in _children(preps["from"], "prep"):
            preps.setdefault(p.lower_, p)
    if verb.lemma_ in _CHANGE_VERBS and "from" in preps and ("to" in preps or "into" in preps):  # "from A into B"
        old_toks = [o for p in _children(preps["from"], "pobj") for o in _conjuncts(p)]
        olds = [names.name(o) for o in old_toks]
        news = [(names.name(o), o) for p in _children(preps.get("to") or preps["into"], "pobj") for o in _conjuncts(p)]
        for s in subjects:
            for n, tok in news:
                old = next((o for o in olds if o), None)
                if not n or not old:
                    continue
                versions = _ends.version_change((_ends.words(old_toks[olds.index(old)]), old[0]), (_ends.words(tok), n[0]))
                if versions:  # "went from MySQL 5.7 to MySQL 8": a new version of one thing
                    _fact(out, (versions[0], "technology"), "uses_version", (versions[2], "version"),
                          replaces=versions[1], how="change-version")
                if versions or _ends.same_thing(old[0], n[0]):
                    continue
                implicit = not _children(verb, "nsubj", "nsubjpass")
                # "moved from Redis to Valkey": a technology on either side makes it a change of tool
                technical = (_technical(tok) and tok.lower_ not in _PLACE_NOUNS) or any(_technical(o) or _tech_name(names.name(o)) for o in old_toks)
                pred = "lives_in" if verb.lemma_ == "move" and _is_person(s) and not technical else "uses"
                if pred == "uses" and _ends.hosted(n[0]) and _ends.hosted(old[0]):
                    pred = "runs_on"  # "moved from Heroku to Render": where it runs
                target = s
                for d in _children(verb, "dobj"):  # "switched the web app from A to B" (not "the logs")
                    dn = names.name(d)
                    if dn and pred in ("uses", "runs_on") and s[0] in (USER, TEAM) and _ends.system_noun(d):
                        target = dn
                if implicit and target is s and pred != "lives_in":
                    continue  # "Switched the CI from Travis to …": whose tool, the writer's or the team's, is unsaid
                _fact(out, target, pred, n, replaces=old[0], how="change-from-to")
        return
    dropped = verb.lemma_ in _DROP_VERBS and _children(verb, "dobj")
    if dropped and "from" in preps and verb.lemma_ in ("remove", "drop"):
        for t in _children(preps["from"], "pobj"):  # "removed Bootstrap from the landing page"
            holder = names.name(t)
            for o in _objects(verb, names)[1]:
                if holder:
                    _fact(out, holder, "uses", o, past=True, how="remove-from")
        return
    fav, purpose = _ends.favoured(verb) if dropped else (None, None)
    if dropped and ("for" in preps or fav is not None):  # "for the docs in favour of B": the docs change to B
        alt = names.name(fav) if fav is not None else \
            next((names.name(p) for p in _children(preps["for"], "pobj")), None)
        for s in [h for h in [names.name(purpose)] if h] if purpose is not None else subjects:
            for o in _objects(verb, names)[1]:
                pred = "works_at" if verb.lemma_ == "leave" and s[0] == USER else "uses"
                if pred == "uses" and alt and _ends.hosted(alt[0]) and _ends.hosted(o[0]):
                    pred = "runs_on"  # "ditched Heroku for Render"
                if alt:
                    _fact(out, s, pred, alt, replaces=o[0], how="drop-for")
                else:
                    _fact(out, s, pred, o, past=True, how="drop-for")
        return
    if passive and not _children(verb, "agent") and key in _ADOPT_VERBS:
        for s in subjects:  # "Grafana Tempo has been adopted": the team uses it
            _fact(out, (TEAM, "team"), "uses", s, past, how="passive-adopt")
        return
    if passive:
        agents = [names.name(o) for a in _children(verb, "agent") for p in _children(a, "pobj") for o in _conjuncts(p)]
        agents = [a for a in agents if a]
        if agents:
            pred = _predicate(key, agents[0], None, names.things)
            if key == "manage":
                return  # "managed by Confluent": a managed service as often as an owner; when unsure, nothing
            if pred:
                for a in agents:
                    for s in subjects:
                        _fact(out, a, pred[0], s, past or pred[1], how=f"passive-agent:{key}")
                return
    # the direct object (or the activity: "I love hiking")
    objs = [o for o in _children(verb, "dobj") if o.i > verb.i]  # one before its verb is a misreading
    if not objs and V.PHRASES.get(key, ("",))[0] in ("likes", "dislikes", "prefers"):
        objs = [x for x in _children(verb, "xcomp") if x.tag_ == "VBG" and not list(x.children)[:1]] or [
            x for x in _children(verb, "xcomp") if x.tag_ == "VBG" and all(c.dep_ in ("cc", "conj") for c in x.children)]
    if not passive and objs and verb.lemma_ in ("move", "migrate", "port", "switch") and "to" in preps:
        for o in _conjuncts(objs[0]):  # "Ahmed moved the monorepo to Nx": the monorepo uses Nx
            on = names.name(o)
            for t in _children(preps["to"], "pobj"):
                tn = names.name(t)
                if on and tn and o.lower_ not in _PLACE_NOUNS:
                    _fact(out, on, "written_in" if verb.lemma_ == "port" else "uses", tn, past, how="move-obj-to")
                    return
    if not passive and objs:
        for obj_tok in objs:
            if any(t.lower_ == "not" for t in obj_tok.doc[verb.i + 1 : obj_tok.i]):
                continue  # "we use Poetry, not pip-tools"
            if obj_tok.lower_ == "job" and verb.lemma_ in ("quit", "leave", "lose", "start", "get"):
                for p in _children(obj_tok, "prep") + list(preps.values()):
                    if p.lower_ in ("at", "with"):
                        for o in _children(p, "pobj"):
                            n = names.name(o)
                            if n:
                                for s in subjects:
                                    _fact(out, s, "works_at", n, past or verb.lemma_ in ("quit", "leave", "lose"), how="job-at")
                return
            for o in _conjuncts(obj_tok):
                pred = None
                for s in _ends.setup_holders(key, subjects, preps.get("for"), names.name):
                    pred = _predicate(key, s, o, names.things)
                    n = names.name(o)
                    if o.lower_ in _PLACE_NOUNS and "in" in preps:  # "gave up my flat in Camden"
                        n = next((names.name(q) for q in _children(preps["in"], "pobj") if q.pos_ == "PROPN"), n)
                    if pred and n:
                        _fact(out, s, pred[0], n, past or pred[1], how=f"dobj:{key}")
                        if pred[0] == "lives_in":
                            names.state["place"] = n[0]
                # "Tomás wrote the migration tool in Elixir": the object's language
                for p in _children(verb, "prep") + _children(o, "prep"):
                    pkey = f"{verb.lemma_.lower()} {p.lower_}"
                    if pkey in V.PHRASES and V.PHRASES[pkey][0] in ("written_in", "runs_on"):
                        on = names.name(o)
                        for po in _children(p, "pobj"):
                            pn = names.name(po)
                            if on and pn:
                                _fact(out, on, V.PHRASES[pkey][0], pn, past, how=f"obj-prep:{pkey}")
    # objects of prepositions ("moved back to X": the preposition may hang on the adverb)
    adverbial = [(f"{key} {a.lower_}", p) for a in _children(verb, "advmod") for p in _children(a, "prep")]
    chained = [(f"{key} {p.lower_} {q.lower_}", q) for p in _children(verb, "prep") if not _children(p, "pobj")
               for q in _children(p, "prep")]  # "moved out of X"
    datives = [d for d in _children(verb, "dative") if d.pos_ == "ADP"]  # "have worked for IBM for three years"
    for pkey, prep in [(f"{key} {p.lower_}", p) for p in _children(verb, "prep") + datives] + chained + [
            (k if f"{k} {p.lower_}" in V.PHRASES else key, p) for k, p in adverbial]:
        if not pkey.endswith(f" {prep.lower_}"):
            pkey = f"{pkey} {prep.lower_}"
        for pobj in _children(prep, "pobj"):
            for o in _conjuncts(pobj):
                for s in subjects:
                    pred = _predicate(pkey, s, o, names.things)
                    n = names.name(o)
                    if not pred or not n:
                        continue
                    if pred[0] == "written_in" and objs and not passive:
                        continue
                    if o is not pobj and pobj.pos_ == "PROPN" and o.pos_ != "PROPN" and pred[0] in _NAMED_PLACES:
                        continue  # "I teach at Beijing Normal University, English composition and …": what, not where
                    if objs and not passive and _negated(verb) and not pred[1]:
                        continue  # "we don't store PII in Redis anymore": the negation is about PII, not Redis
                    _fact(out, s, pred[0], n, past or pred[1], how=f"prep:{pkey}")
                    if pred[0] == "lives_in":
                        names.state["place"] = n[0]
                        # "I live in Malmö with my girlfriend Saga": she lives there too
                        for w in _children(verb, "prep"):
                            if w.lower_ == "with":
                                for comp in _children(w, "pobj"):
                                    cn = names.name(comp)
                                    if cn and comp.text[:1].isupper() and cn[0] not in (USER, TEAM):
                                        _fact(out, cn, "lives_in", n, past, how="lives-with")
    if verb.lemma_ == "work":  # "works as a paramedic in Cork", "works for the Red Cross in Geneva"
        inner = [q for p in _children(verb, "prep") for o in _children(p, "pobj") for q in _children(o, "prep")]
        for p in _children(verb, "prep") + inner:
            if p.lower_ == "in":
                for o in _children(p, "pobj"):
                    place = names.name(o) if o.pos_ == "PROPN" else None
                    for s in subjects:
                        if place and _is_person(s, names.things) and s[0] != TEAM:
                            _fact(out, s, "lives_in", place, past, how="work-in")


def _objects(verb: Any, names: _Names) -> tuple[list[Any], list[tuple[str, str | None]]]:
    toks = [o for d in _children(verb, "dobj") for o in _conjuncts(d)]
    found = [names.name(t) for t in toks]
    return toks, [f for f in found if f]


def _in_favour_of(verb: Any, names: _Names) -> tuple[str, str | None] | None:
    return names.name(o) if (o := _ends.favoured(verb)[0]) is not None else None


def _replace(verb: Any, subjects: list[tuple[str, str | None]], names: _Names, out: Extraction, passive: bool) -> None:
    """"A replaced B (in X)", "we replaced B with A", "B was replaced by A (in X)"."""
    where = None
    agent_objects = [q for a in _children(verb, "agent") for q in _children(a, "pobj")]
    with_objects = [q for w in _children(verb, "prep") if w.lower_ in _ends.new_marks(verb) for q in _children(w, "pobj")]
    for p in _children(verb, "prep") + [p for q in agent_objects + with_objects for p in _children(q, "prep")]:
        if p.lower_ in ("in", "on", "for", "across") and p.lower_ not in _ends.new_marks(verb):
            for o in _children(p, "pobj"):
                if o.pos_ == "PROPN" or any(c.lower_ in ("the", "our", "my") for c in o.children):
                    where = names.name(o)  # "across the dashboard", not "for formatting"
    if passive:
        new = [names.name(o) for a in _children(verb, "agent") for p in _children(a, "pobj") for o in _conjuncts(p)]
        old = subjects
        owner = where or (TEAM, "team")
    else:
        with_ = [p for p in _children(verb, "prep") if p.lower_ in _ends.new_marks(verb)]  # "swapped A for B"
        if with_:
            new = [names.name(o) for p in with_ for q in _children(p, "pobj") for o in _conjuncts(q)]
            old = _objects(verb, names)[1]
            owner = where or subjects[0]  # "we replaced Moment with Luxon across the dashboard"
        else:
            new = subjects
            old = _objects(verb, names)[1]
            owner = where or (TEAM, "team")
    for n in new:
        if not n:
            continue
        for o in old:
            _fact(out, owner, "uses", n, replaces=o[0], how="replace")
        if not old:
            _fact(out, owner, "uses", n, how="replace")


def _relatives(sent: Any, names: _Names, out: Extraction) -> None:
    """ "my sister Noor", "Gustavo, my college roommate,": Noor sister_of User."""
    for tok in sent:
        rel = _relative(tok)
        if not rel:
            continue
        person = None
        for c in tok.children:
            if c.dep_ == "appos" and c.pos_ in ("PROPN", "NOUN") and c.text[:1].isupper():
                person = c
        if person is None and tok.dep_ in ("compound", "appos") and tok.head.pos_ in ("PROPN", "NOUN") \
                and tok.head.text[:1].isupper():
            person = tok.head
        if person is None:
            continue
        n = names.name(person)
        if n and n[0] not in (USER, TEAM):
            _fact(out, (n[0], "person"), f"{rel[0]}_of", (USER, "person"), past=rel[1], how="relative")
        # "My boss is Dana Whitfield": the name after "is"
    for tok in sent:
        if tok.lemma_ == "be" and tok.dep_ == "ROOT":
            for s in _children(tok, "nsubj"):
                rel = _relative(s)
                if rel and not _children(s, "appos"):
                    for a in _children(tok, "attr"):
                        n = names.name(a)
                        if n and a.pos_ == "PROPN":
                            _fact(out, (n[0], "person"), f"{rel[0]}_of", (USER, "person"), past=rel[1], how="relative")


def read(doc: Any, spans_of: Any, dropped: set[str] | None = None, context: dict[str, str] | None = None) -> Extraction:
    """The facts of a parsed text; ``spans_of(sentence)`` gives the regex name spans of a sentence.
    ``dropped`` collects (casefolded) the span names the parse read as modifiers of a longer name.
    ``context`` carries the people named from one memory to the next of the same scope (read and updated):
    "she" in a memory that names nobody before it is the last person the scope named."""
    out = Extraction()
    fix_lemmas(doc)
    state: dict[str, str] = carried(context)
    for sent in doc.sents:
        spans = spans_of(sent.text)
        names = _Names(sent, spans, state)
        for span in spans:
            if _ends.modifier_span(sent, span.start, span.end):
                if dropped is not None:
                    dropped.add(span.name.casefold())  # "the GraphQL gateway": not GraphQL on its own
                continue
            out.entities.append(EntityDraft(span.name, span.type, rule=f"parse:span:{span.type}:{span.rank}"))
        for tok in sent:  # proper nouns the rules missed ("Marek" at the start, "Björn")
            if tok.pos_ == "PROPN" and tok.dep_ in _ARG_DEPS and tok.text[:1].isupper() and not _common(tok.lower_) \
                    and tok.text not in GENERIC_ACRONYMS:
                n = names.name(tok)
                if n and n[0] not in (USER, TEAM) and n[0].lower() not in COMMON:
                    out.entities.append(EntityDraft(n[0], n[1], rule="parse:propn"))
        before = len(out.facts)
        _registers.read_line(sent, out)  # "Bump temporalio to 1.17.0": a change made, not an order
        if _question_or_order(sent):
            continue
        _relatives(sent, names, out)
        note_person(out.facts[before:], state)
        for verb in _verbs(sent):
            at = len(out.facts)
            _clause(verb, names, out)
            note_person(out.facts[at:], state)  # "Amira is my sister; she is a civil engineer": she is Amira
        _registers.read(sent, names, out, before)  # glossary lines, "has support for", environment lines
        _attributes.read(sent, names, out)  # "Harbor's primary database is MySQL 5.7": has_primary_database
        out.facts[before:] = [f for f in out.facts[before:]
                              if _ends.allowed(f.predicate, f.subject, f.object, names.kinds) and not _registers.holderless(f.subject)]
        for f in out.facts[before:]:
            if f.subject_type == "person" or (f.predicate.endswith("_of") and f.subject not in (USER, TEAM)):
                if f.subject not in (USER, TEAM) and not f.subject.startswith((USER + "'s", TEAM + "'s")):
                    state["person"] = f.subject
        for tok in sent:
            if tok.pos_ == "PROPN" and tok.dep_ in ("nsubj", "appos") and not state.get("person_locked"):
                n = names.name(tok)
                if n and n[1] in (None, "person") and n[0] not in (USER, TEAM) and any(
                    f.subject == n[0] for f in out.facts[before:]
                ):
                    state["person"] = n[0]
    carry(out, state, context)
    return out
