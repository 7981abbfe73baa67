"""Readings of an attribute that holds one value at a time: "Harbor's primary database is MySQL 5.7".

Memories state a setting or a role without a verb that names a relation: "Harbor's primary database is
MySQL 5.7", later "… is PostgreSQL 16"; "the rate limit of the Harbor API is 300"; "Alice Chen is the tech
lead of Harbor", later "Bob Martinez is …". The clause readings of :mod:`knotwork.knowledge.parse` find no
fact there, so a change of value left the graph without either value. Three frames, each a rule name the
fact scorer weighs:

- ``parse:attr-possessive``: "X's <attribute> is <value>";
- ``parse:attr-of``: "the <attribute> of/for X is <value>";
- ``parse:role-of``: "<person> is the <role> of/for X" (a role from ``ROLES``, with "the": one holder), and of
  each member of a list ("the release manager for swift-llvm, swift-clang, and swift-compiler-rt": each has
  that one holder; a hyphenated lower-case name such as "swift-lldb" is a name);
- ``parse:schedule``: "X deploys happen every Tuesday", "X's backups run nightly" (an event from ``_EVENTS``):
  ``X has_deploy_schedule every Tuesday``.

Each gives ``X has_<attribute> <value>`` (``Harbor has_primary_database MySQL 5.7``, ``Harbor has_tech_lead
Alice Chen``). Why one predicate per attribute and not a generic ``attribute`` predicate carrying the name:
the graph keys a value's turn by (subject, predicate), so ``has_<attribute>`` makes the attribute that key
with no new field in the store, the web UI's fact lists and edges show it as they show every predicate, and
``has_*`` in ``kg_single_valued`` makes each attribute single-valued (a newer value retires the older at its
``valid_at``; an older one that arrives late arrives retired), as ``favorite_*`` does. "X's primary database"
and "X's cache" are two attributes, so they never retire each other; a role is keyed by the project that has
it, so "Alice is the tech lead of Harbor" and "Marcus is the tech lead of Quay" are two subjects ("Alice leads
platform" stays ``owns``, which collects values).

Strict by design (a wrong value costs more than a missing one): the verb is a present-tense "is/are" at the
root of its sentence with no negation, hedge, question, condition or clause under it; the holder is a name
(or "our": Team, as the labelling guide reads it; "the primary database is …" has no holder and gives nothing);
the value is a name (with its version), a number with its unit, a version, a day or time word, or a noun
phrase of at most three words; a value with "or"/"and", a pronoun, a verb or a clause of its own gives nothing.
"""

from __future__ import annotations

import re
from typing import Any

from knotwork.knowledge import cues as C
from knotwork.knowledge import vocabulary as V
from knotwork.knowledge.models import Extraction, FactDraft

#: Nouns of a role with one holder per team or project when said with "the" ("the tech lead of Harbor"). The
#: consolidation's holder rule (hygiene/consolidate.py) takes a new name over these roles only, so a memory and the
#: graph agree on which roles pass from one person to the next ("the best engineer on T" is no such role).
ROLES = frozenset(
    """lead leader manager owner maintainer head director chair chairperson captain coordinator architect
    administrator admin pm ceo cto cfo coo president editor steward champion contact liaison secretary treasurer
    sponsor""".split()
)
#: Heads after which "X's <head> is …" states no attribute with one value ("Harbor's problem is …").
_VAGUE = frozenset(
    """problem problems issue issues question questions idea ideas plan plans goal goals reason thing things
    point way part concern worry job task fault favorite favourite name one kind sort type lot bit fact
    advantage disadvantage benefit downside upside strength weakness trick secret story mistake""".split()
)
#: Day and time words a value may be ("every Tuesday", "daily", "noon").
_TIME_WORDS = frozenset(
    """monday tuesday wednesday thursday friday saturday sunday weekday weekdays weekend weekends daily weekly
    monthly hourly nightly yearly quarterly annually morning mornings afternoon evening night noon midnight
    day week month year hour minute""".split()
)
#: Words under a value that make it not a single stated value.
_NOT_ONE = frozenset("or and either nor not no maybe probably perhaps possibly approximately about around roughly "
                     "nearly almost circa".split())  # "approximately 1,220mAh": an estimate, not the value
