"""Readings of shapes that memories written by people take and that a verb clause does not read.

A fresh set of memory-style sentences (``bench/data/extraction_memory2.txt``, dev half) showed these
stated often and missed or misread:

- "Our cat Biscuit is 14", "my dog Pepper hates the vet": the writer (or Team, for "our") owns the pet
  named, as "we adopted a cat called Miso" does; "my late dog Rex" is a pet that was;
- "The nightly export job is a Python script", "the CLI is a small Go binary": the thing is written in the
  language that modifies a word for a software part (not ``is_a`` "Python script", which names no kind a
  reader asks for); "a LightGBM model" is a named technology in use, not a language, and is left to
  the clause readings;
- "The checkout redesign shipped on Tuesday", "the 2.0 release launched": a finished status said with an
  active verb and no object (a status the passive "is shipped" already gives);
- "Javier - my old flatmate - now works in Madrid", "Ines, my friend from uni, has moved to Lisbon": the
  parse often makes the relative the subject and leaves the name aside; the facts said of "User's
  flatmate" are Javier's, and Javier is (or was, "old") the writer's flatmate;
- "Kasia and I have been friends since school", "Tom and I were flatmates": the person is (was) the
  writer's friend, flatmate;
- "Mum's birthday is 3 May", "Dad retired from the railways": a parent written as a name is the writer's
  ("User's mum"), as "my mum" is (:func:`kin_names`, applied to every candidate of a text).

Each reading checks the clause as the others do: no negation, hedge, plan or question. The facts are
candidates like any other; the fact scorer decides what is stored, by the rule each carries
(``parse:pet``, ``parse:written-as``, ``parse:active-status``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from knotwork.knowledge import cues as C
from knotwork.knowledge import vocabulary as V
from knotwork.knowledge.models import Extraction, FactDraft

USER = "User"
TEAM = "Team"

PETS = frozenset("dog cat puppy kitten rabbit hamster parrot budgie tortoise horse pony ferret gecko".split())
#: Words before a pet that say it is no longer alive or kept.
_GONE = frozenset("late old former".split())
LANGUAGES = frozenset(
    "python javascript typescript java kotlin scala ruby php perl haskell elixir erlang clojure rust go golang "
    "c++ c# swift lua dart julia ocaml zig nim crystal bash".split()
)
#: Heads of "a <language> <head>" that name a piece of software.
PARTS = frozenset(
    "script binary service app application library lib module tool cli daemon worker job program "
    "server client backend frontend microservice lambda function codebase project monolith sdk".split()
)
#: Verbs whose simple past with no object says a piece of work reached that status.
ACTIVE_STATUSES = {"ship": "shipped", "launch": "launched", "merge": "merged"}


def read(sent: Any, names: Any, out: Extraction, before: int = 0) -> None:
    """The facts of one parsed sentence that these readings find (appended to ``out``); ``before`` is where
    the sentence's facts start in ``out.facts``."""
    _aside_relatives(sent, names, out, before)
    _we_two(sent, names, out)
    _pets(sent, names, out)
    _written_as(sent, names, out)
    _active_status(sent, names, out)


def _clause_ok(verb: Any) -> bool:
    return not (C.negated(verb) or C.is_hedged(verb))


