"""What a person has, said with the thing's name after "named" or "called": "Melanie has a dog named Luna and a
cat named Oliver", "Nate has a new addition to the family, an adopted pet named Max".

The clause readings of :mod:`knotwork.knowledge.parse` read "has X" as owning only when X is a name
("I have Spotify"); a kind with a name after it ("a dog named Luna") was read as nothing. memory3's dev half
(observations recorded about a chat) states pets this way, the holder named by first name. Only animals
(``shapes.PETS`` and "pet"): "has a sister named Amira" is a relative (:mod:`knotwork.knowledge.people`),
"has a project called Atlas" is no possession. "had" without "has" is over ("Joanna had a dog named Tilly
back in Michigan"); a negation or a hedge on the verb states nothing.

Each is a candidate like any other (rule ``parse:pet``, the rule that reads "our dog Pepper"): the fact
scorer decides what is stored.
"""

from __future__ import annotations

from typing import Any

from knotwork.knowledge import cues as C
from knotwork.knowledge.models import Extraction, FactDraft
from knotwork.knowledge.shapes import PETS

ANIMALS = PETS | {"pet", "turtle"}
#: The dependencies on the way from "have" down to the animal ("has a dog", "a dog named Luna and a cat").
_PATH = frozenset("dobj conj appos oprd acl attr".split())


def _named(tok: Any) -> Any | None:
    """The name token after "named" / "called" on an animal noun ("a dog named Luna": Luna)."""
    for c in tok.children:
        if c.dep_ == "acl" and c.lemma_ in ("name", "call"):
            return next((n for n in c.children if n.dep_ in ("oprd", "attr", "dobj", "xcomp", "npadvmod")
                         and n.text[:1].isupper()), None)
    return None


def _have(tok: Any) -> Any | None:
    """The verb "have" this animal is the object of, through lists and appositions, or None."""
    at = tok
    for _ in range(6):
        if at.dep_ not in _PATH or at.head is at:
            return None
        at = at.head
        if at.pos_ in ("VERB", "AUX") and at.lemma_ not in ("name", "call"):
            return at if at.lemma_ == "have" else None
    return None


def read(sent: Any, names: Any, out: Extraction) -> None:
    for tok in sent:
        if tok.lemma_.lower() not in ANIMALS or tok.pos_ != "NOUN":
            continue
        pet = _named(tok)
        verb = _have(tok) if pet is not None else None
        if verb is None or C.negated(verb) or C.is_hedged(verb):
            continue
        holder = verb
        subjects = [c for c in holder.children if c.dep_ == "nsubj"]
        while not subjects and holder.dep_ == "conj" and holder.head is not holder:
            holder = holder.head
            subjects = [c for c in holder.children if c.dep_ == "nsubj"]
        owner = names.name(subjects[0]) if subjects else None
        name = names.name(pet)
        if not owner or not name or not (owner[1] == "person" or owner[0][:1].isupper()):
            continue
        # "had a dog" is over; "has had turtles for 3 years" and "has a dog" hold
        past = verb.tag_ == "VBD" and not any(c.dep_ == "aux" for c in verb.children)
        out.facts.append(FactDraft(owner[0], "owns", name[0], subject_type=owner[1], object_type=name[1], past=past,
                                   rule="parse:pet"))