_CONDITION = frozenset("if unless when whenever until once provided assuming".split())
_SLUG = re.compile(r"[^a-z0-9]+")
_HYPHENATED = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)+")


#: Words that say a value is the latest, not which attribute it is ("the new maintainer", "the current lead").
_NEW = frozenset("new current present".split())


def _attribute(noun: Any) -> str | None:
    """``has_<modifiers>_<head>`` for the subject noun ("primary database", "rate limit"), or None."""
    if noun.pos_ != "NOUN" or noun.lower_ in _VAGUE or noun.lemma_.lower() in _VAGUE or (
            noun.lower_ in V.RELATIVES and noun.lower_ not in ROLES):
        return None  # "Emma's husband is Tom": a relative, read as ``husband_of`` by the parse's relatives
    poss = {t.i for c in noun.children if c.dep_ == "poss" for t in c.subtree}
    mods = [t for t in noun.subtree if t.i < noun.i and t.i not in poss and t.dep_ != "det"]
    if any(t.dep_ not in ("compound", "amod") or t.pos_ not in ("NOUN", "ADJ", "PROPN") for t in mods) or len(mods) > 3:
        return None  # "the API rate limit", "primary database"; not "the very first thing we …"
    # "Christian Couder is the new maintainer of Sharness": the new holder of the one role, not a role of its own
    words = [c.lower_ for c in sorted(mods, key=lambda t: t.i) if c.lower_ not in _NEW] + [noun.lemma_.lower()]
    slug = _SLUG.sub("_", " ".join(words)).strip("_")
    return f"has_{slug}" if slug and not slug[0].isdigit() else None


def _holder(tok: Any, names: Any, listed: bool = False) -> tuple[str, str | None] | None:
    """The name of the one holding the attribute: a proper noun (or its regex span), never a pronoun; or a
    common noun phrase with a name in it, "the Node.js Error Messages initiative", "Electron's API working group"
    (its words, without "the"; modifiers only, no clause or preposition under it)."""
    if tok.pos_ == "NOUN":
        later = {t.i for c in tok.children if c.dep_ in ("conj", "cc") or (c.dep_ == "punct" and c.i > tok.i)
                 for t in c.subtree}  # "swift-llvm, swift-clang and …": each member is read on its own
        toks = [t for t in tok.subtree if not (t.dep_ == "det" and t.i < tok.i) and t.i not in later
                and not (t.dep_ == "punct" and t.text in (",", ";"))]
        if any(t.i > tok.i or t.dep_ not in ("compound", "amod", "poss", "case", "nmod", "punct") for t in toks
               if t is not tok) or len(toks) > 7 or len(toks) < 2:
            return None
        # Trigger: no proper noun in the phrase ("the mobile team"). Why: the labelling guide reads "Priya is the
        # tech lead for the mobile team" as Priya owns the team, and an unnamed holder ("the team", "the
        # project") is one the next memory may mean otherwise. Outcome: no attribute.
        text = tok.doc[toks[0].i : tok.i + 1].text
        # a hyphenated lower-case name is a name too ("swift-lldb", "swift-corelibs-xctest"): one word of letters
        # and hyphens, no space
        named = any(t.pos_ == "PROPN" for t in toks) or _HYPHENATED.fullmatch(text) is not None
        return (text, None) if named else None
    if tok.pos_ != "PROPN" or any(c.dep_ in ("prep", "relcl", "acl") or (c.dep_ == "conj" and not listed)
                                  for c in tok.children):
        return None  # "the version of Gunicorn in Debian": narrower than the name
    n = names.name(tok)
    if not n or n[0] in ("User", "Team"):
        return None
    if "'s " in n[0] or "’s " in n[0]:  # a regex span "Harbor's API" around the holder "Harbor"
        return tok.text, n[1]
    return n


def _members(tok: Any) -> list[Any]:
    """The members of a coordination headed by ``tok`` ("A, B, and C"): itself and its conjuncts, in order."""
    out, stack = [], [tok]
    while stack:
        t = stack.pop()
        out.append(t)
        stack += [c for c in t.children if c.dep_ == "conj"]
    return sorted(out, key=lambda t: t.i)


