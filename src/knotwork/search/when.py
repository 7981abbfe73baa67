"""Time in a query: "two weeks ago", "last Tuesday", "in March", "on May 16", "over the past month".

An agent asking "which book did I finish a week ago?" names a time, not a
topic: the memories that answer it were written around then. This module
turns the English time expressions agents and people use into a window of
world time, counted from the moment the question is asked; the
``time_window`` reranker then favours memories valid inside it.

Only expressions with one clear reading are understood; anything else gives
no window (and the search is unchanged). No date library parses these into
*ranges* with a tolerance, which is what ranking needs, so the rules are here.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "couple of": 2, "a couple of": 2,
    "few": 3, "a few": 3, "several": 3,
}  # fmt: skip
_DAYS = {"day": 1, "week": 7, "month": 30, "year": 365}
_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"]
_WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_COUNT = r"(\d+|a couple of|couple of|a few|few|several|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"

_AGO = re.compile(rf"\b{_COUNT}\s+(day|week|month|year)s?\s+ago\b")
_PAST = re.compile(rf"\b(?:past|last)\s+(?:{_COUNT}\s+)?(day|week|month|year)s?\b")
_LAST_WEEKDAY = re.compile(rf"\blast\s+({'|'.join(_WEEKDAYS)})\b")
_IN_MONTH = re.compile(rf"\b(?:in|during)\s+(?:early\s+|late\s+|mid-?)?({'|'.join(_MONTHS)})(?:\s+(\d{{4}}))?\b")
_THIS = re.compile(r"\bthis\s+(week|month|year)\b")
# "last weekend", "the past weekend", "over the weekend": the latest Saturday-Sunday before now. Not "this
# weekend", which in a question is mostly the coming one ("any tips for my trip this weekend?").
_WEEKEND = re.compile(r"\b(?:(?:last|past)\s+weekend|over\s+the\s+weekend)\b")
_DAY_BEFORE_YESTERDAY = re.compile(r"\bday before yesterday\b")
_WEEK_BEFORE_LAST = re.compile(r"\bweek before last\b")
_MONTH = "|".join(_MONTHS)
# A day of a month: "May 16", "on may 16th, 2023", "around the 9th of May", "16 May".
_DATE = re.compile(
    rf"\b(?:(around|about|near)\s+)?(?:(on|of)\s+)?(?:({_MONTH})\s+(\d{{1,2}})(st|nd|rd|th)?(?!\d)(?:,?\s+(\d{{4}}))?"
    rf"|(?:the\s+)?(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH})(?:,?\s+(\d{{4}}))?)\b"
)


def _count(word: str | None) -> int:
    if not word:
        return 1
    return int(word) if word.isdigit() else _NUMBERS[word]


def _day(m: re.Match[str], now: datetime) -> datetime | None:
    """The start of the day a ``_DATE`` match names: in its year if it says one, else the latest such day up
    to ``now``; None for a day the month does not have."""
    if m.group(3):
        month_name, day_text, year_text = m.group(3), m.group(4), m.group(6)
        if month_name == "may" and not (m.group(1) or m.group(2) or m.group(5) or year_text):
            return None  # "we may 2x it": the verb, unless a preposition, an ordinal or a year says it is a date
    else:
        month_name, day_text, year_text = m.group(8), m.group(7), m.group(9)
    month, number = _MONTHS.index(month_name) + 1, int(day_text)
    start = now.replace(hour=0, minute=0, second=0, microsecond=0)
    try:
        day = start.replace(year=int(year_text), month=month, day=number) if year_text else start.replace(month=month, day=number)
    except ValueError:
        return None
    if not year_text and day > now:
        try:
            day = day.replace(year=day.year - 1)
        except ValueError:  # February 29th
            return None
    return day


def time_window(text: str, now: datetime) -> tuple[datetime, datetime] | None:
    """The span of time ``text`` refers to, counted back from ``now``; None when it names none.

    >>> from datetime import datetime
    >>> now = datetime(2023, 5, 20, 12, 0)  # a Saturday
    >>> [d.date().isoformat() for d in time_window("What did I buy two weeks ago?", now)]
    ['2023-05-03', '2023-05-10']
    >>> [d.date().isoformat() for d in time_window("Who did I meet last Tuesday?", now)]
    ['2023-05-15', '2023-05-17']
    >>> [d.date().isoformat() for d in time_window("How many plants did I buy in the past month?", now)]
    ['2023-04-18', '2023-05-20']
    >>> [d.date().isoformat() for d in time_window("Which museums did I visit in December?", now)]
    ['2022-12-01', '2023-01-01']
    >>> [d.date().isoformat() for d in time_window("What did Ana say on May 16th?", now)]
    ['2023-05-15', '2023-05-18']
    >>> [d.date().isoformat() for d in time_window("Where did we eat around the 2nd of June?", now)]
    ['2022-05-30', '2022-06-06']
    >>> [d.date().isoformat() for d in time_window("What did I cook the day before yesterday?", now)]
    ['2023-05-17', '2023-05-19']
    >>> [d.date().isoformat() for d in time_window("Which bike did I fix the past weekend?", now)]
    ['2023-05-12', '2023-05-16']
    >>> time_window("What is my favourite colour?", now) is None
    True
    """
    t = text.lower()
    if m := _AGO.search(t):
        days = _count(m.group(1)) * _DAYS[m.group(2)]
        center = now - timedelta(days=days)
        slack = timedelta(days=max(2.0, days / 4))
        return center - slack, center + slack
    if m := _LAST_WEEKDAY.search(t):
        back = (now.weekday() - _WEEKDAYS.index(m.group(1))) % 7 or 7
        day = now - timedelta(days=back)
        return day - timedelta(days=1), day + timedelta(days=1)
    if _WEEK_BEFORE_LAST.search(t):
        return now - timedelta(days=15), now - timedelta(days=6)
    if _WEEKEND.search(t):
        # The weekend that ended before today (a Saturday or Sunday question means the one before it),
        # from the Friday evening to the Monday.
        saturday = now - timedelta(days=(now.weekday() - 5) % 7 or 7)
        if now.weekday() == 6:
            saturday -= timedelta(days=7)
        start = saturday.replace(hour=0, minute=0, second=0, microsecond=0) - timedelta(days=1)
        return start, start + timedelta(days=4)
    if m := _PAST.search(t):
        return now - timedelta(days=_count(m.group(1)) * _DAYS[m.group(2)] + 2), now
    if _DAY_BEFORE_YESTERDAY.search(t):
        day = now.replace(hour=0, minute=0, second=0, microsecond=0) - timedelta(days=2)
        return day - timedelta(days=1), day + timedelta(days=1)
    if "yesterday" in t:
        return now - timedelta(days=2), now
    if m := _THIS.search(t):
        unit = m.group(1)
        if unit == "week":
            start = now - timedelta(days=now.weekday())
        elif unit == "month":
            start = now.replace(day=1)
        else:
            start = now.replace(month=1, day=1)
        return start.replace(hour=0, minute=0, second=0, microsecond=0), now
    if (m := _DATE.search(t)) and (day := _day(m, now)) is not None:
        slack = timedelta(days=3 if m.group(1) else 1)
        return day - slack, day + timedelta(days=1) + slack
    if m := _IN_MONTH.search(t):
        month = _MONTHS.index(m.group(1)) + 1
        year = int(m.group(2)) if m.group(2) else (now.year if month <= now.month else now.year - 1)
        start = now.replace(year=year, month=month, day=1, hour=0, minute=0, second=0, microsecond=0)
        end = start.replace(year=year + 1, month=1) if month == 12 else start.replace(month=month + 1)
        return start, end
    return None


# Words of a question about how things were, or about their order in time,
# rather than about how they are now.
_LOOKS_BACK = re.compile(
    r"\b(?:first|initially|originally|before|previous(?:ly)?|earlier|used to|did \w+ use to|at first|ago|"
    r"how (?:many|much) (?:days|weeks|months|years|time)|when did|which (?:\w+ ){0,3}(?:first|earlier|last))\b"
)


def looks_back(text: str, at: datetime) -> bool:
    """Whether a question asks about the past or about order in time, not about the present.

    Such a question wants the older statement as much as the newer one, so
    the ``restated`` reranker (newer restatements first) leaves it alone.
    """
    return time_window(text, at) is not None or _LOOKS_BACK.search(text.lower()) is not None
