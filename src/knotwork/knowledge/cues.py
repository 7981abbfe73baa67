"""Cues in a parsed sentence that say how a clause holds: hedges, negation, tense, years, coordination,
"instead of", and which tokens are verbs of a clause. Pure functions over spaCy tokens, used by
:mod:`knotwork.knowledge.parse`."""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime, timedelta, timezone
from typing import Any

from knotwork.knowledge import vocabulary as V

HEDGE_ADVERBS = frozenset("maybe perhaps probably possibly hopefully".split())
RETIRED_MODS = frozenset("old former ex college school childhood".split())
#: Adverbs that say a value replaced an earlier one ("we now use X instead of Y").
NOW = frozenset("now nowadays anymore".split())


#: Words that add a value rather than replace one ("now also runs on X", "X as well", "X too").
ADDITIVE = frozenset("also too additionally both another plus alongside".split())
#: Many-valued predicates whose values take turns: a subject holds several over time, usually one at a
#: time (where a service runs, someone's job title, school, training goal, current book). "now" on one of
#: these ends the value before. Not ``uses``: it gathers values of many roles (an editor, a database, a
#: bank), so "I now use Docker" does not say which one it replaced; nor tastes, languages, memberships,
#: which accumulate.
TURNS = frozenset({"runs_on", "works_as", "studies_at", "training_for", "reading"})


#: Nouns after "I am a ..." that another reading turns into the fact ("fan": likes, "student": studies_at).
READ_ELSEWHERE = frozenset("fan fans student pupil".split())
QUANTITY = frozenset("bit lot couple lots few little".split())


def conjuncts(tok: Any) -> list[Any]:
    if tok.lower_ in QUANTITY:  # "a bit of Italian"
        inner = [q for p in tok.children if p.lower_ == "of" for q in p.children if q.dep_ == "pobj"]
        if inner:
            tok = inner[0]
    out = [tok]
    for c in tok.children:
        if c.dep_ == "conj" and (c.pos_ != "VERB" or (c.tag_ == "VBG" and tok.tag_ in ("VBG", "NN", "NNS"))):
            if any(t.lower_ == "not" for t in tok.doc[tok.i + 1 : c.i]):
                continue  # "uses Poetry, not pip-tools": what follows "not" is not used
            out += conjuncts(c)
    for c in tok.children:  # "two dogs, Pepper and Biscuit": the names stand for the noun
        if c.dep_ == "appos" and c.pos_ == "PROPN" and tok.pos_ == "NOUN":
            return conjuncts(c)
    return out


def relative(tok: Any) -> tuple[str, bool] | None:
    """(relation, retired) when ``tok`` is "my sister", "my old flatmate", "one of my friends"."""
    word = tok.lower_
    if any(c.dep_ == "prep" and c.lower_ == "in" and any(g.lower_ == "law" for g in c.children) for c in tok.children):
        word = f"{word}-in-law"  # "my brother-in-law", parsed as "brother" + "in law": not a brother
        if word not in V.RELATIVES:
            return None
    elif word not in V.RELATIVES and tok.lemma_ not in V.RELATIVES:
        return None
    possessors = [c for c in tok.children if c.dep_ == "poss"]
    if not possessors and tok.dep_ == "pobj" and tok.head.head.lower_ == "one":
        possessors = [c for c in tok.children if c.lower_ == "my"]
    if not any(p.lower_ in ("my", "our") for p in possessors):
        return None
    rel = V.RELATIVES.get(word) or V.RELATIVES[tok.lemma_]
    rel = {"friends": "friend"}.get(rel, rel)
    if rel.endswith("s") and rel[:-1] in V.RELATIVES:
        rel = rel[:-1]
    retired = any(c.lower_ in RETIRED_MODS for c in tok.children if c.dep_ in ("amod", "compound"))
    return rel, retired


def children(tok: Any, *deps: str) -> list[Any]:
    return [c for c in tok.children if c.dep_ in deps]