def _value(tok: Any, names: Any) -> tuple[str, str | None] | None:
    """The value a clause gives (the subtree of its ``attr``), when it has the shape of one value."""
    toks = list(tok.subtree)
    words = [t for t in toks if t.pos_ not in ("PUNCT", "DET")]
    if not words or len(words) > 6 or any(t.lower_ in _NOT_ONE for t in toks):
        return None
    if any(t.pos_ in ("VERB", "AUX", "PRON", "SCONJ") or t.dep_ in ("relcl", "acl", "advcl", "ccomp", "conj", "appos")
           for t in toks):
        return None
    if toks[0].pos_ == "DET" and toks[0].lower_ not in ("the", "a", "an", "every", "each"):
        return None  # "some …", "this …", "no …"
    text = tok.doc[words[0].i : words[-1].i + 1].text
    if toks[0].lower_ == "every":
        text = "every " + text  # "every Tuesday": the det is the value's meaning
    if tok.pos_ == "PROPN" and all(t.pos_ in ("PROPN", "NUM") for t in words):
        n = names.name(tok)
        if n and n[1] == "person" and all(t.pos_ == "PROPN" for t in words):
            return n
        return text, "technology" if n and n[1] == "technology" else None
    if any(t.pos_ == "NUM" or t.like_num for t in words):
        return text, "value"
    if tok.lower_ in _TIME_WORDS or tok.lemma_.lower() in _TIME_WORDS:
        return text, "value"
    if len(words) <= 3 and all(t.pos_ in ("NOUN", "ADJ", "PROPN") for t in words) and tok.pos_ in ("NOUN", "PROPN"):
        return text, None
    return None


def _plain(verb: Any) -> bool:
    """A present-tense "is/are" stated outright: no negation, hedge, condition or question."""
    if verb.lemma_ != "be" or verb.dep_ != "ROOT" or verb.tag_ not in ("VBZ", "VBP"):
        return False
    if C.negated(verb) or C.is_hedged(verb) or C.question_or_order(verb.sent):
        return False
    sent = verb.sent
    if sent.text.rstrip().endswith("?") or any(t.lower_ in _CONDITION and t.dep_ == "mark" for t in sent):
        return False
    return not any(c.dep_ in ("advcl", "ccomp", "conj", "aux", "auxpass") for c in verb.children)


#: Events that recur on a schedule ("Harbor deploys happen every Tuesday"), and the verbs that say when.
_EVENTS = frozenset("""deploy deployment release backup build standup stand-up meeting sync retro retrospective review
    demo planning sprint rotation cron job""".split())
_HAPPEN = frozenset("happen run occur ship go take".split())


def _schedule(verb: Any, names: Any) -> FactDraft | None:
    """"Harbor deploys happen every Tuesday", "Harbor's backups run nightly": ``has_<event>_schedule``."""
    if verb.lemma_ not in _HAPPEN or verb.dep_ != "ROOT" or verb.tag_ not in ("VBZ", "VBP", "VB"):  # the tagger reads
        # "deploys happen" as VB at times; with a subject and no auxiliary (refused below) it is the present
        return None
    if verb.lemma_ == "go" and not any(c.lower_ == "out" for c in verb.children):
        return None
    if verb.lemma_ == "take" and not any(c.lower_ == "place" for c in verb.children):
        return None
    if C.negated(verb) or C.is_hedged(verb) or C.question_or_order(verb.sent) or verb.sent.text.rstrip().endswith("?"):
        return None
    if any(c.dep_ in ("aux", "advcl", "ccomp", "conj", "dobj") for c in verb.children):
        return None
    subj = [c for c in verb.children if c.dep_ == "nsubj"]
    if len(subj) != 1 or subj[0].lemma_.lower() not in _EVENTS or subj[0].pos_ != "NOUN":
        return None
    owners = [c for c in subj[0].children if c.dep_ in ("poss", "compound") and c.pos_ == "PROPN"]
    if len(owners) != 1 or [c for c in subj[0].children if c.dep_ not in ("poss", "compound", "det")]:
        return None
    holder = _holder(owners[0], names)
    whens = []
    for c in verb.children:
        t = c
        if c.dep_ == "prep" and c.lower_ in ("on", "at"):
            t = next((q for q in c.children if q.dep_ == "pobj"), c)
        if t is not c or c.dep_ in ("npadvmod", "advmod"):
            if t.lower_ in _TIME_WORDS or t.lemma_.lower() in _TIME_WORDS or t.lower_[:-1] in _TIME_WORDS:
                whens.append(t)  # "nightly", "every weekday", "on Tuesdays"
    if holder is None or len(whens) != 1:
        return None
    t = whens[0]
    toks = [w for w in t.subtree if w.pos_ != "PUNCT"]
    if len(toks) > 3 or any(w.lower_ in _NOT_ONE for w in toks):
        return None
    value = t.doc[toks[0].i : toks[-1].i + 1].text
    return _draft(holder, f"has_{subj[0].lemma_.lower().replace('-', '_')}_schedule", (value, "value"), "schedule")


