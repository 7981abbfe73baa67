"""What observations about a named person say: the pets a person has, their name after "named" or "called"
("Melanie has a dog named Luna and a cat named Oliver", "Nate has a new addition to the family, an adopted pet
named Max"), a named person's favourites ("Tim's favorite book is Harry Potter", "... and his favorite player
is LeBron"), and a liking said with "fan" of a kind ("I'm a big video game fan", "As a Manchester City fan, I
..."), or with a pastime of it ("Jolene loves listening to Nils Frahm", "I enjoy reading mysteries": the thing
read, watched or listened to, as every labelled set writes it; "playing" is left to the clause readings, the
sets label it plays or likes).

Likings: "I'm a Liverpool fan" is read by :mod:`knotwork.knowledge.registers` (a named team or artist); a kind
before "fan" is what the person likes as well ("I'm not a big fan of horror movies" is labelled dislikes in the
held-out set, "a big video game fan" likes in memory3), and so is a fan "as" whom a person speaks. A negation
on "be" makes "fan" a dislike; a hedge states nothing. Rule ``parse:fan``. ("finds joy / peace / comfort in X"
was tried as a liking: the scorer put each of its three memory3 dev facts under the store floor, and "I find
comfort in the fact that it works" over it: not kept.)

Favourites: :mod:`knotwork.knowledge.parse` reads "my favorite X is Y" only; an observation recorded about a
chat names the holder ("John's favorite book is The Alchemist"). The predicate is favorite_ and the subject's
noun with its noun modifiers, as the labelled sets write it (favorite_basketball_team, favorite_tv_show); a
"his/her/their" favourite in the same sentence is the named holder's. Rule ``parse:favorite``, as for "my".

Pets: the clause readings of :mod:`knotwork.knowledge.parse` read "has X" as owning only when X is a name
("I have Spotify"); a kind with a name after it ("a dog named Luna") was read as nothing. memory3's dev half
(observations recorded about a chat) states pets this way, the holder named by first name. Only animals
(``shapes.PETS`` and "pet"): "has a sister named Amira" is a relative (:mod:`knotwork.knowledge.people`),
"has a project called Atlas" is no possession. "had" without "has" is over ("Joanna had a dog named Tilly
back in Michigan"); a negation or a hedge on the verb states nothing.

Each is a candidate like any other (pets: rule ``parse:pet``, the rule that reads "our dog Pepper"): the fact
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


def _spanned(names: Any, tok: Any) -> tuple[str, str | None] | None:
    """The name a regex span gives exactly this token, when the tagger misread it ("named Tilly back in": Tilly/RB)."""
    start = tok.idx - names.base
    span = names.span_at(start, start + len(tok))
    return (span.name, span.type) if span is not None and (span.start, span.end) == (start, start + len(tok)) else None


def _favorites(sent: Any, names: Any, out: Extraction) -> None:
    holder = None
    for tok in sent:
        if tok.dep_ not in ("nsubj", "conj") or tok.pos_ != "NOUN" or not any(
                c.dep_ == "amod" and c.lower_ in ("favorite", "favourite") for c in tok.children):
            continue
        poss = next((c for c in tok.children if c.dep_ == "poss"), None)
        if poss is None:
            continue
        if poss.pos_ == "PROPN":
            named = names.name(poss)
            holder = named if named and named[0] not in ("User", "Team") and named[0][:1].isupper() else None
            owner = holder
        else:
            owner = holder if poss.lower_ in ("his", "her", "their") else None  # "... and his favorite player"
        # "... and his favorite player is LeBron": the parse hangs the noun on the first value, "is" right after it
        nxt = tok.doc[tok.i + 1] if tok.i + 1 < len(tok.doc) else None
        verb = tok.head if tok.dep_ == "nsubj" else nxt if nxt is not None and nxt.dep_ == "conj" else None
        if owner is None or verb is None or verb.lemma_ != "be" or C.negated(verb) or C.is_hedged(verb):
            continue
        attr = next((c for c in verb.children if c.dep_ == "attr"), None)
        value = (names.name(attr) or _spanned(names, attr)) if attr is not None and attr.pos_ == "PROPN" else None
        if not value:
            continue
        words = [c.lower_ for c in tok.children if c.dep_ == "compound" and c.pos_ in ("NOUN", "PROPN") and c.i < tok.i]
        what = "_".join(words + [tok.lemma_.lower()])
        out.facts.append(FactDraft(owner[0], f"favorite_{what}", value[0], subject_type="person",
                                   object_type=value[1], rule="parse:favorite"))


def _holder(verb: Any, names: Any) -> tuple[str, str | None] | None:
    subj = next((c for c in verb.children if c.dep_ == "nsubj"), None)
    who = names.name(subj) if subj is not None else None
    return who if who and (who[0] == "User" or who[1] == "person" or subj.pos_ == "PROPN") else None


def _fans(sent: Any, names: Any, out: Extraction) -> None:
    for tok in sent:
        if tok.lower_ not in ("fan", "fans") or tok.pos_ != "NOUN":
            continue
        kinds = [c for c in tok.children if c.dep_ == "compound" and c.i < tok.i]
        if not kinds or any(c.pos_ == "PROPN" for c in kinds) and tok.dep_ == "attr":
            continue  # "I'm a Liverpool fan": registers' reading
        if tok.dep_ == "attr" and tok.head.lemma_ == "be":
            verb, negated = tok.head, C.negated(tok.head)
        elif tok.dep_ == "pobj" and tok.head.lower_ == "as" and tok.head.head.pos_ in ("VERB", "AUX"):
            verb, negated = tok.head.head, False  # "As a Manchester City fan, I can't agree": a fan whatever follows
        else:
            continue
        if C.is_hedged(verb):
            continue
        who = _holder(verb, names)
        lo = min(c.i for c in kinds)
        words = tok.doc[lo: tok.i]
        thing = names.name(kinds[-1]) if all(c.pos_ == "PROPN" for c in words) else (words.text, None)
        if who and thing and thing[0]:
            out.facts.append(FactDraft(who[0], "dislikes" if negated else "likes", thing[0], subject_type=who[1],
                                       object_type=thing[1], rule="parse:fan"))


#: Verbs of liking, and the pastimes whose object is the thing liked ("loves listening to Nils Frahm").
_LIKE = frozenset("love enjoy like adore".split())
_PASTIMES = frozenset("read watch listen".split())


def _liking(tok: Any) -> bool:
    """A verb of liking, also as the parse leaves it unlemmatised when it misreads it as an auxiliary ("loves")."""
    return tok.lemma_ in _LIKE or tok.lower_ in ("loves", "enjoys", "likes", "adores")


def _likes_doing(sent: Any, names: Any, out: Extraction) -> None:
    for tok in sent:
        if tok.lemma_ not in _PASTIMES or tok.tag_ != "VBG":
            continue
        if tok.dep_ == "xcomp" and tok.head.lemma_ in _LIKE:
            verb = tok.head
        elif any(_liking(c) for c in tok.children if c.dep_ == "aux"):
            verb = tok  # "Jolene loves listening to ...": the parse makes "loves" an auxiliary, and its subject's head
        else:
            continue
        if C.negated(verb) or C.is_hedged(verb):
            continue
        who = _holder(verb, names) or next((_holder(c, names) for c in tok.children if c.dep_ == "aux" and _liking(c)),
                                           None)
        objects = [c for c in tok.children if c.dep_ == "dobj"]
        objects += [q for p in tok.children if p.dep_ == "prep" and p.lower_ == "to" for q in p.children
                    if q.dep_ == "pobj"]
        objects += [c for o in objects for c in o.children if c.dep_ == "conj"]
        for o in objects:
            o = next((a for a in o.children if a.dep_ == "appos"), o)  # "music, especially jazz": jazz
            if any(c.dep_ in ("prep", "relcl", "acl") for c in o.children):
                continue  # "books about travel": the phrase is longer than the noun
            n = names.name(o)
            if who and n:
                out.facts.append(FactDraft(who[0], "likes", n[0], subject_type=who[1], object_type=n[1],
                                           rule="parse:likes-doing"))


def read(sent: Any, names: Any, out: Extraction) -> None:
    _likes_doing(sent, names, out)
    _favorites(sent, names, out)
    _fans(sent, names, out)
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
        name = names.name(pet) or _spanned(names, pet)
        if not owner or not name or not (owner[1] == "person" or owner[0][:1].isupper()):
            continue
        # "had a dog" is over; "has had turtles for 3 years" and "has a dog" hold
        past = verb.tag_ == "VBD" and not any(c.dep_ == "aux" for c in verb.children)
        out.facts.append(FactDraft(owner[0], "owns", name[0], subject_type=owner[1], object_type=name[1], past=past,
                                   rule="parse:pet"))