#: Words that put a clause's time after the memory's own ("next week", "tomorrow", "soon"): a plan.
_AHEAD = frozenset("tomorrow soon shortly upcoming".split())
_NEXT_UNITS = frozenset("""week weekend month quarter year sprint release cycle spring summer autumn fall winter monday
    tuesday wednesday thursday friday saturday sunday""".split())
#: Marks of a subordinate clause that makes a present-tense main clause conditional ("Once the review passes, we
#: switch the web app to Vite", "If CI is green, the bot merges"): what happens then is not what is.
_IF_MARKS = frozenset("if once unless whenever when".split())


def ahead(verb: Any) -> bool:
    """Is the clause of ``verb`` set after the memory's time ("next week we move the CI to X", "we switch to X
    tomorrow"), or made conditional by a subordinate clause of a present-tense verb ("once the review passes we
    switch …")? Trigger: a change said in the present with such a time or condition. Why: it is a plan; read as
    current, it would retire a value that still holds (GUIDE.md: future dates and conditions state nothing).
    Outcome: the clause is hedged, as "will" makes it."""
    present = verb.tag_ in ("VBP", "VBZ", "VB")
    marks = [m for m in verb.children if m.dep_ == "mark"]
    if verb.dep_ == "ccomp" and verb.head.tag_ in ("VBP", "VBZ"):  # "Once the review passes we switch …" parsed
        marks += [m for m in verb.head.children if m.dep_ == "mark"]  # with "switch" under "passes"
    if present and any(m.lower_ in _IF_MARKS for m in marks):
        return True
    for c in verb.children:
        if c.dep_ in ("npadvmod", "advmod") and (c.lower_ in _AHEAD or (
                c.lower_ in _NEXT_UNITS and any(a.lower_ == "next" for a in c.children))):
            return True
        if c.dep_ == "prep" and c.lower_ in ("in", "within") and any(
                o.lower_ in UNITS and _count(o) and not any(a.lower_ in ("last", "past") for a in o.children)
                for o in children(c, "pobj")) and present:
            return True  # "we switch to X in two weeks"
        if c.dep_ == "advcl" and present and any(
                m.dep_ == "mark" and m.lower_ in _IF_MARKS for m in c.children) and c.tag_ in ("VBP", "VBZ", "VB"):
            return True
    if verb.lemma_ in _STARTS and (present or verb.tag_ == "VBG") and any(
            c.dep_ == "prep" and c.lower_ == "on" and any(o.lower_ in _WEEKDAYS for o in children(c, "pobj"))
            for c in verb.subtree):
        return True  # "starting at Lumen on Monday", "I start at a startup called Lumen on Monday": a job to come
    return False


#: Verbs of starting something; with one weekday ("on Monday", not "on Mondays") in the present, a plan.
_STARTS = frozenset("start begin join".split())
_WEEKDAYS = frozenset("monday tuesday wednesday thursday friday saturday sunday".split())


#: Heads that doubt the clause under them when negated ("not sure", "no idea", "nobody is certain"), or
#: always ("unsure", "unclear").
_DOUBT = frozenset("sure certain idea clue".split())
_DOUBT_ALWAYS = frozenset("unsure unclear uncertain".split())
#: Change verbs whose progressive says the change is under way, not done ("we're migrating X from A to B").
_UNDER_WAY = frozenset("migrate switch port transition convert rewrite upgrade".split())


def doubted(verb: Any) -> bool:
    """Is the clause of ``verb`` an indirect question ("whether the mailer uses SES") or under a head that
    doubts it ("I'm not sure the worker needs Celery", "No idea where I left the keys", "it's unclear if …")?
    Trigger: a ``whether`` mark, or a ccomp/relcl/advcl under sure/certain/idea/clue with a negation (a ``not``
    on it or on its verb, ``no``, a subject ``nobody``), or under unsure/unclear. Why: the speaker states
    nothing; read as a fact it is a wrong one stored at the parse's confidence. Outcome: hedged."""
    if any(c.dep_ == "mark" and c.lower_ == "whether" for c in verb.children):
        return True
    if verb.dep_ not in ("ccomp", "relcl", "advcl") or verb.head.i == verb.i:
        return False
    head = verb.head
    if head.lemma_ in _DOUBT_ALWAYS:
        return True
    if head.lemma_ not in _DOUBT:
        return False
    holders = [head] + ([head.head] if head.dep_ in ("acomp", "attr", "dobj") else [])
    return any(c.dep_ == "neg" or (c.dep_ == "det" and c.lower_ == "no")
               or (c.dep_ == "nsubj" and c.lower_ in ("nobody", "noone", "no-one"))
               for h in holders for c in h.children)


