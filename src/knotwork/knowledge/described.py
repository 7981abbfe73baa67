"""What a description of a thing says it is written in or built with: "Biome is a Rust-based monorepo", "the
ingest worker, a small Rust binary, …", "uv is a … package manager written in Rust".

The clause readings of :mod:`knotwork.knowledge.parse` read a verb clause of the thing itself ("X is written in
Rust"). Documentation and design notes say it in the noun phrase that describes the thing instead, as the
attribute of "is" or as an apposition; ``bench/extraction_causes.py`` counted these among the dev halves'
misses (``written_in`` with no candidate). Three shapes of that noun phrase N, each giving ``X written_in L``
(or the phrase's predicate) for the thing X it describes:

- "L-based N", "L 3 based N": a programming language before "based" (``parse:described:based``); what X is,
  then, is N without it ("Biome is a Rust-based monorepo": is_a monorepo);
- "a small L binary", "X is a Python script": a language as the modifier of a head that names a piece of
  software (``PARTS``: script, binary, service, app, library, …; not "a Python linter", "a Rust parser", which
  say what it works on) (``parse:described:kind``). The ``is_a`` reading of the same words ("X is_a Python
  script") is dropped: it names no kind a reader asks for, and the labelled sets state none for these
  phrases (memory2's "The nightly export job is a Python script" gives written_in alone);
- "N written in L", "N built with T": a participle under N whose phrase the vocabulary knows
  (``parse:described:<phrase>``).

X is the subject of "is" when N is its attribute (a present or past "is", not negated, hedged or asked), or the
name N stands in apposition to. Only a language from ``LANGUAGES`` (:func:`language`: the one test of a token,
which :mod:`knotwork.knowledge.shapes` uses too) ends a ``written_in`` fact.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from knotwork.knowledge import cues as C
from knotwork.knowledge import vocabulary as V
from knotwork.knowledge.models import Extraction, FactDraft

#: Programming languages, by their lower-case name ("go" only when written "Go": see :func:`language`).
LANGUAGES = frozenset(
    """rust python go golang typescript javascript java kotlin swift ruby php elixir erlang haskell scala clojure zig
    ocaml dart lua julia perl nim crystal c++ c# f# cython bash""".split()
)
#: Heads of "a <language> <head>" that name a piece of software: "a Rust binary", "a Python script" is written in
#: that language ("a Python linter", "a Rust parser" say what it works on and are not here).
PARTS = frozenset(
    "script binary executable service microservice app application library lib module tool cli daemon worker job "
    "program server client backend frontend lambda function codebase project monolith monorepo sdk rewrite "
    "port".split()
)


def language(tok: Any) -> str | None:
    """The language a token names (from :data:`LANGUAGES`, written with a capital or parsed as a proper noun), or
    None."""
    if tok.lower_ not in LANGUAGES or tok.pos_ != "PROPN" and not tok.text[:1].isupper():
        return None
    return tok.text


def _described(noun: Any, names: Any) -> tuple[str, str | None] | None:
    """The thing a noun phrase describes: the subject of "is" whose attribute it is, or the name it is an
    apposition of."""
    head = noun.head
    if noun.dep_ == "appos" and head.pos_ in ("PROPN", "NOUN"):
        return names.name(head)
    if noun.dep_ == "attr" and head.lemma_ == "be" and not C.negated(head) and not C.is_hedged(head) \
            and not C.question_or_order(head.sent):
        subj = [c for c in head.children if c.dep_ == "nsubj"]
        if len(subj) == 1 and subj[0].lower_ not in ("it", "this", "that", "they"):
            return names.name(subj[0])
    return None


def _fact(out: Extraction, thing: tuple[str, str | None] | None, predicate: str, obj: tuple[str, str | None],
          how: str) -> None:
    if thing and thing[0] not in ("User", "Team") and thing[0].casefold() != obj[0].casefold() \
            and thing[1] != "person":
        out.facts.append(FactDraft(thing[0], predicate, obj[0], subject_type=thing[1], object_type=obj[1],
                                   rule=f"parse:described:{how}"))


def read(sent: Any, names: Any, out: Extraction) -> None:
    """The facts of one parsed sentence that a description of a thing states (appended to ``out``)."""
    for tok in sent:
        if tok.lower_ == "based" and tok.dep_ == "amod" and tok.head.pos_ == "NOUN":
            before = [t for t in sent.doc[sent.start : tok.i] if not (t.is_punct or t.like_num)][-1:]
            lang = language(before[0]) if before else None
            thing = _described(tok.head, names) if lang else None
            if lang and thing:
                _fact(out, thing, "written_in", (lang, "technology"), "based")
                # the kind is what is left: "Biome is a Rust-based monorepo" is_a monorepo (the language is said)
                for i, f in enumerate(out.facts):
                    if f.subject == thing[0] and f.predicate == "is_a" and " " in f.object \
                            and re.match(r"(?i)\S+(?:\s+\d[\d.]*)?[\s-]based\s", f.object):
                        out.facts[i] = replace(f, object=re.sub(r"(?i)^\S+(?:\s+\d[\d.]*)?[\s-]based\s+", "", f.object))
        elif tok.dep_ in ("compound", "amod", "nmod") and tok.head.lemma_.lower() in PARTS and tok.i < tok.head.i \
                and tok.head.pos_ == "NOUN":
            _kind(tok, names, out)
        elif tok.dep_ == "acl" and tok.tag_ == "VBN" and tok.head.pos_ == "NOUN" and tok.head.dep_ in ("attr", "appos"):
            for p in tok.children:
                if p.dep_ != "prep":
                    continue
                key = f"{tok.lemma_.lower()} {p.lower_}"
                found = V.PHRASES.get(key)
                if not found or found[1] or found[0] not in ("written_in", "uses", "runs_on"):
                    continue
                for o in (q for q in p.children if q.dep_ == "pobj"):
                    n = names.name(o)
                    if n and (found[0] != "written_in" or language(o)):
                        _fact(out, _described(tok.head, names), found[0], n, key)


def _kind(tok: Any, names: Any, out: Extraction) -> None:
    """"X is a Python script", "X, a small Rust binary,": ``tok`` modifies a head from :data:`PARTS`."""
    head = tok.head
    lang = language(tok)
    if not lang:
        return
    # no test of a "for"/"of" after the head: "a Rust library for Python bindings", "a Go rewrite of the proxy"
    # are written in that language too
    if any(c.dep_ in ("conj", "cc") for c in head.children) or any(
            w.lemma_ in ("write", "implement", "build") for w in head.subtree):
        return  # "a Python package and project manager written in Rust": the language is said elsewhere
    if any(c.dep_ == "conj" for c in tok.children) or sum(
            1 for m in head.children if m.dep_ in ("compound", "amod", "nmod") and m.i < head.i and language(m)) != 1:
        return  # "a Python and Rust library": which part is in which is not said
    thing = _described(head, names)
    if not thing or thing[0] in ("User", "Team"):
        return
    n = len(out.facts)
    _fact(out, thing, "written_in", (lang, "technology"), "kind")
    if len(out.facts) > n:
        # the is_a reading of the same words names no kind a reader asks for: this one replaces it
        out.facts[:] = [f for f in out.facts if not (f.subject == thing[0] and f.predicate == "is_a"
                                                     and lang.lower() in f.object.lower().split())]
