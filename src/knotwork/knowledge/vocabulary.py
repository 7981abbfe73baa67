"""The predicates offline extraction writes, and the phrases that name them (docs/predicates.md).

A phrase is a verb's lemma, its particle and the preposition that introduces
the object (``"live in"``, ``"grow up in"``, ``"depend on"``), or the lemma
alone when the object is the verb's direct object (``"use"``). ``be X prep``
phrases are adjectives and nouns after *be* (``"be allergic to"``,
``"be member of"``). A phrase marked *retired* says the fact is over
("grew up in", "quit", "sold").

Passives read the same phrases: "X is used by Y" is "Y use X"; "X is written
in Go" is "X write in Go".
"""

from __future__ import annotations

import re

#: predicate -> single-valued? (mirrors the ``kg_single_valued`` default; documented in docs/predicates.md)
PREDICATES: dict[str, bool] = {
    # people
    "lives_in": True, "works_at": True, "works_as": False, "studies_at": False, "from": False, "likes": False,
    "dislikes": False, "prefers": True, "allergic_to": False, "friend_of": False, "owns": False,
    "training_for": False, "learning": False, "speaks": False, "plays": False, "member_of": False,
    "reports_to": True, "reading": False, "favorite_<thing>": True, "<relative>_of": False,
    "has_<attribute>": True,  # "Harbor's primary database is MySQL": has_primary_database (knowledge/attributes.py)
    # code
    "uses": False, "depends_on": False, "imports": False, "calls": False, "extends": False, "implements": False,
    "is_a": False, "written_in": True, "runs_on": False, "supports": False, "part_of": False, "located_in": True,
    "renamed_to": False, "status": True, "uses_version": True, "configured_in": False,
}

_R = True  # retired

#: phrase -> (predicate, retired)
PHRASES: dict[str, tuple[str, bool]] = {
    # where people live
    "live in": ("lives_in", False), "base in": ("lives_in", False), "settle in": ("lives_in", False),
    "reside in": ("lives_in", False), "relocate to": ("lives_in", False), "move to": ("lives_in", False),
    "move back to": ("lives_in", False), "move into": ("lives_in", False), "stay in": ("lives_in", False),
    "grow up in": ("lives_in", _R), "grow up near": ("lives_in", _R), "move out of": ("lives_in", _R),
    "move away from": ("lives_in", _R), "give up": ("lives_in", _R),
    # work and study
    "work at": ("works_at", False), "work for": ("works_at", False), "join": ("works_at", False),
    "start at": ("works_at", False), "employ at": ("works_at", False), "employ by": ("works_at", False),
    "quit": ("works_at", _R), "leave": ("works_at", _R), "resign from": ("works_at", _R),
    "lay off from": ("works_at", _R), "lay off by": ("works_at", _R), "make redundant by": ("works_at", _R),
    "fire from": ("works_at", _R), "teach at": ("works_at", False), "retire from": ("works_at", _R),
    "work as": ("works_as", False), "become": ("works_as", False),
    "study at": ("studies_at", False), "go to": ("studies_at", False), "attend": ("studies_at", False),
    "enrol at": ("studies_at", False), "enroll at": ("studies_at", False), "graduate from": ("studies_at", _R),
    "do at": ("studies_at", False),
    "bear in": ("from", False), "come from": ("from", False), "be from": ("from", False),
    # tastes
    "like": ("likes", False), "love": ("likes", False), "enjoy": ("likes", False), "adore": ("likes", False),
    "be fan of": ("likes", False), "be into": ("likes", False), "be big fan of": ("likes", False), "support": ("likes", False),
    "hate": ("dislikes", False), "dislike": ("dislikes", False), "detest": ("dislikes", False),
    "stand": ("dislikes", False),
    "prefer": ("prefers", False), "favour": ("prefers", False), "favor": ("prefers", False),
    "be allergic to": ("allergic_to", False), "have allergy to": ("allergic_to", False),
    "be intolerant to": ("allergic_to", False), "be intolerant of": ("allergic_to", False),
    "be friends with": ("friend_of", False), "be friend of": ("friend_of", False),
    # things people have and do
    "own": ("owns", False), "drive": ("owns", False), "buy": ("owns", False), "get": ("owns", False),
    "adopt": ("owns", False), "have": ("owns", False), "sell": ("owns", _R),
    "train for": ("training_for", False), "prepare for": ("training_for", False), "sign up for": ("training_for", False),
    "learn": ("learning", False), "study": ("learning", False), "practise": ("learning", False),
    "practice": ("learning", False), "take lessons in": ("learning", False),
    "speak": ("speaks", False), "be fluent in": ("speaks", False),
    "play": ("plays", False), "play for": ("member_of", False), "belong to": ("member_of", False),
    "be member of": ("member_of", False), "sing in": ("member_of", False),
    "report to": ("reports_to", False), "read": ("reading", False),
    # code
    "use": ("uses", False), "rely on": ("uses", False), "build with": ("uses", False), "build on": ("uses", False),
    "switch to": ("uses", False), "migrate to": ("uses", False), "bundle with": ("uses", False),
    "lint with": ("uses", False), "format with": ("uses", False), "test with": ("uses", False),
    "store in": ("uses", False), "cache in": ("uses", False), "keep in": ("uses", False),
    "talk to": ("uses", False), "integrate with": ("uses", False), "consume": ("uses", False),
    "roll out": ("uses", False), "manage in": ("uses", False),
    "generate with": ("uses", False), "deploy with": ("uses", False), "document with": ("uses", False),
    "write to": ("uses", False),
    "publish to": ("runs_on", False),
    "set up": ("uses", False), "configure": ("uses", False), "read with": ("uses", False),
    "drop": ("uses", _R), "remove": ("uses", _R), "ditch": ("uses", _R), "abandon": ("uses", _R),
    "get rid of": ("uses", _R), "deprecate": ("uses", _R),
    "depend on": ("depends_on", False), "require": ("depends_on", False), "need": ("depends_on", False),
    "import": ("imports", False), "call": ("calls", False), "invoke": ("calls", False),
    "extend": ("extends", False), "inherit from": ("extends", False), "subclass": ("extends", False),
    "implement": ("implements", False),
    "write in": ("written_in", False), "implement in": ("written_in", False), "rewrite in": ("written_in", False),
    "port to": ("written_in", False),
    "run on": ("runs_on", False), "deploy on": ("runs_on", False), "deploy to": ("runs_on", False),
    "host on": ("runs_on", False), "host at": ("runs_on", False), "host by": ("runs_on", False),
    "deploy": ("runs_on", False), "ship to": ("runs_on", False),
    "be compatible with": ("supports", False), "work with": ("supports", False), "be dependent on": ("depends_on", False),
    "maintain": ("owns", False), "lead": ("owns", False), "be responsible for": ("owns", False),
    "be in charge of": ("owns", False), "manage": ("owns", False),
    "be part of": ("part_of", False),
    "locate in": ("located_in", False), "headquarter in": ("located_in", False),
    "rename to": ("renamed_to", False), "configure in": ("configured_in", False), "set in": ("configured_in", False),
}