def is_hedged(verb: Any) -> bool:
    if ahead(verb):
        return True
    t = verb
    for _ in range(4):
        if doubted(t):
            return True
        if any(c.dep_ == "aux" and c.lower_ in V.HEDGE_MODALS for c in t.children):
            return True
        if any(c.dep_ == "advmod" and c.lower_ in HEDGE_ADVERBS for c in t.children):
            return True
        if t.lemma_ in V.HEDGE_VERBS and t.i != verb.i:
            return True
        if any(c.dep_ == "aux" and c.lower_ in ("will", "'ll", "gonna") for c in t.children):
            return True
        if t.dep_ in ("xcomp", "ccomp", "conj", "pcomp", "advcl") and t.head.i != t.i:
            if t.dep_ == "pcomp" and t.head.head.lemma_ in V.HEDGE_VERBS:
                return True
            t = t.head if t.dep_ != "pcomp" else t.head.head
            continue
        break
    if verb.tag_ == "VBG" and verb.lemma_ in ("move", "go", "fly", "leave", "start", "get", "visit", "sell", "buy") and any(
            c.dep_ == "aux" and c.lemma_ == "be" for c in verb.children):
        return True  # "is moving to Madrid", "are going to Tromsø": a plan
    if verb.tag_ == "VBG" and verb.lemma_ in _UNDER_WAY and any(c.dep_ == "aux" and c.lemma_ == "be" for c in verb.children):
        return True  # "we're migrating the orders DB from MySQL to Postgres": under way, nothing changed yet
    if verb.tag_ == "VBG" and verb.lemma_ == "move" and not any(c.lower_ in ("been", "was", "were") for c in verb.children):
        return True  # "now im moving to Provo again", "(moving to the BYU homeland :)": a plan or an aside, not a home
    return verb.lemma_ in V.HEDGE_VERBS


def negated(verb: Any) -> bool:
    for c in verb.children:
        if c.dep_ == "neg" and c.i > verb.i + 1 and c.doc[c.i - 1].text == "," and c.i + 1 < len(c.doc) \
                and c.doc[c.i + 1].pos_ in ("PROPN", "NOUN", "ADP", "NUM", "DET", "X"):
            continue  # "CI runs on GitLab now, not CircleCI": the "not" is on the other name, not the clause
        if c.dep_ == "neg" or c.lower_ in ("never", "anymore") or (c.dep_ == "advmod" and c.lemma_ in ("long",) and
                                                                   any(g.lower_ == "no" for g in verb.children)):
            return True
        if c.dep_ == "advmod" and c.lower_ in V.ENDED_WORDS:
            return True
        if c.dep_ == "advmod" and c.lower_ == "more" and any(g.lower_ == "any" for g in c.children):
            return True
    return False


def disliked(verb: Any) -> bool:
    """ "I really don't like oat milk", "she doesn't enjoy crowds": a present taste against the thing (dislikes),
    not a liking that ended. Trigger: like/enjoy with a negation and a present "do"; "never", "any more", "no
    longer" or a past "didn't" keep the reading of a taste that is over."""
    if verb.lemma_ not in ("like", "enjoy") or not any(c.dep_ == "neg" and c.lower_ in ("not", "n't") for c in verb.children):
        return False
    if not any(c.dep_ == "aux" and c.lemma_ == "do" and c.tag_ in ("VBP", "VBZ") for c in verb.children):
        return False
    return not any(c.lower_ in ("never", "anymore") or c.lower_ in V.ENDED_WORDS
                   or (c.lower_ == "more" and any(g.lower_ == "any" for g in c.children)) for c in verb.children)


