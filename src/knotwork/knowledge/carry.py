"""What one memory's reading hands the next one's, in the same scope: the people it named.

"Amira is my sister; she is a civil engineer." then, in a later memory, "She moved to Casablanca last
spring." or "My sister moved to Casablanca": both are about Amira. The reading of each memory
(:func:`knotwork.knowledge.parse.read`) starts from a context the one before it in the same scope left:
the last person named (``person``, what "he"/"she" stands for when the memory names nobody before it)
and who each of the writer's relatives is (``rel:sister``). The service builds the first context of a
batch from the store (the previous memory's one named person, the stored ``X sister_of User`` facts).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from knotwork.knowledge import vocabulary as V
from knotwork.knowledge.ends import SYSTEM_HEADS
from knotwork.knowledge.models import Extraction
from knotwork.knowledge.repair import mend

USER = "User"
TEAM = "Team"

#: Past forms the small English model leaves unlemmatised ("rewrote" -> "rewrote"): the phrase table needs the lemma.
_LEMMAS = {"rewrote": "rewrite", "rewritten": "rewrite", "rebuilt": "rebuild", "reran": "rerun"}


def fix_lemmas(doc: Any) -> None:
    """The lemmas the small model leaves unlemmatised, and the verbs it reads as nouns or whose subject it
    loses (:func:`knotwork.knowledge.repair.mend`)."""
    for tok in doc:
        if tok.lower_ in _LEMMAS and tok.pos_ == "VERB":
            tok.lemma_ = _LEMMAS[tok.lower_]
    mend(doc)


#: What one memory's reading hands the next memory's of the same scope: the last person named ("person")
#: and the person each of the writer's relatives is ("rel:sister").
CARRIED = ("person",)


def carried(context: dict[str, str] | None) -> dict[str, str]:
    return {k: v for k, v in (context or {}).items() if k in CARRIED or k.startswith("rel:")}


def carry(out: Extraction, state: dict[str, str], context: dict[str, str] | None) -> None:
    """Hand the next memory of the scope the people this one named: its last person, and who the writer's
    relatives are ("Amira is my sister": ``rel:sister`` is Amira)."""
    if context is None:
        return
    for f in out.facts:
        if f.predicate.endswith("_of") and f.object == USER and not f.past and f.subject not in (USER, TEAM) \
                and not f.subject.startswith((USER + "'s", TEAM + "'s")):
            context["rel:" + f.predicate[:-3]] = f.subject
    if state.get("person"):
        context["person"] = state["person"]


def note_person(facts: list[Any], state: dict[str, str]) -> None:
    """The person a clause's facts are about becomes the one "she"/"he" stands for in the clauses after it
    (a relative of the writer, or a subject typed as a person)."""
    for f in facts:
        if f.subject in (USER, TEAM) or f.subject.startswith((USER + "'s", TEAM + "'s")):
            continue
        if f.subject_type == "person" or (f.predicate.endswith("_of") and f.object == USER):
            state["person"] = f.subject
    # "The scheduler no longer depends on cron; it uses Temporal.": "it" as a later clause's subject is the one
    # part of a system (a common noun with a system's head word: "the scheduler", "the auth service") the clause
    # before it stated facts about; a name or a person never is ("it" is rarely either)
    subjects = {f.subject for f in facts}
    if len(subjects) == 1:
        (s,) = subjects
        if s[:1].islower() and s.split()[-1].lower() in SYSTEM_HEADS and not facts[0].subject_type:
            state["thing"] = s


def my_relative(subject: str, state: dict[str, str]) -> str | None:
    """"User's sister" when an earlier memory (or sentence) said who the writer's sister is: her name."""
    if not subject.startswith(USER + "'s "):
        return None
    word = subject[len(USER) + 3:]
    rel = V.RELATIVES.get(word)
    return state.get(f"rel:{rel}") if rel else None


def resolve_relatives(out: Extraction, context: dict[str, str] | None) -> Extraction:
    """"My sister moved to Casablanca" after "Amira is my sister": Amira lives in Casablanca (a fact about
    "User's sister" is about the person the scope's memories named as the writer's sister)."""
    if not context:
        return out
    facts = []
    for f in out.facts:
        name = my_relative(f.subject, context)
        facts.append(replace(f, subject=name, subject_type="person") if name else f)
    out.facts = facts
    return out
