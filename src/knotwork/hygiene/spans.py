"""Where two token lists differ: the one replaced span both the supersession rules
(:mod:`~knotwork.hygiene.consolidate`) and the learned pair check (:mod:`~knotwork.hygiene.pair_scorer`) read,
with the words, bounds and negations they share with the readers of project text
(:mod:`~knotwork.hygiene.changes_read`) (neither the check nor those readers import the rules: the rules call
them)."""

from __future__ import annotations

import difflib
import re

MAX_SPAN = 3  # words a changed value may take on either side
MIN_LEAD = 2  # words before a changed value that the two texts share
SWAP_MAX = 3  # words a side of a value said "from A to B": a name or a version, not a clause
WORD = re.compile(r"[a-z0-9]+(?:[.'][a-z0-9]+)*")
RAW_WORD = re.compile(r"[A-Za-z0-9]+(?:[.'][A-Za-z0-9]+)*")  # the same tokens, case kept
PERSON = r"[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*){0,2}"  # a name of one to three capitalised words

# -- what a changed span is, read alike by the rules and the check (and the key reader's kinds) ----------------
# Time words are values ("deploys happen every Tuesday" -> "every weekday").
TIME_WORDS = frozenset(
    "monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays thursdays fridays "
    "saturdays sundays weekday weekdays weekend weekends day night morning evening afternoon daily nightly "
    "hourly weekly biweekly fortnightly monthly quarterly yearly annually january february march april may "
    "june july august september october november december early mid late q1 q2 q3 q4".split()
)
# Words of state are values ("the API is deprecated" -> "... is archived"); see also knowledge's STATUSES.
STATUS_WORDS = frozenset(
    "done blocked deprecated complete completed finished shipped merged broken fixed released live paused "
    "archived cancelled canceled stale flaky alpha beta stable experimental unmaintained maintained supported "
    "unsupported enabled disabled on off open closed active inactive".split()
)
# Nouns that name a kind of value: the word in their place is a value of that kind ("status: stable").
KIND_NOUNS = frozenset("status state phase stage tier plan mode level".split())
# Nouns after which a number names which one rather than a value ("note number 6", "PR 123", "marker mk6").
WHICH_ONE = frozenset(
    "number no num id pr mr issue ticket bug marker note item step position page chapter section line row column "
    "figure table case test example option rule task job build commit part episode lesson round phase stage "
    "session volume slide".split()
)
# ... and the prefixes of numbered proposals and records ("PEP 788", "RFC 9110", "KEP-1287", "ADR 23"): one person
# sponsors, one body accepts, many of them; the number says which one. Kept apart from WHICH_ONE, which the pair
# scorer's shipped weights were fitted on.
NUMBERED = WHICH_ONE | frozenset("pep rfc kep tep adr cve bpo psr jep nep rfd".split())


def which_year(before: str, gone: list[str], came: list[str], after: str | None) -> bool:
    """Does a year swapped for a year say which thing, not when ("is on the 2025 term Steering Council" /
    "the 2026 term ..."; "won the 2024 election")? One year a side, after "the", before a word that is no
    function word (:data:`AFTER_VALUE`): the year modifies the noun after it."""
    years = all(len(t) == 1 and re.fullmatch(r"(?:19|20)\d\d", t[0]) for t in (gone, came))
    return years and before == "the" and after is not None and after not in AFTER_VALUE


def heading_crossed(text: str, start: int, end: int) -> bool:
    """Does the token span ``[start, end)`` of ``text`` (its :data:`RAW_WORD` tokens, read as one frame by
    :func:`frame_tokens`) run across a heading's colon ("3.15.0 alpha 4: Tuesday, 2026-01-13" / "... alpha 5:
    Wednesday, ...")? The words before the colon name what the line is about and the words after it its value;
    a span on both sides changes the subject too, and two headings about two things both hold. A colon inside
    a time ("09:00") is no heading."""
    at = re.search(r":(?!\d)", text)
    if at is None:
        return False
    head = len(frame_tokens(RAW_WORD.findall(text[: at.start()].replace("\u2019", "'"))))
    return start < head < end
# Words that may follow a value without making it a modifier of the next word ("Python 3.8+ with ...",
# "MySQL 5.7 on RDS"); any other word after the changed span means it names which thing the clause is about
# ("the Couchbase server", "Celery 5.4.x supports ...") and two such clauses can both hold.
AFTER_VALUE = frozenset(
    "and or but with for in on to by as at from than since until via per so because while when if after "
    "before every each now".split()
)
# Where a first clause ends: punctuation, or a word that opens another clause ("... is PostgreSQL 16 since the
# March migration").
CLAUSE_END = re.compile(
    r"[,;()\u2014]|\s[-\u2013]\s|\.(?:\s|$)"
    r"|\s(?=(?:since|after|because|following|until|starting|effective|when|while|which|but)\b)", re.IGNORECASE
)
# Words that mark a change and hold no value ("X now works for B"): left out when two frames are compared.
CHANGE_MARKS = frozenset({"now"})
NEGATIONS = frozenset({"not", "no", "never", "don't", "doesn't", "didn't", "isn't", "aren't", "wasn't", "won't",
                       "can't", "cannot", "shouldn't", "nor", "without", "none", "nobody", "nothing", "longer"})


def words(text: str) -> list[str]:
    """A text's words, lower-cased, a typographic apostrophe read as "'"."""
    return WORD.findall(text.lower().replace("\u2019", "'"))


def names_kept(after: str, later: str) -> bool:
    """Is every capitalised name written in ``after`` (what an older text states after the value a later one
    changes) a word of ``later`` too, so that retiring the older text loses no other statement of it?"""
    return {t.lower() for t in RAW_WORD.findall(after) if t[0].isupper()} <= set(words(later))


def short_swap(old: list[str], new: list[str]) -> tuple[int, int, int, int] | None:
    """``(i1, i2, j1, j2)`` when ``new`` is ``old`` with exactly one span replaced (``old[i1:i2]`` by
    ``new[j1:j2]``), neither side longer than ``MAX_SPAN`` words; else None."""
    ops = [op for op in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes() if op[0] != "equal"]
    if len(ops) != 1 or ops[0][0] != "replace":
        return None
    _, i1, i2, j1, j2 = ops[0]
    if i2 - i1 > MAX_SPAN or j2 - j1 > MAX_SPAN:
        return None
    return i1, i2, j1, j2


def respelled(gone: list[str], came: list[str]) -> bool:
    """One spelling of one thing ("PEP8" -> "PEP 8", "Jinja2" -> "Jinja"), or one name inside the other
    ("DirtyArbiter" / "Arbiter": a kind of it, not a value swapped): the joined letters and digits of one side
    begin or end the other's."""
    a, b = "".join(gone).replace(".", ""), "".join(came).replace(".", "")
    return a.startswith(b) or b.startswith(a) or a.endswith(b) or b.endswith(a)


def frame_tokens(raw: list[str]) -> list[str]:
    """The tokens a frame is compared by: "now", which marks a change and says no value ("X works for A" ->
    "X now works for B"; "is an active member" -> "is now an emeritus member"), left out, and "an" read as
    "a" (the article follows the next word's sound, not the value)."""
    return [("a" if t[0] == "a" else "A") if t.lower() == "an" else t for t in raw if t.lower() not in CHANGE_MARKS]
