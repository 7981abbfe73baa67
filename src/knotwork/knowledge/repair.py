"""Four misreadings of the small English pipeline, mended before the clause readings run.

The parse of a short statement about a part of a system often loses its subject: in "The GraphQL gateway runs on
Cloud Run" the tagger reads "gateway" as a compound of the verb "runs" (no ``nsubj``), and in "The checkout service
talks to Adyen" or "The auth service no longer talks to LDAP" it reads "talks" as a plural noun. The clause
readings of :mod:`knotwork.knowledge.parse` then find no clause with a subject, and the fact is missed
(``bench/extraction_causes.py``: no candidate); and in a change "from A to B" it may read "to" as the mark of an
infinitive; and a lower-case dotted name that starts a sentence ("wicked.haufe.io uses go.cd as its CI tool") is
read as an auxiliary of the verb after it. All four are mended here, on the parse itself, so every reading and the
fact scorer's features see one parse:

- a present or past verb with no subject, whose child just before it is a noun read as its ``compound``: that noun
  is its subject;
- a plural noun whose lemma is a verb of the vocabulary with a preposition after it ("talk to", "run on", "depend
  on": :data:`~knotwork.knowledge.vocabulary.PHRASES`), at the root or under a clause, with a subject of its own,
  or with the noun just before it read as its compound and a determiner before that: a present-tense verb;
- in a change "from A to B" ("We switched the mobile app from Expo to bare React Native", "The mobile backend was
  moved from Heroku to Render"), a "to" the parser read as the mark of an infinitive ("to render", "to bare"),
  with a capitalised name after it: the preposition of the new value, its object that name;
- a lower-case dotted name ("wicked.haufe.io", "django.contrib") read as an auxiliary of the subjectless verb
  after it: its subject (no auxiliary of English has a dot in it).

Nothing else changes; a sentence the parse read well has none of these shapes.
"""

from __future__ import annotations

import re
from typing import Any

from knotwork.knowledge import vocabulary as V

_SUBJECTS = ("nsubj", "nsubjpass", "expl", "csubj")


def _prep_phrase(tok: Any) -> bool:
    return any(c.dep_ == "prep" and f"{tok.lemma_.lower()} {c.lower_}" in V.PHRASES for c in tok.children)


def _compound_before(tok: Any) -> Any | None:
    before = [c for c in tok.children if c.dep_ == "compound" and c.i == tok.i - 1 and c.pos_ in ("NOUN", "PROPN")]
    return before[0] if before else None


_CHANGE_VERBS = frozenset("switch migrate move change go transition upgrade".split())


def _from_to(to: Any) -> None:
    """"… from Heroku to Render" read as "from Heroku, to render": mend the "to" into a preposition."""
    head = to.head
    if to.tag_ != "TO" or to.dep_ != "aux" or head.i != to.i + 1 or head.dep_ not in ("advcl", "xcomp"):
        return
    verb = head.head
    if verb.lemma_.lower() not in _CHANGE_VERBS or verb.pos_ != "VERB":
        return
    froms = [p for t in [verb, *(c for c in verb.children if c.dep_ == "dobj")] for p in t.children
             if p.dep_ == "prep" and p.lower_ == "from" and p.i < to.i
             and any(q.dep_ == "pobj" and q.pos_ == "PROPN" for q in p.children)]
    if not froms:
        return
    if head.text[:1].isupper() and all(c.i == to.i for c in head.children):  # "to Render": the verb is the name
        new = head
        new.pos_, new.tag_ = "PROPN", "NNP"
    else:  # "to bare React Native": the name is the object under the misread word
        objs = [c for c in head.children if c.dep_ == "dobj" and c.pos_ == "PROPN"]
        if head.pos_ != "ADJ" or len(objs) != 1 or len(list(head.children)) != 2:
            return
        new = objs[0]
        head.head, head.dep_ = new, "amod"
    to.pos_, to.tag_, to.dep_ = "ADP", "IN", "prep"
    to.head = verb
    new.head, new.dep_ = to, "pobj"


_DOTTED = re.compile(r"[a-z][\w-]*(?:\.[\w-]+)+")


def _dotted_subject(tok: Any) -> None:
    """"wicked.haufe.io uses go.cd" read as an auxiliary "wicked.haufe.io" of "uses": mend it into the subject."""
    verb = tok.head
    if tok.dep_ not in ("aux", "auxpass") or not _DOTTED.fullmatch(tok.text) or verb.i <= tok.i or verb.pos_ != "VERB":
        return
    if any(c.dep_ in _SUBJECTS for c in verb.children):
        return
    tok.pos_, tok.tag_, tok.dep_ = "PROPN", "NNP", "nsubj"
    if verb.tag_ == "VBN":  # "wicked.haufe.io moved from go.cd": with its auxiliary gone, the verb is a past tense
        verb.tag_ = "VBD"


def mend(doc: Any) -> None:
    """Mend the misreadings (in place)."""
    for tok in doc:
        if tok.pos_ == "AUX" and "." in tok.text:
            _dotted_subject(tok)
        if tok.lower_ == "to":
            _from_to(tok)
        if tok.pos_ == "NOUN" and tok.tag_ == "NNS" and tok.dep_ in ("ROOT", "ccomp", "conj") and _prep_phrase(tok):
            subject = any(c.dep_ == "nsubj" for c in tok.children)
            compound = _compound_before(tok)
            det_first = any(c.dep_ == "det" and c.i < tok.i - 1 for c in tok.children)
            if subject or (compound is not None and det_first):
                tok.pos_, tok.tag_ = "VERB", "VBZ"
        if tok.pos_ == "VERB" and tok.tag_ in ("VBZ", "VBP", "VBD") and not any(c.dep_ in _SUBJECTS for c in tok.children):
            compound = _compound_before(tok)
            if compound is not None and compound.pos_ == "NOUN" or compound is not None and any(
                    c.dep_ == "det" for c in tok.children):
                compound.dep_ = "nsubj"