def state_past(verb: Any) -> bool:
    """A simple past of a state verb ("I worked at Google"): over, unless "since" or a perfect says otherwise;
    a past move with a length of stay (:func:`stay_over`) is over too."""
    if stay_over(verb):
        return True
    if verb.tag_ != "VBD" or verb.lemma_ not in V.STATE_VERBS:
        return False
    if any(c.lower_ in ("have", "has", "'ve") for c in verb.children):
        return False
    return not any(w.lower_ == "since" for w in verb.subtree)


_STAY_UNITS = frozenset("year years month months week weeks day days".split())


def stay_over(verb: Any) -> bool:
    """"I moved to Lexington for 5 years": a past move with a length of stay is a home that ended (not "for the
    past 5 years", which runs up to now)."""
    if verb.tag_ != "VBD" or verb.lemma_ not in ("move", "relocate"):
        return False
    for p in [c for c in verb.children if c.dep_ == "prep" and c.lower_ == "for"] + [
            q for c in verb.children if c.dep_ == "prep" for o in c.children for q in o.subtree
            if q.dep_ == "prep" and q.lower_ == "for"]:
        for o in children(p, "pobj"):
            if o.lower_ in _STAY_UNITS and not any(c.lower_ in ("past", "last", "next") for c in o.children):
                return True
    return False


def tech_name(name: tuple[str, str | None] | None) -> bool:
    return name is not None and name[1] in ("technology", "identifier", "function", "file", "url")


def place_name(tok: Any) -> bool:
    """"moved to Aroura illinois": a title-case proper noun before a lower-case one is a place typed in lower case,
    not a tool ("moved to postgres")."""
    from knotwork.knowledge.lexicon import TECH

    if tok.lower_ in _HOMES and (tok.pos_ == "NOUN" or tok.dep_ == "pobj"):  # "moved to a new place in Brooklyn": a home, not a tool
        return True
    return any(c.dep_ == "compound" and c.pos_ == "PROPN" and c.text.istitle() and c.lower_ not in TECH
               for c in tok.children)


#: Nouns for a home (the place named after them is where one lives).
_HOMES = frozenset("flat apartment place house home room studio bedsit condo".split())


def school(tok: Any) -> bool:
    return any(w.lower_ in V.SCHOOL_WORDS for w in tok.subtree)


def technical(tok: Any) -> bool:
    from knotwork.knowledge.lexicon import TECH

    return tok.lower_ in TECH or tok.text[:1].islower() or any(c.isupper() for c in tok.text[1:])


def year(verb: Any) -> datetime | None:
    """The year of "in 2023" / "back in 2023" on the verb's clause (1900-2100), as its first instant."""
    for p in [c for c in verb.children if c.dep_ == "prep" and c.lower_ == "in"] + [
            p for a in verb.children if a.dep_ == "advmod" and a.lower_ == "back" for p in a.children if p.lower_ == "in"]:
        for o in children(p, "pobj"):
            if re.fullmatch(r"(19|20)\d\d", o.text) and 1900 <= int(o.text) <= 2100:
                return datetime(int(o.text), 1, 1, tzinfo=timezone.utc)
    return None


def now_changed(verb: Any) -> bool:
    """"The API is now deployed on Fly.io": "now" on the clause's own verb says the value before is over,
    unless a word adds the value to it ("now also", "as well", "too"). Not "for now" (a stopgap, no change)
    nor "now that …" (a reason)."""
    nows = [c for c in verb.children if c.lower_ == "now" and c.dep_ == "advmod"]
    if not nows or any(n.i + 1 < len(n.doc) and n.doc[n.i + 1].lower_ == "that" for n in nows):
        return False
    for tok in verb.subtree:
        if tok.lower_ in ADDITIVE or (tok.lower_ == "well" and tok.i > 0 and tok.doc[tok.i - 1].lower_ == "as"):
            return False
    return True


#: Units of a relative time ("two years ago", "last month") and the number words before them.
UNITS = {"day": "day", "days": "day", "week": "week", "weeks": "week", "weekend": "weekend", "month": "month",
         "months": "month", "year": "year", "years": "year"}
NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
           "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "couple": 2}