#: Phrases whose predicate depends on who the subject is: (person subject, thing subject); "" for none.
BY_SUBJECT: dict[str, tuple[str, str]] = {
    "move to": ("lives_in", "uses"),
    "live in": ("lives_in", "part_of"),
    "support": ("likes", "supports"),
    "work with": ("", "supports"),
    "join": ("works_at", "uses"),
    "come from": ("from", "uses"),
    "get": ("owns", "uses"),
    "have": ("owns", "uses"),
    # a thing writes to a store, is published to a host; a person who writes to a friend states no such fact
    "write to": ("", "uses"),
    "publish to": ("", "runs_on"),
}

#: "X is done", "X is blocked": the values of ``status``.
STATUSES = frozenset(
    "done blocked deprecated complete completed finished shipped merged broken fixed released live paused archived "
    "cancelled canceled stale flaky removed decommissioned unmaintained".split()
) | {"in progress", "on hold"}

#: Nouns after "my" that make a person fact ("my sister Emma": Emma sister_of User); spelling variants map.
RELATIVES: dict[str, str] = {
    w: w for w in (
        "sister brother mother father mum mom dad wife husband partner son daughter boss manager friend "
        "colleague coworker roommate cousin aunt uncle grandmother grandfather grandma grandpa girlfriend "
        "boyfriend fiance fiancee fiancé fiancée doctor dentist therapist landlord landlady neighbour neighbor "
        "mentor teacher coach niece nephew stepmother stepfather sister-in-law brother-in-law mother-in-law "
        "father-in-law flatmate housemate twin kids children twins parents grandparents"
    ).split()
} | {"flatmate": "roommate", "housemate": "roommate", "boss": "manager", "friends": "friend",
       "twins": "child", "kids": "child", "children": "child"} | {  # "my twins, Ada and Leo": children
    f"{w}-in-law": f"{w}_in_law" for w in "sister brother mother father son daughter".split()}  # a predicate name

