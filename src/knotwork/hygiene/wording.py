"""One value in its many wordings: what two texts say, read one way, so that a restatement is no change.

The supersession rules of :mod:`~knotwork.hygiene.consolidate` (and the slot and project-text readers beside
them) compare the words two texts differ in. A value written anew in other words is then read as a new value,
and the memory that still holds is retired: "... held every Friday at 15:00" by "... held on Fridays at 15:00"
(read "every friday -> on fridays"), "Releases are cut bi-weekly" by "... every two weeks", "The request timeout
is 60 seconds" by "... 1 minute", "written in JavaScript" by "written in JS". A wrong retirement hides a true
memory; a missed one only leaves two current. So before any rule reads a pair, :func:`restated` asks whether the
two texts say the same thing once each is read one way (:func:`canonical`):

- case and punctuation between words ("GitHub" / "Github", "Read The Docs", a closing "." / ":"); a hyphen,
  point, slash or underscore inside a word is part of it ("ajv-provider.ts" / "ajvProvider.ts" name two files),
  but for "bi-weekly" and "read-the-docs";
- how often: "daily" / "every day" / "each day" / "once a day" / "every 24 hours"; "weekly" / "every week" /
  "once a week" / "once weekly"; "monthly" / "every month" / "once a month"; "hourly" / "every hour"; "biweekly" /
  "bi-weekly" / "fortnightly" / "every two weeks" / "every other week" / "every second week"; "twice weekly" /
  "twice a week" / "two times per week" / "2x a week" (and so for other counts and cadences);
- which day: "every Friday" / "each Friday" / "on Fridays" / "Fridays" / "weekly on Friday" / "every week on
  Friday" / "on Friday each week"; "every other Monday" / "biweekly on Monday" / "every two weeks on Monday".
  A bare "on Friday" (one Friday, maybe) is left as it is;
- a time of day on 24 hours: "15:00" / "3pm" / "3 PM" / "3:00 p.m."; "noon", "midnight" (the zone, if any, is
  compared as written: another zone is the slot reader's, :func:`knotwork.hygiene.slots.schedule_change`);
- an amount of time in seconds: "60 seconds" / "60s" / "1 minute" / "one minute" / "60 sec"; "5 minutes" /
  "300 seconds"; a number with a thousands separator or "k" ("1,000" / "1k"); a size with its unit apart
  ("10MB" / "10 MB");
- a version: "v2" / "version 2" / "2.0" (trailing zero parts dropped, "2.10.0" / "2.10"; "version" before a
  number left out);
- a few names with a common short form: PostgreSQL / Postgres, Kubernetes / k8s, JavaScript / JS, TypeScript /
  TS, Golang / Go, Read the Docs / ReadTheDocs.

Each wording maps to one form only where both mean the one value; a real change (Friday -> Thursday, 15:00 ->
16:00, weekly -> bi-weekly, weekly -> twice weekly, 60 seconds -> 2 minutes) reads as two forms and goes to the
rules as before.

The one normaliser serves every rule: :func:`restated` before any rule reads a pair, :func:`real_change` on
every change a rule proposes (the frame and value rules, the slot readers, the project-text readers: a part
"A -> B" whose two sides read alike is dropped), and :func:`cadence_swap` for the one change the words alone
miss ("weekly" -> "bi-weekly" or "twice weekly" reads as a word added). :func:`named_the` lets the frame rules
read a name with "the" inside ("Read the Docs") as one value. Pure functions over texts; nothing here imports
the rules.
"""

from __future__ import annotations

import difflib
from functools import lru_cache
import re

from knotwork.knowledge.lexicon import SHORT_NAMES

_NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
                 "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20, "thirty": 30, "sixty": 60,
                 "ninety": 90, "a": 1, "an": 1}
_SECONDS = {"s": 1, "sec": 1, "secs": 1, "second": 1, "seconds": 1, "min": 60, "mins": 60, "minute": 60,
            "minutes": 60, "h": 3600, "hr": 3600, "hrs": 3600, "hour": 3600, "hours": 3600}
# Names written in full or short, the same thing either way (both forms in lower case, the short one first).
_ALIASES = SHORT_NAMES  # the graph resolves the same short names to one entity
_DAY = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_SIZE = r"(?:kb|mb|gb|tb|kib|mib|gib|tib)"

# Ordered: the time of day before amounts of time ("3pm" is no three of anything), cadences before days.
_STEPS: list[tuple[re.Pattern[str], object]] = []


def _step(pattern: str, replace: object) -> None:
    _STEPS.append((re.compile(pattern), replace))


