"""Readings of shapes that memories written by people take and that a verb clause does not read.

A fresh set of memory-style sentences (``bench/data/extraction_memory2.txt``, dev half) showed these
stated often and missed or misread:

- "Our cat Biscuit is 14", "my dog Pepper hates the vet": the writer (or Team, for "our") owns the pet
  named, as "we adopted a cat called Miso" does; "my late dog Rex" is a pet that was;
- "The checkout redesign shipped on Tuesday", "the 2.0 release launched": a finished status said with an
  active verb and no object (a status the passive "is shipped" already gives);
- "Javier - my old flatmate - now works in Madrid", "Ines, my friend from uni, has moved to Lisbon": the
  parse often makes the relative the subject and leaves the name aside; the facts said of "User's
  flatmate" are Javier's, and Javier is (or was, "old") the writer's flatmate;
- "Kasia and I have been friends since school", "Tom and I were flatmates": the person is (was) the
  writer's friend, flatmate;
- "Oskar, Lina's husband, …", "Fatima lives in Doha with her husband Karim": a relative of someone else
  (Oskar husband_of Lina; Karim husband_of Fatima, and he lives there too);
- "Lena took over the Android app from Marcus": Lena owns it now, Marcus did;
- "Our flat in Leith is on the fourth floor": the writer (Team for "our") lives in Leith ("our old flat in
  X": lived);
- "The inventory service is in Java 17": written in Java;
- "My running club is Hackney Harriers": a member; "I've been pescatarian since 2019": is_a, as "a
  pescatarian" is; "Nadia got promoted to head of design at Canva": her job and employer;
- "Mobile push is handled by Firebase Cloud Messaging", "served / powered by X": X is in use (a
  person's name after "by" is left alone: "managed by X" names no tool);
- "We sold the house in Reading": the house, not Reading, was sold (the name of "a flat in X" is X only for
  where one lives);
- "I teach yoga on the side", "she teaches chemistry in Lagos": a yoga / chemistry teacher (and where);
- "We picked Temporal over Airflow": the chosen one is in use (the other says nothing, as "instead of");
- "Python upgraded to 3.12 everywhere": the thing itself is the subject of the upgrade (the bump readings
  want "Upgraded Python to 3.12");
- "Mum's birthday is 3 May", "Dad retired from the railways": a parent written as a name is the writer's
  ("User's mum"), as "my mum" is (:func:`kin_names`, applied to every candidate of a text).

Each reading checks the clause as the others do: no negation, hedge, plan or question. The facts are
candidates like any other; the fact scorer decides what is stored, by the rule each carries
(``parse:pet``, ``parse:active-status``). "The nightly export job is a Python script", found here too, is read
with the other descriptions of what a thing is written in (:mod:`knotwork.knowledge.described`, one noun list).
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from knotwork.knowledge import cues as C
from knotwork.knowledge import described as _described
from knotwork.knowledge import ends as _ends
from knotwork.knowledge import vocabulary as V
from knotwork.knowledge.models import Extraction, FactDraft
from knotwork.knowledge.people import given_names

USER = "User"
TEAM = "Team"

PETS = frozenset("dog cat puppy kitten rabbit hamster parrot budgie tortoise horse pony ferret gecko".split())
#: Words before a pet that say it is no longer alive or kept.
_GONE = frozenset("late old former".split())
#: Verbs whose simple past with no object says a piece of work reached that status.
ACTIVE_STATUSES = {"ship": "shipped", "launch": "launched", "merge": "merged"}


def read(sent: Any, names: Any, out: Extraction, before: int = 0) -> None:
    """The facts of one parsed sentence that these readings find (appended to ``out``); ``before`` is where
    the sentence's facts start in ``out.facts``."""
    _aside_relatives(sent, names, out, before)
    _we_two(sent, names, out)
    _others_relatives(sent, names, out)
    _took_over(sent, names, out)
    _home_in(sent, names, out)
    _in_language(sent, names, out)
    _my_group_is(sent, names, out)
    _diet(sent, names, out)
    _promoted(sent, names, out)
    _handled_by(sent, names, out)
    _not_the_town(sent, names, out, before)
    _teaches(sent, names, out)
    _picked_over(sent, names, out)
    _upgraded_to(sent, names, out)
    _pets(sent, names, out)
    _active_status(sent, names, out)