#: "I'm a vegetarian": what someone is (is_a) rather than their job (works_as).
IS_A_NOUNS = frozenset(
    "vegetarian vegan pescatarian carnivore introvert extrovert runner morning night owl person parent student "
    "smoker non-smoker beginner".split()
)
#: Last words of job titles ("data analyst", "SRE lead", "food scientist").
JOB_WORDS = frozenset(
    """engineer developer analyst scientist designer architect nurse doctor paramedic vet teacher lawyer
    accountant manager lead consultant researcher professor lecturer writer editor journalist chef baker
    pharmacist dentist therapist electrician plumber pilot firefighter officer programmer administrator
    librarian photographer artist musician tester director founder cto ceo intern surgeon midwife""".split()
)
#: Verbs after which what follows is a plan, a wish or a guess: no fact.
HEDGE_VERBS = frozenset(
    "think consider plan want hope wish intend wonder guess suppose try look thinking aim expect".split()
)
HEDGE_MODALS = frozenset("might may could should would must shall ca can".split()) - {"ca", "can"}
#: Words that turn a present fact into a finished one ("no longer", "not … anymore").
ENDED_WORDS = frozenset({"anymore", "longer", "formerly", "previously", "once"})
#: Verbs whose simple past says the state is over ("I worked at Google", "lived in Rome").
STATE_VERBS = frozenset("live work study own use teach play reside stay belong run depend".split())
#: Objects after "join"/"go to" that are groups or schools, not employers.
GROUP_WORDS = frozenset("club choir team band group society league union orchestra circle class forum".split())
SCHOOL_WORDS = frozenset(
    "school primary academy nursery college university lycée lycee kindergarten gymnasium institute".split()
)

# -- the kinds of entity each predicate joins ------------------------------------------------------
#
# Trigger: a candidate fact whose ends are of the wrong kind ("Team lives_in Valkey", "black uses
# ruff", "User lives_in coffee"). Why: a wrong fact costs more than a missing one. Outcome: the
# extraction stores a fact only when both ends can be of the kinds its predicate declares; an end
# it cannot tell (NAME: a capitalised word it knows nothing else about) fits where NAME is listed,
# at a lower confidence.

PERSON, GROUP, PLACE, TECH, CODE, THING, VALUE, NAME = "person", "group", "place", "tech", "code", "thing", "value", "name"
_WHO = frozenset({PERSON, GROUP, NAME})
_PEOPLE = frozenset({PERSON, NAME})
_SYSTEM = frozenset({THING, TECH, CODE, NAME})
_NOT_WHO = frozenset({PLACE, TECH, CODE, THING, NAME, GROUP})

#: predicate -> (kinds its subject may be, kinds its object may be)
SIGNATURES: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "lives_in": (_WHO, frozenset({PLACE, NAME})),
    "works_at": (_PEOPLE, frozenset({GROUP, NAME, TECH, THING})),  # TECH: "Spotify"; THING: "the bakery"
    "works_as": (_PEOPLE, frozenset({THING, NAME})),
    "studies_at": (_PEOPLE, frozenset({GROUP, PLACE, NAME, THING})),
    "from": (_PEOPLE, frozenset({PLACE, NAME})),
    "likes": (_WHO, _NOT_WHO), "dislikes": (_WHO, _NOT_WHO),
    "prefers": (_WHO | {THING}, _NOT_WHO),
    "allergic_to": (_PEOPLE, frozenset({THING, NAME})),
    "owns": (_WHO, _SYSTEM | {GROUP}),
    "training_for": (_PEOPLE, frozenset({THING, NAME})), "learning": (_PEOPLE, _NOT_WHO - {GROUP}),
    "speaks": (_PEOPLE, frozenset({THING, NAME})), "plays": (_PEOPLE, frozenset({THING, NAME, TECH})),
    "reading": (_PEOPLE, frozenset({THING, NAME})),
    "member_of": (_PEOPLE, frozenset({GROUP, THING, NAME})),
    "reports_to": (_PEOPLE, _PEOPLE),
    "uses": (_WHO | _SYSTEM, _SYSTEM),
    "depends_on": (_SYSTEM, _SYSTEM), "imports": (_SYSTEM, _SYSTEM), "calls": (_SYSTEM, _SYSTEM),
    "extends": (_SYSTEM, _SYSTEM), "implements": (_SYSTEM, _SYSTEM),
    "is_a": (_NOT_WHO | _PEOPLE, _NOT_WHO),
    "written_in": (_SYSTEM, frozenset({TECH, NAME, CODE})),
    "runs_on": (_SYSTEM | {GROUP}, _SYSTEM),
    "supports": (_SYSTEM, _SYSTEM),
    "part_of": (_SYSTEM, frozenset({THING, CODE, NAME})),
    "located_in": (frozenset({GROUP, THING, NAME, PLACE}), frozenset({PLACE, NAME})),
    "renamed_to": (_SYSTEM | {GROUP}, _SYSTEM | {GROUP}),
    "status": (_SYSTEM | {GROUP}, frozenset({VALUE})),
    "uses_version": (_SYSTEM, frozenset({VALUE})),
    "configured_in": (_SYSTEM, frozenset({CODE, THING, NAME})),
}
#: "sister_of", "manager_of" (people to people) and "favorite_colour" (a person's favourite anything).
RELATIVE_SIGNATURE = (_PEOPLE, frozenset({PERSON}))
FAVORITE_SIGNATURE = (frozenset({PERSON}), _NOT_WHO | {PERSON})
#: "has_primary_database", "has_tech_lead": a named holder's attribute, whose value may be any kind.
ATTRIBUTE_SIGNATURE = (_NOT_WHO | _PEOPLE, _NOT_WHO | _PEOPLE | {VALUE})