def _draft(holder: tuple[str, str | None], predicate: str, value: tuple[str, str | None], how: str) -> FactDraft | None:
    if holder[0].casefold() == value[0].casefold():
        return None
    return FactDraft(holder[0], predicate, value[0], subject_type=holder[1], object_type=value[1],
                     rule=f"parse:{how}")


def read(sent: Any, names: Any, out: Extraction) -> None:
    """The attribute facts of one parsed sentence (appended to ``out``)."""
    for verb in sent:
        if verb.dep_ != "ROOT":
            continue
        if verb.pos_ == "VERB":
            f = _schedule(verb, names)
            if f:
                out.facts.append(f)
            continue
        if not _plain(verb):
            continue
        subj = [c for c in verb.children if c.dep_ == "nsubj"]
        attr = [c for c in verb.children if c.dep_ == "attr"]
        if len(subj) != 1 or len(attr) != 1 or subj[0].i > attr[0].i:
            continue
        s, a = subj[0], attr[0]
        f: FactDraft | None = None
        if s.pos_ == "NOUN":
            pred = _attribute(s)
            poss = [c for c in s.children if c.dep_ == "poss"]
            of = [q for p in s.children if p.dep_ == "prep" and p.lower_ in ("of", "for") and len(list(p.children)) == 1
                  for q in p.children if q.dep_ == "pobj"]
            extra = [c for c in s.children if c.dep_ in ("relcl", "acl", "appos", "conj", "cc")]
            if pred is None or extra or len(poss) + len(of) != 1:
                continue
            if len([p for p in s.children if p.dep_ == "prep"]) != len(of):
                continue  # "Harbor's database for orders is …": a narrower attribute than the words say
            if poss and poss[0].lower_ == "our":  # "Our primary database is MySQL": the team's (GUIDE.md: our is Team)
                holder: tuple[str, str | None] | None = ("Team", "team")
            else:
                holder = _holder(poss[0], names) if poss else _holder(of[0], names)
            value = _value(a, names)
            if holder and value:
                f = _draft(holder, pred, value, "attr-possessive" if poss else "attr-of")
        elif s.pos_ == "PROPN" and a.pos_ == "NOUN" and a.tag_ == "NN" and a.lemma_.lower() in ROLES:
            if not any(c.dep_ == "det" and c.lower_ == "the" for c in a.children):
                continue  # "Alice is a maintainer of X": one of several
            if any(c.dep_ in ("conj", "cc") for c in s.children):
                continue  # "A and B are the champions of X": two holders
            of = [q for p in a.children if p.dep_ == "prep" and p.lower_ in ("of", "for", "on") for q in p.children
                  if q.dep_ == "pobj"]  # "Sara is the tech lead on Atlas" as "of Atlas"
            extra = [c for c in a.children if c.dep_ in ("relcl", "acl", "appos", "conj", "cc")]
            pred = _attribute(a)
            holders = [_holder(h, names, listed=True) for h in _members(of[0])] if len(of) == 1 else [None]
            person = names.name(s)
            if pred and all(holders) and person and not extra and person[0] not in ("User", "Team"):
                for holder in holders:  # "the release manager for swift-llvm, swift-clang, and swift-compiler-rt"
                    g = _draft(holder, pred, (person[0], person[1] or "person"), "role-of")  # type: ignore[arg-type]
                    if g:
                        out.facts.append(g)
                continue
        if f:
            out.facts.append(f)