def _clause_ok(verb: Any) -> bool:
    return not (C.negated(verb) or C.is_hedged(verb))


def _language(name: tuple[str, str | None]) -> tuple[str, str | None]:
    """A language's name without its version ("Java 17", "Python 3.12": Java, Python)."""
    words = name[0].split()
    if len(words) == 2 and words[0].lower() in _described.LANGUAGES and re.fullmatch(r"v?\d+(?:\.\d+)*", words[1]):
        return words[0], name[1]
    return _ends.unversioned(name)


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


def _person(tok: Any, names: Any) -> tuple[str, str | None] | None:
    n = names.name(tok) if tok.pos_ == "PROPN" and tok.text[:1].isupper() else None
    return n if n and n[0] not in (USER, TEAM) else None


def _others_relatives(sent: Any, names: Any, out: Extraction) -> None:
    for tok in sent:
        word = tok.lower_
        if word not in V.RELATIVES or word in ("friend", "friends", "boss", "manager", "colleague", "coworker"):
            continue
        rel = V.RELATIVES[word]
        poss = next((c for c in tok.children if c.dep_ == "poss"), None)
        if poss is None or poss.lower_ in ("my", "our", "your", "their", "its"):
            continue
        if poss.lower_ in ("his", "her"):  # "Fatima lives … with her husband Karim": the clause's subject
            verb = tok.head.head if tok.dep_ == "pobj" else None
            subj = next((c for c in verb.children if c.dep_ == "nsubj"), None) if verb is not None else None
            owner = _person(subj, names) if subj is not None else None
            if verb is None or not _clause_ok(verb):
                continue
        else:
            owner = _person(poss, names)  # "Lina's husband"
        if owner is None:
            continue
        named = next((c for c in tok.children if c.dep_ in ("appos", "compound") and c.pos_ == "PROPN"), None)
        if named is None and tok.dep_ == "appos" and tok.head.pos_ == "PROPN":
            named = tok.head  # "Oskar, Lina's husband, …"
        who = _person(named, names) if named is not None else None
        if who is None or who[0] == owner[0]:
            continue
        out.facts.append(FactDraft(who[0], f"{rel}_of", owner[0], subject_type="person", object_type="person",
                                   rule="parse:others-relative"))
        if tok.dep_ == "pobj" and tok.head.lower_ == "with" and tok.head.head.lemma_ == "live":
            for f in [f for f in out.facts if f.subject == owner[0] and f.predicate == "lives_in" and not f.past]:
                out.facts.append(replace(f, subject=who[0], subject_type="person", rule="parse:lives-with"))


def _took_over(sent: Any, names: Any, out: Extraction) -> None:
    for verb in sent:
        if verb.lemma_ != "take" or not any(c.dep_ == "prt" and c.lower_ == "over" for c in verb.children):
            continue
        if not _clause_ok(verb):
            continue
        subj = next((_person(c, names) for c in verb.children if c.dep_ == "nsubj"), None)
        obj = next((c for c in verb.children if c.dep_ == "dobj"), None)
        if subj is None or obj is None:
            continue
        thing = names.name(obj)
        if not thing or thing[0] in (USER, TEAM):
            continue
        out.facts.append(FactDraft(subj[0], "owns", thing[0], subject_type="person", object_type=thing[1],
                                   rule="parse:take-over"))
        for p in (c for t in (verb, obj) for c in t.children if c.dep_ == "prep" and c.lower_ == "from"):
            for q in p.children:
                before = _person(q, names) if q.dep_ == "pobj" else None
                if before:
                    out.facts.append(FactDraft(before[0], "owns", thing[0], subject_type="person",
                                               object_type=thing[1], past=True, rule="parse:take-over"))