#: Last words of a name that make it a group of people ("the platform team", "city council").
GROUP_NOUNS = frozenset(
    "team teams company council department office agency ministry committee squad guild org organisation "
    "organization club choir band society league union orchestra firm startup bank hospital".split()
)
_VERSION = re.compile(r"v?\d+(?:\.\d+)*(?:[a-z]\d*)?")
_CODE_SHAPE = re.compile(r"[\w.-]*(?:[a-z][A-Z]|_|/|\.[a-z]|\(\))[\w./()-]*")


def kind(name: str, type_: str | None) -> str | None:
    """What kind of entity a name is, as far as its spelling and type tell; None: not a name at all."""
    from knotwork.knowledge.lexicon import MULTIWORD_TECH, PLACES, TECH as KNOWN_TECH

    text = name.strip()
    if not any(ch.isalnum() for ch in text):
        return None
    if text in ("User",) or text.startswith(("User's ", "Team's ")):
        return PERSON
    if text == "Team":
        return GROUP
    if type_ in ("version", "status") or (type_ != "technology" and _VERSION.fullmatch(text.lower())):
        return VALUE
    if type_ == "person":
        return PERSON
    if type_ in ("identifier", "function", "file", "url"):
        return CODE
    if type_ == "technology" or text.lower() in KNOWN_TECH or text.lower() in MULTIWORD_TECH:
        return TECH
    if text.islower() and text in PLACES:
        return PLACE  # "utah" in chat: a place written in lower case
    words = text.split()
    last = words[-1].lower()
    if last in GROUP_NOUNS:
        return GROUP
    if text.lower() in RELATIVES:
        return PERSON
    if _CODE_SHAPE.fullmatch(text) and len(words) == 1:
        return CODE
    if not text[:1].isupper() or (len(words) > 1 and not words[-1][:1].isupper() and not words[-1][:1].isdigit()):
        return THING  # "the session store", "coffee", "Postgres cluster": a thing named by a common noun
    return NAME


def signature(predicate: str) -> tuple[frozenset[str], frozenset[str]] | None:
    if predicate in SIGNATURES:
        return SIGNATURES[predicate]
    if predicate.startswith("favorite_"):
        return FAVORITE_SIGNATURE
    if predicate.startswith("has_"):
        return ATTRIBUTE_SIGNATURE
    if predicate.endswith("_of"):
        return RELATIVE_SIGNATURE
    return None


def fit(predicate: str, subject: str, subject_type: str | None, obj: str, object_type: str | None,
        replaces: str | None = None) -> float:
    """How well a candidate fits its predicate's kinds: 1.0 both ends known to fit, 0.85 per end the
    extraction cannot tell, 0.0 when an end (or the value it replaces) is of a kind the predicate refuses."""
    sig = signature(predicate)
    if sig is None:
        return 0.0  # offline extraction writes only the vocabulary's predicates
    ends = [(kind(subject, subject_type), sig[0]), (kind(obj, object_type), sig[1])]
    if replaces:
        ends.append((kind(replaces, None), sig[1]))
    score = 1.0
    for k, allowed in ends:
        if k is None or k not in allowed:
            return 0.0
        if k == NAME:
            score *= 0.85
    return score
