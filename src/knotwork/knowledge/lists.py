"""A list after a fact's object: one predicate, every member ("imports stripe and decimal").

The clause readings of :mod:`knotwork.knowledge.parse` distribute a predicate over the members of a
coordination when the parse links them (``conj``). The small English pipeline often does not: it hangs
"decimal" in "imports stripe and decimal" nowhere useful, reads "Vitest" in "We use Playwright for
end-to-end tests and Vitest for unit tests" as a second object of "for", and the regular-expression rules
list only members their name rules found. ``bench/extraction_causes.py`` counted these misses on the dev
halves (a candidate of the same predicate shares one end with the missed fact: "sibling").

This reading works on the surface, after every other reading: for each candidate whose object is followed
in its sentence by a list tail, ", B", " and B", ", and C", " or D", it proposes the same subject, predicate
and status with each member. Two shapes:

- a plain list: ``<object>(, | and | or )<member>…``, where the list ends the clause: the next word after
  the last member is punctuation, the end of the sentence, or a preposition or conjunction that starts no
  clause of its own ("Postgres and Redis is our cache" has a verb after the member: no list);
- a parallel list: ``<object> for <purpose> and <member> for <purpose>`` (the same preposition after the
  member): "uses Keycloak for login and Redis for sessions".

A member is a name the extraction's name rules found there, or one lower-case word when the object is one
too ("stripe and decimal", "shellfish and peanuts"); never a pronoun, a number or a common word. Only
predicates that hold many values at once (``vocabulary.PREDICATES``) are distributed, and never a change
(a fact that ``replaces`` another). Each proposed fact carries the rule ``<source>:list:<rule>``, so the
fact scorer weighs it on its own, and the kinds check (``vocabulary.fit``) applies as to every candidate.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from knotwork.knowledge import vocabulary as V
from knotwork.knowledge.lexicon import COMMON
from knotwork.knowledge.models import Extraction, FactDraft
from knotwork.knowledge.sentences import sentences

_SEP = re.compile(r"\s*,\s*(?:(?:and|or)\s+)?|\s+(?:and|or|&)\s+|\s*/\s*")
_WORD = re.compile(r"[a-z][a-z0-9+#-]*[a-z0-9+#]|[a-z]")
#: Words that may follow a list's last member: prepositions and conjunctions that open no clause.
_AFTER = frozenset("for in to as with on at from via into by but so because which that while when since "
                   "across under over without within through".split())
_PARALLEL = ("for", "as")
_NOT_MEMBERS = frozenset(
    "i me you he she it we they them us him her this that these those there here what which who other others "
    "more less many much some any all both each every one two three etc also then so not more".split()
)


def _multi_valued(predicate: str) -> bool:
    if predicate.startswith(("favorite_", "has_")) or predicate == "status":
        return False
    return not V.PREDICATES.get(predicate, True) or predicate.endswith("_of")


def _member(sentence: str, at: int, spans: Sequence[Any], word_ok: bool) -> tuple[str, str | None, int] | None:
    """The member starting at ``at``: a name span (its name, type, end) or one lower-case word."""
    for s in spans:
        if s.start == at:
            return s.name, s.type, s.end
    if not word_ok:
        return None
    m = _WORD.match(sentence, at)
    if not m or m.group().lower() in _NOT_MEMBERS or m.group().lower() in COMMON or m.group() in V.STATUSES:
        return None
    if re.search(r"(?:ing|ed)$", m.group()):
        return None  # "…, meaning that …", "… and added …": a verb opens a clause, not a member
    if any(s.start < m.end() and m.start() < s.end for s in spans):
        return None  # the word is part of a name the rules found elsewhere
    return m.group(), None, m.end()


def _ends_clause(sentence: str, at: int) -> bool:
    kind = re.match(r"\s+[a-z]+s\b(?=\s*(?:[.,;:)!?]|$))", sentence[at:])
    if kind:  # "`content`, `files`, `data`, or `json` arguments.": a plural kind noun closes the list
        at += kind.end()
    rest = sentence[at:].lstrip()
    if not rest or rest[0] in ".,;:)!?]\"'”`":
        return True
    word = re.match(r"[A-Za-z]+", rest)
    return bool(word) and word.group().lower() in _AFTER


def _tail(sentence: str, end: int, spans: Sequence[Any], word_ok: bool) -> list[tuple[str, str | None]]:
    """The members listed after an object ending at ``end`` (empty when no list, or when it runs on into a
    clause of its own)."""
    members: list[tuple[str, str | None]] = []
    at = end
    purpose = re.match(r"\s+(for|as)\s+[^,;.()]{1,40}?(?=\s*(?:,\s*)?(?:and|or)\s)", sentence[at:])
    if purpose:  # "uses Keycloak for login and Redis for sessions"
        sep = _SEP.match(sentence, at + purpose.end())
        if sep:
            m = _member(sentence, sep.end(), spans, word_ok)
            if m and re.match(rf"\s+{purpose.group(1)}\s", sentence[m[2]:]):
                return [(m[0], m[1])]
        return []
    joined = False  # "X, Y" alone is an apposition as often as a list ("Redis, the cache"): a list says and/or
    while True:
        sep = _SEP.match(sentence, at)
        if not sep or sep.end() == at:
            break
        m = _member(sentence, sep.end(), spans, word_ok)
        if m is None:
            break
        members.append((m[0], m[1]))
        joined = joined or bool(re.search(r"\b(?:and|or)\b|&|/", sep.group()))
        at = m[2]
    if not members or not (joined or len(members) >= 2):
        return []
    return members if _ends_clause(sentence, at) else []


def _object_end(sentence: str, obj: str, spans: Sequence[Any]) -> tuple[int, bool] | None:
    """Where the object ends in the sentence, and whether it is one lower-case word (so may a member be)."""
    for s in spans:
        if s.name.casefold() == obj.casefold():  # "stripe" read as the known name "Stripe": still one word
            return s.end, bool(_WORD.fullmatch(sentence[s.start:s.end]))
    m = re.search(rf"(?<![\w-]){re.escape(obj)}(?![\w-])", sentence, re.IGNORECASE)
    if not m:
        return None
    return m.end(), bool(_WORD.fullmatch(m.group()))


def distribute(ex: Extraction, text: str, spans_of: Callable[[str], Sequence[Any]]) -> Extraction:
    """``ex`` with a fact for each member of a list after a candidate's object (see the module's docstring)."""
    chosen = [f for f in ex.facts if _multi_valued(f.predicate) and not f.replaces and f.rule
              and ":list:" not in f.rule and "`" not in f.subject + f.object]  # a name cut inside code: misread
    if not chosen:
        return ex
    have = {(f.subject.casefold(), f.predicate, f.object.casefold()) for f in ex.facts}
    added: list[FactDraft] = []
    objects = [f.object.casefold() for f in chosen]
    for sentence in sentences(text):
        spans = None
        folded = sentence.casefold()  # once a sentence, not once a candidate
        for f, obj in zip(chosen, objects):
            if obj not in folded and spans is None:
                continue
            spans = spans_of(sentence) if spans is None else spans
            where = _object_end(sentence, f.object, spans)
            if where is None:
                continue
            for name, type_ in _tail(sentence, where[0], spans, where[1]):
                key = (f.subject.casefold(), f.predicate, name.casefold())
                if key in have or name.casefold() == f.subject.casefold():
                    continue
                have.add(key)
                source, _, rest = f.rule.partition(":")
                added.append(replace(f, object=name, object_type=type_, rule=f"{source}:list:{rest}", when=f.when))
    ex.facts += added
    return ex