_HOMES = frozenset("flat apartment house home place".split())


def _home_in(sent: Any, names: Any, out: Extraction) -> None:
    for tok in sent:
        if tok.lower_ not in _HOMES or tok.dep_ not in ("nsubj", "nsubjpass"):
            continue
        poss = next((c for c in tok.children if c.dep_ == "poss" and c.lower_ in ("my", "our")), None)
        if poss is None or not _clause_ok(tok.head) or tok.head.tag_ in ("VBD", "VBN"):
            continue  # "our flat in Leith was flooded": when, the words do not say
        place = next((q for p in tok.children if p.dep_ == "prep" and p.lower_ == "in"
                      for q in p.children if q.dep_ == "pobj" and q.pos_ == "PROPN"), None)
        n = names.name(place) if place is not None else None
        if not n:
            continue
        owner = (USER, "person") if poss.lower_ == "my" else (TEAM, "team")
        gone = any(c.dep_ == "amod" and c.lower_ in _GONE | {"previous"} for c in tok.children)
        out.facts.append(FactDraft(owner[0], "lives_in", n[0], subject_type=owner[1], object_type=n[1], past=gone,
                                   rule="parse:home-in"))


def _in_language(sent: Any, names: Any, out: Extraction) -> None:
    for verb in sent:
        if verb.lemma_ != "be" or not _clause_ok(verb):
            continue
        for p in (c for c in verb.children if c.dep_ == "prep" and c.lower_ == "in"):
            langs = [q for q in p.children if q.dep_ == "pobj" and _described.language(q)]
            if len(langs) != 1:
                continue
            lang = _language(names.name(langs[0]) or (langs[0].text, "technology"))
            for s in (c for c in verb.children if c.dep_ == "nsubj" and c.pos_ in ("NOUN", "PROPN")):
                n = names.name(s)
                if n and n[0] not in (USER, TEAM) and n[1] != "person":
                    out.facts.append(FactDraft(n[0], "written_in", lang[0], subject_type=n[1], object_type=lang[1],
                                               rule="parse:in-language"))


def _my_group_is(sent: Any, names: Any, out: Extraction) -> None:
    for verb in sent:
        if verb.lemma_ != "be" or not _clause_ok(verb) or verb.tag_ not in ("VBZ", "VBP"):
            continue
        for s in (c for c in verb.children if c.dep_ == "nsubj" and c.lemma_.lower() in V.GROUP_WORDS):
            poss = next((c for c in s.children if c.dep_ == "poss" and c.lower_ in ("my", "our")), None)
            for a in (c for c in verb.children if c.dep_ == "attr" and c.pos_ == "PROPN"):
                n = names.name(a)
                if poss is not None and n and n[0] not in (USER, TEAM):
                    owner = (USER, "person") if poss.lower_ == "my" else (TEAM, "team")
                    out.facts.append(FactDraft(owner[0], "member_of", n[0], subject_type=owner[1], object_type=n[1],
                                               rule="parse:my-group-is"))


def _diet(sent: Any, names: Any, out: Extraction) -> None:
    for verb in sent:
        if verb.lemma_ != "be" or not _clause_ok(verb):
            continue
        for a in (c for c in verb.children if c.dep_ in ("acomp", "attr") and c.lower_ in V.IS_A_NOUNS and c.pos_ == "ADJ"):
            for s in (c for c in verb.children if c.dep_ == "nsubj"):
                for t in [s] + [c for c in s.children if c.dep_ == "conj"]:
                    n = names.name(t)
                    if n is None and t.lower_ in V.RELATIVES and any(c.lower_ == "my" for c in t.children):
                        n = (f"{USER}'s {t.lower_}", "person")  # "My wife and I are vegan"
                    if n and n[0] != TEAM:
                        out.facts.append(FactDraft(n[0], "is_a", a.lower_, subject_type=n[1] or "person",
                                                   object_type=None, past=verb.tag_ == "VBD", rule="parse:diet"))