MONTHS = {m: i for i, m in enumerate(
    "january february march april may june july august september october november december".split(), 1)}


def _count(unit: Any) -> int | None:
    for c in unit.children:
        if c.dep_ in ("nummod", "det") and (c.lower_ in NUMBERS or c.text.isdigit()):
            n = NUMBERS.get(c.lower_) or int(c.text)
            return n if 0 < n <= 100 else None
    return None


def _ago(adv: Any) -> str | None:
    """"two years ago", "a month ago", "a couple of weeks ago": ``ago:<n>:<unit>``."""
    for c in adv.children:
        if c.dep_ != "npadvmod":
            continue
        if c.lower_ in UNITS:
            n = _count(c)
            return f"ago:{n}:{UNITS[c.lower_]}" if n else None
        if c.lower_ == "couple":  # "a couple of months ago"
            units = [o for p in c.children if p.lower_ == "of" for o in p.children if o.lower_ in UNITS]
            return f"ago:2:{UNITS[units[0].lower_]}" if units else None
    return None


def _point(tok: Any) -> str | None:
    """What a time noun names: "last month" ``last:month``, "March" ``month:3``, "2021" ``year:2021``."""
    if tok.lower_ in UNITS and any(c.lower_ == "last" for c in tok.children if c.dep_ == "amod"):
        return f"last:{UNITS[tok.lower_]}"
    if tok.lower_ in MONTHS and tok.text[:1].isupper() and not any(c.dep_ == "nummod" for c in tok.children):
        return f"month:{MONTHS[tok.lower_]}"
    if re.fullmatch(r"(19|20)\d\d", tok.text):
        return f"year:{tok.text}"
    return None


def when(verb: Any) -> str | None:
    """The time a clause names relative to the memory's own ("two years ago", "last month", "yesterday",
    "since March", "in 2022", "have … for two years"), as a short spec :func:`resolve_when` turns into a time once the memory's
    time is known; None when it names none."""
    for c in verb.children:
        if c.dep_ == "advmod" and c.lower_ == "ago":
            return _ago(c)
        if c.dep_ == "npadvmod":
            if c.lower_ == "yesterday":
                return "ago:1:day"
            point = _point(c)
            if point and point.startswith("last:"):
                return point
        if c.dep_ == "prep" and c.lower_ in ("since", "in"):
            for o in children(c, "pobj"):
                point = _point(o)
                if point:
                    return point
        if c.dep_ == "prep" and c.lower_ == "for" and any(a.lower_ in ("have", "has", "'ve", "'s") for a in verb.children
                                                           if a.dep_ == "aux"):
            for o in children(c, "pobj"):  # "I've lived in Berlin for two years": since two years ago
                n = _count(o) if o.lower_ in UNITS else None
                if n:
                    return f"ago:{n}:{UNITS[o.lower_]}"
    return None