def _pets(sent: Any, names: Any, out: Extraction) -> None:
    for tok in sent:
        if tok.lemma_.lower() not in PETS or tok.pos_ != "NOUN":
            continue
        owners = [c for c in tok.children if c.dep_ == "poss" and c.lower_ in ("my", "our")]
        pet = None
        if owners:  # "our dog Pepper" (appos), "Our cat Biscuit" (as parsed: the name is the noun's head)
            pet = next((c for c in tok.children if c.dep_ == "appos" and c.pos_ == "PROPN"), None)
            if pet is None and tok.dep_ == "compound" and tok.head.pos_ == "PROPN":
                pet = tok.head
        elif tok.dep_ == "compound" and tok.head.pos_ == "PROPN":  # "my dog Pepper": "my" on the name
            owners = [c for c in tok.head.children if c.dep_ == "poss" and c.lower_ in ("my", "our")]
            pet = tok.head if owners else None
        if pet is None or not pet.text[:1].isupper():
            continue
        verb = pet.head if pet.dep_ in ("nsubj", "nsubjpass", "dobj") else None
        if verb is not None and not _clause_ok(verb):
            continue
        n = names.name(pet)
        if not n or n[0] in (USER, TEAM):
            continue
        name = n[0].split(" ", 1)[1] if n[0].lower().startswith(tok.lower_ + " ") else n[0]  # "dog Rex": Rex
        owner = USER if owners[0].lower_ == "my" else TEAM
        gone = any(c.lower_ in _GONE for c in list(tok.children) + list(pet.children) if c.dep_ == "amod")
        out.facts.append(FactDraft(owner, "owns", name, subject_type="person" if owner == USER else "team",
                                   object_type=n[1], past=gone, rule="parse:pet"))


def _written_as(sent: Any, names: Any, out: Extraction) -> None:
    for verb in sent:
        if verb.lemma_ != "be" or verb.dep_ not in ("ROOT", "conj", "ccomp") or not _clause_ok(verb):
            continue
        subjects = [s for s in verb.children if s.dep_ == "nsubj"]
        for attr in (a for a in verb.children if a.dep_ == "attr" and a.pos_ == "NOUN"):
            if attr.lemma_.lower() not in PARTS or not any(d.lower_ in ("a", "an") for d in attr.children):
                continue
            if any(c.dep_ in ("conj", "cc") for c in attr.children) or any(
                    w.lemma_ in ("write", "implement", "build") for w in attr.subtree):
                continue  # "a Python package and project manager written in Rust": the language is said elsewhere
            langs = [m for m in attr.children if m.dep_ in ("compound", "amod", "nmod") and m.i < attr.i
                     and m.lower_ in LANGUAGES and m.text[:1].isupper()]
            if len(langs) != 1:
                continue
            lang = names.name(langs[0]) or (langs[0].text, "technology")
            for s in subjects:
                n = names.name(s)
                if not n or n[0] in (USER, TEAM) or s.pos_ == "PRON":
                    continue
                # the is_a reading of the same words names no kind a reader asks for: this one replaces it
                out.facts[:] = [f for f in out.facts if not (f.subject == n[0] and f.predicate == "is_a"
                                                             and lang[0].lower() in f.object.lower())]
                out.facts.append(FactDraft(n[0], "written_in", lang[0], subject_type=n[1], object_type=lang[1],
                                           rule="parse:written-as"))


def _active_status(sent: Any, names: Any, out: Extraction) -> None:
    for verb in sent:
        status = ACTIVE_STATUSES.get(verb.lemma_.lower())
        # "The checkout redesign shipped on Tuesday" is parsed as a noun phrase with "shipped" on it
        fragment = verb.dep_ == "acl" and verb.tag_ == "VBN" and verb.head.dep_ == "ROOT" and verb.head.pos_ == "NOUN"
        if not status or (verb.tag_ != "VBD" and not fragment) or not _clause_ok(verb):
            continue
        if any(c.dep_ in ("dobj", "nsubjpass", "auxpass", "aux", "prt", "attr", "acomp") for c in verb.children):
            continue  # "we shipped the fix", "it was shipped to …": another reading
        if any(p.dep_ == "prep" and p.lower_ in ("to", "with", "into", "in", "from") for p in verb.children):
            continue  # "merged into main", "shipped to customers": where, not a status
        for s in [verb.head] if fragment else (c for c in verb.children if c.dep_ == "nsubj"):
            if s.pos_ not in ("NOUN", "PROPN"):
                continue
            n = names.name(s)
            if not n or n[0] in (USER, TEAM) or n[1] == "person":
                continue
            out.facts.append(FactDraft(n[0], "status", status, subject_type=n[1], object_type="status",
                                       rule="parse:active-status"))