def _promoted(sent: Any, names: Any, out: Extraction) -> None:
    for verb in sent:
        if verb.lemma_ != "promote" or not _clause_ok(verb):
            continue
        who = next((_person(c, names) or ((USER, "person") if c.lower_ in ("i", "me") else None)
                    for c in verb.children if c.dep_ in ("nsubjpass", "nsubj")), None)
        to = next((q for p in verb.children if p.dep_ == "prep" and p.lower_ == "to"
                   for q in p.children if q.dep_ == "pobj"), None)
        if to is None:  # "got promoted to head of design", parsed with "to" as the infinitive's mark
            to = next((x for x in verb.children if x.dep_ == "xcomp" and x.pos_ == "NOUN"
                       and any(c.lower_ == "to" for c in x.children)), None)
        if who is None or to is None:
            continue
        stop = min([c.i for c in to.children if c.dep_ == "prep" and c.lower_ in ("at", "in", "with")] + [to.right_edge.i + 1])
        job = " ".join(t.text for t in to.doc[to.left_edge.i:stop] if t.dep_ not in ("det", "aux", "poss"))
        out.facts.append(FactDraft(who[0], "works_as", job, subject_type="person", object_type=None,
                                   rule="parse:promoted-to"))
        for p in (c for t in (verb, to) for c in t.children if c.dep_ == "prep" and c.lower_ == "at"):
            for q in p.children:
                org = names.name(q) if q.dep_ == "pobj" and q.pos_ == "PROPN" else None
                if org:
                    out.facts.append(FactDraft(who[0], "works_at", org[0], subject_type="person", object_type=org[1],
                                               rule="parse:promoted-to"))


_BY_TOOL = frozenset("handle serve power".split())  # not "backed by Astral": a company, not a tool


def _handled_by(sent: Any, names: Any, out: Extraction) -> None:
    for verb in sent:
        if verb.lemma_ not in _BY_TOOL or not any(c.dep_ == "auxpass" for c in verb.children) or not _clause_ok(verb):
            continue
        agents = [q for a in verb.children if a.dep_ == "agent" for q in a.children if q.dep_ == "pobj"]
        subjects = [c for c in verb.children if c.dep_ == "nsubjpass"]
        for q in agents:
            n = names.name(q) if q.pos_ == "PROPN" else None
            if not n or n[1] == "person" or q.lower_ in given_names():
                continue  # "handled by Maria": a person, no tool
            for s in subjects:
                h = names.name(s)
                if h and s.pos_ == "NOUN":  # "Mobile push": the whole phrase, the capital of its first word too
                    h = (" ".join(t.text for t in s.subtree if t.dep_ not in ("det", "poss") and t.i <= s.i).lower(), h[1])
                if h and h[0] not in (USER, TEAM) and h[1] != "person":
                    out.facts.append(FactDraft(h[0], "uses", n[0], subject_type=h[1], object_type=n[1],
                                               rule="parse:handled-by"))


def _not_the_town(sent: Any, names: Any, out: Extraction, before: int) -> None:
    towns = set()
    for verb in sent:
        if verb.lemma_ not in ("sell", "buy", "own", "rent", "renovate", "let"):
            continue
        for d in (c for c in verb.children if c.dep_ == "dobj" and c.lower_ in _HOMES | {"flat", "studio", "cottage"}):
            preps = list(d.children) + [t for t in verb.children if t.i == d.right_edge.i + 1]
            towns |= {n[0] for p in preps if p.dep_ == "prep" for q in p.children
                      if q.dep_ == "pobj" and (n := names.name(q))}
    if towns:
        out.facts[before:] = [f for f in out.facts[before:] if not (f.predicate == "owns" and f.object in towns)]


