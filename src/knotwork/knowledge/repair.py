"""Two misreadings of the small English pipeline, mended before the clause readings run.

The parse of a short statement about a part of a system often loses its subject: in "The GraphQL gateway runs on
Cloud Run" the tagger reads "gateway" as a compound of the verb "runs" (no ``nsubj``), and in "The checkout service
talks to Adyen" or "The auth service no longer talks to LDAP" it reads "talks" as a plural noun. The clause
readings of :mod:`knotwork.knowledge.parse` then find no clause with a subject, and the fact is missed
(``bench/extraction_causes.py``: no candidate). Both are mended here, on the parse itself, so every reading and
the fact scorer's features see one parse:

- a present or past verb with no subject, whose child just before it is a noun read as its ``compound``: that noun
  is its subject;
- a plural noun whose lemma is a verb of the vocabulary with a preposition after it ("talk to", "run on", "depend
  on": :data:`~knotwork.knowledge.vocabulary.PHRASES`), at the root or under a clause, with a subject of its own,
  or with the noun just before it read as its compound and a determiner before that: a present-tense verb.

Nothing else changes; a sentence the parse read well has neither shape.
"""

from __future__ import annotations

from typing import Any

from knotwork.knowledge import vocabulary as V

_SUBJECTS = ("nsubj", "nsubjpass", "expl", "csubj")


def _prep_phrase(tok: Any) -> bool:
    return any(c.dep_ == "prep" and f"{tok.lemma_.lower()} {c.lower_}" in V.PHRASES for c in tok.children)


def _compound_before(tok: Any) -> Any | None:
    before = [c for c in tok.children if c.dep_ == "compound" and c.i == tok.i - 1 and c.pos_ in ("NOUN", "PROPN")]
    return before[0] if before else None


def mend(doc: Any) -> None:
    """Mend the two misreadings (in place)."""
    for tok in doc:
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