_ASIDE_MARKS = frozenset({",", "-", "–", "—", "("})


def _aside_relatives(sent: Any, names: Any, out: Extraction, before: int) -> None:
    for tok in sent:
        rel = C.relative(tok)
        if not rel or not any(c.dep_ == "poss" and c.lower_ == "my" for c in tok.children):
            continue
        left, right = tok.left_edge.i, tok.right_edge.i
        doc = tok.doc
        if left - 2 != sent.start or doc[left - 1].text not in _ASIDE_MARKS:
            continue  # the name opens the sentence, set off from the aside
        closing = _ASIDE_MARKS | {")"}
        if doc[right].text not in closing and (right + 1 >= sent.end or doc[right + 1].text not in closing):
            continue  # "Tom, my brother lives in Leeds": no aside closes
        who = doc[left - 2]
        if not (who.text[:1].isupper() and who.pos_ in ("PROPN", "NOUN") and who.is_alpha):
            continue
        n = names.name(who) if who.pos_ == "PROPN" else None
        person = n[0] if n and n[0] not in (USER, TEAM) else who.text
        names.kinds.discard(person)  # "Ines" tagged a plural noun: a name, set off before "my friend"
        said = f"{USER}'s {tok.text.lower()}"
        facts = out.facts[before:]
        if any(f.subject == person and f.predicate == f"{rel[0]}_of" for f in facts):
            continue  # read already ("Gustavo, my college roommate, …")
        out.facts[before:] = [replace(f, subject=person, subject_type="person") if f.subject == said else f
                              for f in facts]
        out.facts.append(FactDraft(person, f"{rel[0]}_of", USER, subject_type="person", object_type="person",
                                   past=rel[1], rule="parse:relative-aside"))


#: Words for a parent or grandparent written as a name ("Mum's birthday is 3 May", "Dad retired last year").
KIN_NAMES = frozenset("mum mom mam dad mummy mommy daddy grandma grandpa granny grandad nan nana gran".split())


def kin_names(out: Extraction) -> Extraction:
    """ "Mum", "Dad" as a name with no "my": the writer's mother, father ("User's mum"). Applied to every
    candidate of a text (the clause, attribute and rule readings alike)."""
    def kin(name: str) -> str | None:
        return f"{USER}'s {name.lower()}" if name.lower() in KIN_NAMES and name.istitle() else None  # not "NAN"

    out.facts = [replace(f, subject=kin(f.subject) or f.subject,
                         subject_type="person" if kin(f.subject) else f.subject_type,
                         object=kin(f.object) or f.object,
                         object_type="person" if kin(f.object) else f.object_type)
                 for f in out.facts]
    return out


#: Relations two people hold of each other, said of both at once ("Kasia and I are friends").
_MUTUAL = frozenset("friend colleague coworker neighbour neighbor roommate flatmate housemate".split())


def _we_two(sent: Any, names: Any, out: Extraction) -> None:
    for verb in sent:
        if verb.lemma_ != "be" or not _clause_ok(verb):
            continue
        attrs = [a for a in verb.children if a.dep_ == "attr" and a.lemma_.lower() in _MUTUAL and a.tag_ == "NNS"]
        if not attrs:
            continue
        rel = V.RELATIVES.get(attrs[0].lemma_.lower(), attrs[0].lemma_.lower())
        for subj in (t for t in verb.children if t.dep_ == "nsubj"):
            pair = [subj] + [c for c in subj.children if c.dep_ == "conj"]
            if not any(p.lower_ in ("i", "me") for p in pair):
                continue
            for p in pair:
                n = names.name(p) if p.pos_ == "PROPN" else None
                if n and n[0] not in (USER, TEAM):
                    out.facts.append(FactDraft(n[0], f"{rel}_of", USER, subject_type="person", object_type="person",
                                               past=verb.tag_ == "VBD", rule="parse:we-two"))