def _subject_person(verb: Any, names: Any) -> tuple[str, str | None] | None:
    for c in verb.children:
        if c.dep_ == "nsubj":
            if c.lower_ == "i":
                return USER, "person"
            n = names.name(c)
            if n is None and c.lower_ in ("she", "he"):  # "Amara is my aunt; she teaches …": the one name before
                before = [t for t in c.sent if t.pos_ == "PROPN" and t.dep_ == "nsubj" and t.i < c.i]
                n = _person(before[0], names) if len(before) == 1 else None
            if n and n[0] not in (USER, TEAM) and (c.pos_ == "PRON" or _person(c, names)):
                return n[0], "person"
    return None


def _teaches(sent: Any, names: Any, out: Extraction) -> None:
    for verb in sent:
        if verb.lemma_ != "teach" or verb.tag_ not in ("VBP", "VBZ") or not _clause_ok(verb):
            continue
        who = _subject_person(verb, names)
        subject = next((c for c in verb.children if c.dep_ == "dobj" and c.tag_ == "NN" and c.text.islower()
                        and not any(d.dep_ in ("det", "poss") for d in c.children) and c.lower_ not in V.RELATIVES), None)
        if who is None or subject is None:
            continue
        out.facts.append(FactDraft(who[0], "works_as", f"{subject.text} teacher", subject_type="person",
                                   object_type=None, rule="parse:teaches"))
        for p in (c for t in (verb, subject) for c in t.children if c.dep_ == "prep" and c.lower_ == "in"):
            for q in p.children:
                place = names.name(q) if q.dep_ == "pobj" and q.pos_ == "PROPN" else None
                if place:
                    out.facts.append(FactDraft(who[0], "lives_in", place[0], subject_type="person",
                                               object_type=place[1], rule="parse:teaches-in"))


def _picked_over(sent: Any, names: Any, out: Extraction) -> None:
    for verb in sent:
        if verb.lemma_ not in ("pick", "choose", "select") or not _clause_ok(verb):
            continue
        if not any(c.dep_ == "prep" and c.lower_ == "over" for c in verb.children):
            continue
        subj = next((c for c in verb.children if c.dep_ == "nsubj" and c.lower_ in ("i", "we")), None)
        chosen = next((c for c in verb.children if c.dep_ == "dobj" and c.pos_ == "PROPN"), None)
        n = names.name(chosen) if chosen is not None else None
        if subj is None or not n:
            continue
        owner = (USER, "person") if subj.lower_ == "i" else (TEAM, "team")
        out.facts.append(FactDraft(owner[0], "uses", n[0], subject_type=owner[1], object_type=n[1],
                                   rule="parse:picked-over"))


def _upgraded_to(sent: Any, names: Any, out: Extraction) -> None:
    for verb in sent:
        if verb.lemma_ not in ("upgrade", "bump", "update") or verb.tag_ != "VBD" or not _clause_ok(verb):
            continue
        if any(c.dep_ in ("dobj", "auxpass", "nsubjpass") for c in verb.children):
            continue  # "we upgraded Django to 5.0", "Django was upgraded to 5.0": the other readings
        subj = next((c for c in verb.children if c.dep_ == "nsubj" and c.pos_ == "PROPN"), None)
        v = next((q for p in verb.children if p.dep_ == "prep" and p.lower_ == "to" for q in p.children
                  if q.dep_ == "pobj" and re.fullmatch(r"v?\d+(?:\.\d+)*", q.text)), None)
        n = names.name(subj) if subj is not None else None
        if v is None or not n or n[0] in (USER, TEAM) or n[1] == "person" or subj.lower_ in given_names():
            continue
        out.facts.append(FactDraft(n[0], "uses_version", v.text.lstrip("v"), subject_type=n[1], object_type="version",
                                   rule="parse:upgraded-to"))