def _months_back(t: datetime, n: int) -> datetime:
    index = t.year * 12 + t.month - 1 - n
    year, month = divmod(index, 12)
    days = [31, 29 if year % 4 == 0 and (year % 100 or year % 400 == 0) else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
    return t.replace(year=year, month=month + 1, day=min(t.day, days[month]))


def resolve_when(spec: str | None, said_at: datetime) -> datetime | None:
    """The time ``spec`` (from :func:`when`) names in a memory dated ``said_at``; None when it names a time
    after it (a plan, or a misreading) or cannot be read.

    "N units ago" is ``said_at`` less N units; "yesterday" one day; "last week" seven days; "last weekend"
    the Saturday before; "last month" / "last year" and a bare month or year name the first instant of that
    period (a month name: its latest one not after ``said_at``), as the year cue does."""
    if not spec:
        return None
    kind, _, rest = spec.partition(":")
    start = said_at.replace(hour=0, minute=0, second=0, microsecond=0)
    found: datetime | None = None
    if kind == "ago":
        n_text, _, unit = rest.partition(":")
        n = int(n_text)
        if unit in ("day", "week", "weekend"):
            found = said_at - timedelta(days=n * (1 if unit == "day" else 7))
        elif unit == "month":
            found = _months_back(said_at, n)
        elif unit == "year":
            found = _months_back(said_at, 12 * n)
    elif kind == "last":
        if rest == "day":
            found = said_at - timedelta(days=1)
        elif rest == "week":
            found = said_at - timedelta(days=7)
        elif rest == "weekend":
            found = start - timedelta(days=(said_at.weekday() - 5) % 7 or 7)
        elif rest == "month":
            found = _months_back(start.replace(day=1), 1)
        elif rest == "year":
            found = start.replace(year=start.year - 1, month=1, day=1)
    elif kind == "month":
        found = start.replace(month=int(rest), day=1)
        if found > said_at:
            found = found.replace(year=found.year - 1)
    elif kind == "year":
        found = start.replace(year=int(rest), month=1, day=1)
    return found if found is not None and found <= said_at else None


#: Verbs that say a value was replaced ("switched to Zed", "migrated the billing service to PostgreSQL").
SWITCH_VERBS = frozenset("switch migrate move".split())


def turn_predicates(verb: Any) -> frozenset[str]:
    """The predicates whose value this clause says took over from the one before, without naming that one.

    "switched to Zed", "migrated the billing service to PostgreSQL" (a change verb with "to" and no
    "from"): the predicates of :data:`TURNS` and ``uses`` — the verb itself says a value was replaced.
    "is now deployed on Fly.io" (:func:`now_changed`): :data:`TURNS` only — "now" on ``uses`` does not
    say a value was replaced rather than added. Which value was replaced is left to the store: the one
    value held then, or none (``knowledge.facts.plan``)."""
    preps = {c.lower_ for c in verb.children if c.dep_ in ("prep", "dative")}
    if verb.lemma_ in SWITCH_VERBS and "to" in preps and "from" not in preps and not negated(verb):
        return TURNS | {"uses"}
    return TURNS if now_changed(verb) else frozenset()


def instead(verb: Any, names: Any) -> list[tuple[str, str | None]]:
    """The names after "instead of" or "rather than" in the clause of ``verb``."""
    found = []
    for tok in verb.subtree:
        if tok.lower_ not in ("of", "than") or tok.i == 0:
            continue
        cue = "instead" if tok.lower_ == "of" else "rather"
        if tok.doc[tok.i - 1].lower_ == cue or any(c.lower_ == cue for c in tok.children):
            for o in children(tok, "pobj"):
                n = names.name(o)
                if n:
                    found.append(n)
    return found


def verbs(sent: Any) -> Iterable[Any]:
    for tok in sent:
        if tok.pos_ in ("VERB", "AUX") and tok.dep_ in ("ROOT", "conj", "ccomp", "advcl", "relcl") \
                and not (tok.dep_ == "conj" and tok.head.pos_ not in ("VERB", "AUX")):
            if tok.pos_ == "AUX" and tok.lemma_ != "be":
                continue
            if tok.pos_ == "AUX" and tok.dep_ != "ROOT" and tok.head.pos_ == "VERB":
                continue
            yield tok


#: A question tagged onto a statement ("I live in Oregon, what about you?"): the statement still states.
_TAG_QUESTION = re.compile(r"[,;.!]\s*(?:(?:and\s+)?(?:what|how)\s+about\s+(?:you|yours)|and\s+you)\s*\?+$",
                           re.IGNORECASE)


def question_or_order(sent: Any) -> bool:
    text = _TAG_QUESTION.sub("", sent.text.rstrip())
    if text.endswith("?"):
        return True
    first = next((t for t in sent if not t.is_punct), None)
    if first is None:
        return True
    if first.dep_ == "ROOT" and first.tag_ == "VB" and first.lower_ not in ("moved",):
        return True  # "Use the logger", "Remember to rebase"
    if first.lower_ in ("can", "could", "should", "shall", "would", "will") and first.tag_ == "MD" and first.dep_ == "aux" \
            and first.i + 1 < sent.end and first.nbor().lower_ in ("we", "i", "you"):
        return True  # "Can we migrate from webpack to vite.": a question without its mark
    return first.lower_ in ("don't", "do", "never", "always", "please", "let's") and first.dep_ != "nsubj"