def _clock(m: re.Match[str]) -> str:
    hour, minute, half = int(m["h"]), m["m"] or "00", m["half"]
    if half is not None:
        if hour > 12:
            return m[0]  # "15pm": not a time read one way
        hour = hour % 12 + (12 if half.startswith("p") else 0)
    return f"{hour:02d}:{minute}"


def _amount(m: re.Match[str]) -> str:
    count = m["n"]
    value = _NUMBER_WORDS[count] if count in _NUMBER_WORDS else float(count)
    seconds = value * _SECONDS[m["unit"]]
    return f"{seconds:g}s"


_CADENCE_OF = {"hour": "hourly", "day": "daily", "week": "weekly", "month": "monthly"}


def _times(m: re.Match[str]) -> str:
    n = {"once": 1, "twice": 2, "thrice": 3}.get(m["w"] or "") or _NUMBER_WORDS.get(m["n"]) or int(m["n"])
    cadence = _CADENCE_OF.get(m["c"], m["c"])
    return cadence if n == 1 else f"{n}x-{cadence}"


_NUMBER = r"(?P<n>\d+(?:\.\d+)?|" + "|".join(w for w in _NUMBER_WORDS if w not in ("a", "an")) + ")"

# names and numbers
_step(r"\bp\.m\.?(?!\w)", "pm")
_step(r"\ba\.m\.?(?!\w)", "am")
_step(r"(?<![\w.])(\d{1,3}(?:,\d{3})+)(?![\d,])", lambda m: m[1].replace(",", ""))
_step(r"(?<![\w.])(\d+)k\b", lambda m: f"{int(m[1]) * 1000}")
_step(rf"\b({'|'.join(map(re.escape, _ALIASES))})\b", lambda m: _ALIASES[m[1]])
# a time of day
_step(r"\bnoon\b", "12:00")
_step(r"\bmidnight\b", "00:00")
_step(r"(?<![\w:.])(?P<h>\d{1,2})(?::(?P<m>\d{2}))?\s?(?P<half>am|pm)\b", _clock)
_step(r"(?<![\w:.])(?P<h>\d{1,2}):(?P<m>\d{2})(?![\d:])(?P<half>)", lambda m: f"{int(m['h']):02d}:{m['m']}")
# how often (before amounts: "every 24 hours")
_step(r"\b(?:every|each|once(?:\s+(?:a|an|per|every))?)\s+(?:24\s+hours|day)\b|\bdaily\b", "daily")
_step(r"\b(?:every|each|once(?:\s+(?:a|an|per|every))?)\s+hour\b|\bhourly\b", "hourly")
_step(r"\b(?:every|each|once(?:\s+(?:a|an|per|every))?)\s+month\b|\bmonthly\b", "monthly")
_step(r"\b(?:(?:once\s+)?every\s+(?:two|2|other|second)\s+weeks?|bi[-\s]?weekly|fortnightly|once\s+a\s+fortnight)\b",
      "biweekly")
_step(r"\b(?:every|each|once(?:\s+(?:a|an|per|every))?)\s+week\b|\bweekly\b", "weekly")
# how many times in one: "twice weekly" / "twice a week" / "two times per week" / "2x a week" (one value, not the
# cadence with a word added); "once weekly" is weekly
_step(r"\b(?:(?P<w>once|twice|thrice)|(?P<n>\d+|two|three|four|five|six|seven|eight|nine|ten)\s*(?:x|times))"
      r"[\s-]+(?:(?:a|an|per|every|each)\s+)?(?P<c>hour|hourly|day|daily|week|weekly|month|monthly)\b", _times)
# which day
_step(rf"\bbiweekly\s+(?:on\s+)?(?:the\s+)?({_DAY})s?\b|\bevery\s+other\s+({_DAY})\b",
      lambda m: f"every other {m[1] or m[2]}")
_step(rf"\b(?:weekly\s+on|on)\s+({_DAY})s?\s+weekly\b|\bweekly\s+on\s+({_DAY})s?\b|\bon\s+({_DAY})\s+weekly\b"
      rf"|\b(?:every|each)\s+({_DAY})\b|\bon\s+({_DAY})s\b|(?<!other )\b({_DAY})s\b|\b({_DAY})\s+weekly\b",
      lambda m: "every " + next(g for g in m.groups() if g))
# amounts of time and size
_step(rf"(?<![\w.:]){_NUMBER}\s?(?P<unit>{'|'.join(_SECONDS)})\b", _amount)
_step(rf"(?<![\w.])(\d+(?:\.\d+)?)\s?({_SIZE})\b", r"\1 \2")
# versions
_step(r"\bversion\s+v?(?=\d)|\bv(?=\d+(?:\.\d+)*\b)", "")
_step(r"(?<![\w.])(\d+(?:\.\d+)+)(?![\w.])", lambda m: re.sub(r"(?:\.0+)+$", "", m[1]))


@lru_cache(maxsize=2048)  # a new memory is read against each candidate, a stored one against each new memory
def canonical(text: str) -> tuple[str, ...]:
    """``text``'s words read one way (the module's list): lower case, no punctuation but a time's colon and a
    number's point, each value in one wording."""
    low = text.lower().replace("\u2019", "'")
    low = re.sub(r"[.!?;,:]+(?=\s|$)", " ", low)  # a sentence's or clause's end: "... is 2.0." is "2.0"
    for pattern, replace in _STEPS:
        low = pattern.sub(replace, low)  # type: ignore[arg-type]
    # a hyphen, point, slash or underscore inside a word is part of a name ("ajv-provider.ts" / "ajvProvider.ts"
    # name two files)
    return tuple(re.findall(r"\d+:\d\d|[a-z0-9]+(?:[-_./'][a-z0-9]+)*", low))


def restated(old_text: str, new_text: str) -> bool:
    """Do the two texts say one thing, each value in another wording at most ("... held every Friday at 15:00" /
    "... held on Fridays at 3pm")? Texts the same word for word are left to the rules as they are."""
    if old_text.strip() == new_text.strip():
        return False
    a, b = canonical(old_text), canonical(new_text)
    return bool(a) and a == b


_CLOCK_WORDS = re.compile(r"(?<![\w:])(\d{1,2}) (\d{2})(?![\w:])")  # "15 00": a time the rules split into words


def real_change(change: str | None) -> str | None:
    """A rule's change (``"A -> B"``, several joined by "; ") without the parts whose two sides are one value in
    other words ("every friday -> on fridays; 15 -> 16" is "15 -> 16"); None when no part is left. A part that
    is no "A -> B" ("ADR-23 superseded by ADR-67") is kept."""
    if change is None:
        return None
    kept = []
    for part in change.split("; "):
        sides = [canonical(_CLOCK_WORDS.sub(r"\1:\2", side)) for side in part.split(" -> ")]
        if len(sides) == 2 and sides[0] == sides[1]:
            continue
        kept.append(part)
    return "; ".join(kept) or None


def named_the(raw: list[str]) -> frozenset[str]:
    """{"the"} when a span of words (case kept) is one name with "the" inside it, between capitals ("Read the
    Docs", "Bank of the West"): a value, where "the" alone is none; else nothing."""
    inner = raw[1:-1]
    if len(raw) >= 3 and raw[0][0].isupper() and raw[-1][0].isupper() and "the" in inner and all(
            t[0].isupper() or t in ("the", "of") for t in inner):
        return frozenset({"the"})
    return frozenset()


_CADENCE = re.compile(r"(?:\d+x-)?(?:hourly|daily|weekly|biweekly|monthly)")


def cadence_swap(old_text: str, new_text: str) -> str | None:
    """``"weekly -> biweekly"`` when the two texts, read one way, are one frame with one cadence word swapped for
    another at least two words in ("Releases are cut weekly" -> "... bi-weekly", "... twice weekly": the words
    alone read "bi" or "twice" as a word added, an update), else None. A cadence added beside one ("daily and
    weekly") is no swap."""
    old, new = canonical(old_text), canonical(new_text)
    ops = [op for op in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes() if op[0] != "equal"]
    if len(ops) != 1 or ops[0][0] != "replace" or ops[0][1] < 2:
        return None
    _, i1, i2, j1, j2 = ops[0]
    if i2 - i1 != 1 or j2 - j1 != 1 or not (_CADENCE.fullmatch(old[i1]) and _CADENCE.fullmatch(new[j1])):
        return None
    return f"{_said(old[i1])} -> {_said(new[j1])}"


def _said(cadence: str) -> str:
    """A cadence read one way, as the answer says it ("2x-weekly": "twice weekly")."""
    n, _, each = cadence.rpartition("x-")
    return cadence if not n else f"twice {each}" if n == "2" else f"{n} times {each}"


# "also", "in addition", "additionally", or "too" / "as well" closing a clause: the text says its value is one
# more beside another ("The lab also deploys on Mondays", "... on Mondays too"), not the one value there is.
_BESIDE = re.compile(r"\b(?:also|additionally|in\s+addition)\b|\b(?:too|as\s+well)\s*(?:[.,;:!)]|$)", re.IGNORECASE)


def beside(old_text: str, new_text: str) -> bool:
    """Does one text say its value holds beside another ("also", "too", "as well", "in addition") where the other
    text does not? Then the two may both hold, and no rule's change retires the older one (a wrong retirement
    hides a true memory). Said alike in both ("I also watched ... season 5" / "... season 10"), it is part of the
    frame, not a second value."""
    return len(_BESIDE.findall(old_text)) != len(_BESIDE.findall(new_text))
