"""One slot read whole from each of two memories: a group's holders, a person's employer, a meeting's schedule.

The frame rules of :mod:`~knotwork.hygiene.consolidate` find one short span that differs between two texts.
Three common changes are not one span:

- **a list of holders** ("The chairs of SIG CLI are A, B and C" -> "... are D and C"; "A and B lead the
  Docs working group" -> "A leads ..."), and the same role told in another shape ("A is the GC liaison for the
  Security SIG" -> "The GC liaison of the Security SIG is B");
- **an employer in another wording** ("A's employer is Docker" -> "A is now independent, with no employer";
  "A works for Samsung SDS" -> "A is employed by Rancher Labs");
- **a schedule** whose day and time both moved ("... regular meeting is on Wednesdays at 10:00 PDT" ->
  "on Tuesdays at 15:00 UTC"), or whose frequency did ("every other Thursday" -> "every Thursday").

Each reader takes a text in a few fixed shapes and gives a slot (what the statement is about) and a value;
two texts with one slot and values that cannot both hold are a change. Precision first, every reader is
narrow:

- a holder list needs a role with "the" ("the chairs of G", "G's sponsor", "is led by", "lead the G"),
  names written with capitals, one group (a name with "and" only when it ends in a word of group: "the Test
  and Release working group"), one role (in full or by its initials: "governance committee liaison" / "GC
  liaison"), and counts as a change only when a holder of the older list is gone from the
  newer one: a list that grew ("A" -> "A and B") is an update, not a retirement, the same names in
  another order say nothing new, and a name spelled anew ("Jeremia" -> "Jeremiah") is the same holder;
- an employer needs one person's name, one of four frames ("works at/for", "'s employer is", "is employed
  by", "is independent"), and a company written with capitals; two spellings of one company ("Grafana" /
  "Grafana Labs", "LightStep" / "Lightstep") are no change;
- a schedule needs a word of meeting ("meets", "meeting", "standup", "sync"), the same words around the
  schedule on both sides (one group's "meets", "'s regular meeting is" and "holds its meeting" count as the
  same words, its owner named or not: "Acme's Docs SIG" / "the Docs SIG"), and no first or second person (two
  sessions a week of one's own may both hold); a schedule only reformatted ("every Tuesday" / "Tuesday",
  "09:00PT" / "9:00 PT", "every other week on Thursday" / "every other Thursday", "China Standard Time" /
  "UTC+8") is no change, and neither is one whose time zone changed while its days did not and whose times
  may be the same hour in some reading of the zones (14:00 UTC and 07:00 PT may be; 09:00 PT and 09:00 UTC
  are not).

A hedge, a question or a negation (other than "with no employer") leaves the pair alone. The readers run
after the one-span rules and decide alone: the pair scorer reads one span and has none to read here. The
schedule reader also runs first (:func:`schedule_change`, :func:`same_schedule`): the word rules would read
"every other Thursday" -> "every Thursday" as a word left out and a zone spelled anew as a value swapped.
"""

from __future__ import annotations

import difflib
from functools import lru_cache
import re

# -- names ---------------------------------------------------------------------------------------------------
_PARTICLES = r"(?:van|von|der|den|de|del|della|da|di|du|la|le|bin|al)"
_NAME_WORD = r"(?:[A-Z\u00C0-\u00DE][\w\u00C0-\u024F'.-]*|\([A-Z][\w'.-]*\))"
_NAME = rf"{_NAME_WORD}(?: (?:{_PARTICLES} )?{_NAME_WORD})*"
_NAMES = rf"{_NAME}(?:, {_NAME})*,?(?: and {_NAME})?"
_NOT_NAMES = frozenset({"the", "a", "an", "it", "they", "we", "he", "she", "this", "that", "our", "my", "their"})

# -- holders --------------------------------------------------------------------------------------------------
# The last word of a role that a group holds a known set of ("GC liaison", "tech lead", "co-chair").
_ROLE_NOUNS = frozenset("lead chair cochair co-chair sponsor liaison champion owner maintainer manager head "
                        "director coordinator organizer organiser president captain facilitator steward".split())
# A verb of the role and its noun ("is led by", "lead the ...").
_ROLE_VERBS = {"led": "lead", "lead": "lead", "leads": "lead", "chaired": "chair", "chair": "chair",
               "chairs": "chair", "co-chaired": "co-chair", "co-chair": "co-chair", "co-chairs": "co-chair",
               "sponsored": "sponsor", "sponsor": "sponsor", "sponsors": "sponsor", "headed": "head",
               "head": "head", "heads": "head", "championed": "champion", "champion": "champion",
               "champions": "champion", "managed": "manager", "manage": "manager", "manages": "manager"}
# The last word of a name of one group: "the Test and Release working group" is one group, "SIG CLI and SIG Docs"
# may be two.
_GROUP_NOUNS = frozenset("group sig wg committee team council board initiative subproject".split())
_ROLE = r"(?P<role>[A-Za-z][\w-]*(?: [\w-]+){0,2}?)"
_HOLDER_SHAPES = [
    # The chairs of G are A and B. / The GC liaison for the G is A.
    re.compile(rf"^the {_ROLE} (?:of|for) (?P<group>.+?) (?:are|is) (?P<names>{_NAMES})$", re.IGNORECASE),
    # G's sponsors are A and B.
    re.compile(rf"^(?P<group>.+?)'s {_ROLE} (?:are|is) (?P<names>{_NAMES})$", re.IGNORECASE),
    # G is led by A and B.
    re.compile(rf"^(?P<group>.+?) (?:is|are) (?P<verb>{'|'.join(v for v in _ROLE_VERBS if v.endswith('ed'))}) "
               rf"by (?P<names>{_NAMES})$", re.IGNORECASE),
    # A and B lead the G.
    re.compile(rf"^(?P<names>{_NAMES}) (?P<verb>{'|'.join(v for v in _ROLE_VERBS if not v.endswith('ed'))}) "
               r"(?P<group>the .+)$"),
    # A is the GC liaison for the G.
    re.compile(rf"^(?P<names>{_NAMES}) (?:is|are) the {_ROLE} (?:of|for) (?P<group>.+)$"),
]

# -- employers ------------------------------------------------------------------------------------------------
_COMPANY_WORD = r"(?:[A-Z0-9/][\w./&+-]*|&|of|de)"
_COMPANY = rf"(?P<company>{_COMPANY_WORD}(?: {_COMPANY_WORD}){{0,4}})"
_EMPLOYER_SHAPES = [
    re.compile(rf"^(?P<person>{_NAME}) works (?:at|for) {_COMPANY}$"),  # not "worked": a past job still holds
    re.compile(rf"^(?P<person>{_NAME})'s (?:employer|company) is {_COMPANY}$"),
    re.compile(rf"^(?P<person>{_NAME}) is employed by {_COMPANY}$"),
    re.compile(rf"^(?P<person>{_NAME}) is (?P<company>independent|self-employed|unemployed)"
               r"(?:,? (?:with no employer|not employed by any company|with no company))?$"),
]
_INDEPENDENT = frozenset({"independent", "self-employed", "unemployed"})

# -- schedules ------------------------------------------------------------------------------------------------
_DAYS = {d[:3]: d for d in "monday tuesday wednesday thursday friday saturday sunday".split()}
_DAYS.update({"tue": "tuesday", "tues": "tuesday", "thu": "thursday", "thur": "thursday", "thurs": "thursday"})
_ZONES = {"pt": "pt", "pdt": "pt", "pst": "pt", "et": "et", "edt": "et", "est": "et", "ct": "ct", "cdt": "ct",
          "cst": "ct", "utc": "utc", "gmt": "utc", "cet": "cet", "cest": "cet", "bst": "bst", "jst": "jst",
          "ist": "ist", "aest": "aest", "pacific": "pt", "eastern": "et"}
# Spelled-out forms read as the short ones before the tokens are read ("Docs WG calls", "every two weeks",
# "15:30-16:00 Central European").
_SPELLED = ((re.compile(r"\bcentral europe(?:an)?(?: time)?\b"), "cet"), (re.compile(r"\bwg\b"), "working group"),
            (re.compile(r"\bevery (?:two|2) weeks\b"), "every other week"),
            (re.compile(r"(\d)-(\d{1,2}(?::\d{2})?(?:am|pm)?)\b"), r"\1 to \2"))
_FREQUENCY = frozenset("every other second third fourth first last week weeks weekly biweekly bi-weekly day days "
                       "weekday weekdays weekend weekends morning afternoon evening "
                       "fortnightly monthly daily alternating between and on at a each month twice".split())
_MEETING_WORDS = frozenset("meets meet meeting meetings standup stand-up sync syncs call calls".split())
# Words between a group's name and its schedule that say only that it meets ("'s regular meeting is", "holds its
# meeting").
_MEETING_FRAME = frozenset("s regular is are holds hold its their meets meet meeting meetings runs run call calls"
                           .split())
# Hours from UTC a zone may be, summer and winter; a zone not named here is not compared.
_OFFSETS = {"pt": (-8, -7), "et": (-5, -4), "ct": (-6, -5), "utc": (0,), "cet": (1, 2), "bst": (0, 1),
            "jst": (9,), "aest": (10, 11)}
_TIME = re.compile(r"^(\d{1,2})(?::(\d{2}))?(am|pm)?$")
_SCHEDULE_TOKEN = re.compile(r"utc[+-]\d{1,2}(?::\d{2})?|\d{1,2}(?::\d{2})?(?:am|pm)?|[a-z][\w+-]*")

_PERSONAL = frozenset("i me my we us our you your".split())
_HEDGES = frozenset("may might maybe perhaps probably will would could should if unless plan plans planned "
                    "planning going expected".split())
_NEGATIONS = frozenset("not no never isn't aren't wasn't don't doesn't didn't longer nor without".split())


@lru_cache(maxsize=2048)  # each text is read against each candidate
def _plain(text: str) -> str | None:
    """The text as one statement: one line, end punctuation and "now" left out; None for a question or a
    hedge."""
    text = " ".join(text.replace("\u2019", "'").split()).rstrip(".!")
    if not text or "?" in text or _HEDGES & set(text.lower().split()):
        return None
    return re.sub(r"\bnow ", "", text)


def _names(found: str) -> frozenset[str]:
    return frozenset(n.strip().lower() for n in re.split(r",? and |, ", found) if n.strip())


def holders(text: str) -> tuple[tuple[str, str], frozenset[str]] | None:
    """((role, group), the names holding it) when ``text`` names who holds a role with "the", else None."""
    text = _plain(text)
    if text is None or _NEGATIONS & set(text.lower().split()):
        return None
    for shape in _HOLDER_SHAPES:
        if not (m := shape.match(text)):
            continue
        names = _names(m["names"])
        if not names or any(n.split()[0] in _NOT_NAMES for n in names):
            continue
        role = _ROLE_VERBS[m["verb"].lower()] if "verb" in m.groupdict() and m["verb"] else m["role"].lower()
        head = role.split()[-1]
        head = head[:-1] if head.endswith("s") and head[:-1] in _ROLE_NOUNS else head
        if head not in _ROLE_NOUNS:
            continue
        role = " ".join([*role.split()[:-1], head])
        group = re.sub(r"^the ", "", m["group"].lower()).strip()
        if not group or "," in group or (" and " in group and group.split()[-1] not in _GROUP_NOUNS):
            continue  # "the chairs of SIG CLI and SIG Docs": two groups; "the Test and Release working group": one
        return (role, group), names
    return None


def employer(text: str) -> tuple[str, str] | None:
    """(person, employer) when ``text`` says where one person works, in one of four frames, else None."""
    text = _plain(text)
    if text is None:
        return None
    for shape in _EMPLOYER_SHAPES:
        if m := shape.match(text):
            company = m["company"]
            if company.lower() not in _INDEPENDENT and _NEGATIONS & set(text.lower().split()):
                return None
            if m["person"].split()[0].lower() in _NOT_NAMES:
                return None
            return m["person"].lower(), company
    return None


def _same_company(a: str, b: str) -> bool:
    """One company spelled twice: the same letters, or one name the start of the other ("Grafana" / "Grafana
    Labs")."""
    x, y = (re.sub(r"[^a-z0-9]", "", s.lower()) for s in (a, b))
    return x == y or x.startswith(y) or y.startswith(x)


@lru_cache(maxsize=2048)  # each text is read against each candidate
def schedule(text: str) -> tuple[tuple[str, ...], tuple[str, ...], frozenset[str], frozenset[str]] | None:
    """(the words around the schedule, the schedule read plainly, its days, its time zones) when ``text``
    says when a meeting happens, else None."""
    text = _plain(text)
    if text is None:
        return None
    low = text.lower().replace("china standard time", "utc+8")
    for spelled, short in _SPELLED:
        low = spelled.sub(short, low)
    tokens = _SCHEDULE_TOKEN.findall(low)
    if _NEGATIONS & set(tokens) or not _MEETING_WORDS & set(tokens) or _PERSONAL & set(tokens):
        return None  # "I meet my trainer on Mondays" / "... on Thursdays": one's own habits may both hold
    frame: list[str] = []
    when: list[str] = []
    for i, t in enumerate(tokens):
        if t == "to" and 0 < i < len(tokens) - 1 and _clock(tokens, i - 1) and _clock(tokens, i + 1):
            continue  # "8am to 9am", "9:30-10:30am": a span of time, read as its two ends
        if t in _FREQUENCY or t.rstrip("s") in _DAYS.values() or t in _DAYS or t in _ZONES or _clock(tokens, i) \
                or t.startswith(("utc+", "utc-")):
            when.append(t)
        elif t in {"am", "pm"} and when:
            when[-1] = when[-1] + t
        else:
            frame.append(t)
    read = _read_schedule(when)
    days = frozenset(t for t in read if t in _DAYS.values())
    zones = frozenset(t for t in read if t in _ZONES.values() or t.startswith(("utc+", "utc-")))
    if not days and not any(":" in t for t in read) and not set(read) & {"week", "month", "day"}:
        return None
    return _meeting_subject(frame), read, days, zones


def _clock(tokens: list[str], i: int) -> bool:
    """Is ``tokens[i]`` a time of day: "09:00", "8am", or a bare hour after "at", "from", "to", "between",
    "and", "until" or before a zone ("at 9 PT")? A bare number elsewhere names which one ("Team 3 meets
    weekly") or counts something, and is no time."""
    t = tokens[i]
    if not _TIME.match(t):
        return False
    if ":" in t or t.endswith(("am", "pm")):
        return True
    before = tokens[i - 1] if i else ""
    after = tokens[i + 1] if i + 1 < len(tokens) else ""
    return (before in {"at", "from", "to", "between", "and", "until"} or after in _ZONES or after in {"am", "pm"}
            or (after == "to" and i + 2 < len(tokens) and _TIME.match(tokens[i + 2]) is not None))  # "8 to 9am"


def _meeting_subject(frame: list[str]) -> tuple[str, ...]:
    """The words around a schedule, one meeting's three usual shapes read as one: "The Docs WG meets ...", "The
    Docs WG's regular meeting is ...", "Acme's Docs WG holds its meeting ..." all give ("<meeting of>", "docs",
    "wg"), an owner before "'s" kept apart ("<owner>", "acme"). Any other word after the group's name (a second
    meeting, "its triage call") keeps the words as they are."""
    i = len(frame)
    while i and frame[i - 1] in _MEETING_FRAME:
        i -= 1
    tail, subject = frame[i:], frame[:i]
    if not _MEETING_WORDS & set(tail) or not subject:
        return tuple(frame)
    subject = subject[1:] if subject[0] == "the" else subject
    owner = subject[:1] if len(subject) > 2 and subject[1] == "s" else []
    subject = subject[2:] if owner else subject
    return ("<meeting of>", *subject, *(("<owner>", *owner) if owner else ()))


def _same_meeting(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """The same words around the schedule, or one meeting's subject with and without its owner ("Acme's Docs
    WG" / "the Docs WG"; a name of two words at least: "Ann's team" and "the team" may be two teams)."""
    if a == b:
        return True
    if a[:1] != ("<meeting of>",) or b[:1] != ("<meeting of>",):
        return False
    strip = [t[: t.index("<owner>")] if "<owner>" in t else t for t in (a, b)]
    return strip[0] == strip[1] and len(strip[0]) > 2 and ("<owner>" in a) != ("<owner>" in b)


def _read_schedule(when: list[str]) -> tuple[str, ...]:
    """A schedule's words read one way: days named in full and singular, times as HH:MM on 24 hours, one zone
    name per zone, "every" before a day and "on" / "at" dropped, "every other week on X" / "every second X" /
    "biweekly" as "every other X" (or "every other week")."""
    out: list[str] = []
    for t in when:
        if t in _DAYS or t.rstrip("s") in _DAYS.values():
            out.append(_DAYS.get(t, t.rstrip("s")))
        elif m := _TIME.match(t):
            hour = int(m[1]) % 12 + (12 if m[3] == "pm" else 0) if m[3] else int(m[1])
            out.append(f"{hour:02d}:{m[2] or '00'}")
        elif t in _ZONES:
            if not (out and out[-1] == _ZONES[t]):
                out.append(_ZONES[t])
        elif t in {"biweekly", "bi-weekly", "fortnightly"}:
            out += ["every", "other", "week"]
        elif t in {"weekly", "monthly", "daily"}:
            out += ["every", {"weekly": "week", "monthly": "month", "daily": "day"}[t]]
        elif t == "second" and out[-1:] == ["every"]:
            out.append("other")
        elif t not in {"on", "at", "a"}:
            out.append(t)
    text = " ".join(out)
    text = re.sub(r"\bevery other week(?: every other)?(?= (?:monday|tuesday|wednesday|thursday|friday))",
                  "every other", text)
    text = re.sub(r"\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday) every other week\b", r"every other \1",
                  text)  # "Tuesdays, every two weeks"
    text = re.sub(r"\b(?:every week|every)(?= (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|"
                  r"alternating)\b)", "", text)
    words = text.split()
    zones = [w for w in words if w in _ZONES.values() or w.startswith(("utc+", "utc-"))]
    if len(set(zones)) == 1:  # "between 9:00 and 10:00 PT" / "between 09:00 PT and 10:00 PT"
        words = [w for w in words if w != zones[0]] + [zones[0]]
    return tuple(words)


_PATH = re.compile(r"(?<![\w/])(?P<lead>in|under|into|inside|at|from|to) (?P<path>[\w.~-]*/[\w./-]*)(?![\w/])",
                   re.IGNORECASE)
_DEFAULT = re.compile(r"^(?P<frame>.+?) defaults to (?P<value>[\w.+-]+)$", re.IGNORECASE)


def place(text: str) -> tuple[str, str] | None:
    """(the text with its one path left out, the path) when ``text`` names one folder or file path with a "/"
    after a word of place ("lives in src/claude_code_sdk/", "changes under .codex/"), else None."""
    text = _plain(text)
    if text is None or _NEGATIONS & set(text.lower().split()):
        return None
    found = list(_PATH.finditer(text))
    if len(found) != 1 or len(re.findall(r"/", text)) != found[0]["path"].count("/"):
        return None  # two paths, or a path elsewhere: a list, not one place
    m = found[0]
    path = m["path"].rstrip("/").removeprefix("./")
    return (text[: m.start("path")] + "<path>" + text[m.end("path"):]).lower(), path


def default(text: str) -> tuple[str, str] | None:
    """(what defaults, to which value) when ``text`` is "<setting> defaults to <one word>", else None."""
    text = _plain(text)
    if text is None or _NEGATIONS & set(text.lower().split()):
        return None
    m = _DEFAULT.match(text)
    return (m["frame"].lower(), m["value"].lower()) if m else None


def slot_change(old_text: str, new_text: str) -> str | None:
    """The change when the two texts fill one slot (a role's holders, a person's employer, a meeting's
    schedule) with values that cannot both hold, else None.

    A holder list is a change when ``old_text``'s list (the stored memory's) names someone ``new_text``'s does
    not: read in order, a holder left; a list that only grew is left to the update rule. An older, longer list
    arriving late after a shorter one is therefore kept current, as an older list that grew would be."""
    if (a := holders(old_text)) and (b := holders(new_text)) and _same_slot(a[0], b[0]):
        came = b[1] - a[1]
        left = [n for n in a[1] - b[1] if not any(_respelled(n, m) for m in came)]
        return f"{_listed(a[1])} -> {_listed(b[1])}" if left else None
    if (e := employer(old_text)) and (f := employer(new_text)) and e[0] == f[0] and not _same_company(e[1], f[1]):
        return f"{e[1].lower()} -> {f[1].lower()}"
    if (p := place(old_text)) and (q := place(new_text)) and p[0] == q[0] and p[1] != q[1]:
        return f"{p[1]} -> {q[1]}"
    if (d := default(old_text)) and (g := default(new_text)) and d[0] == g[0] and d[1] != g[1]:
        return f"{d[1]} -> {g[1]}"
    return schedule_change(old_text, new_text)


def schedule_change(old_text: str, new_text: str) -> str | None:
    """The change when the two texts give one meeting's schedule with another value ("every other Thursday" ->
    "every Thursday"; "Tuesday at 09:00 PT" -> "Tuesday at 16:00 CET"), else None. In another zone on the same
    days, the times must differ in every reading of the zones (14:00 UTC and 07:00 PT may be one hour)."""
    if (s := schedule(old_text)) and (t := schedule(new_text)) and _same_meeting(s[0], t[0]) and s[1] != t[1]:
        if s[3] != t[3] and s[2] == t[2] and _maybe_one_time(s[1], t[1]):
            return None
        return f"{' '.join(s[1])} -> {' '.join(t[1])}"
    return None


def same_schedule(old_text: str, new_text: str) -> bool:
    """Do the two texts give one meeting's schedule, read alike ("09:00 China Standard Time" / "09:00 UTC+8")?"""
    return bool((s := schedule(old_text)) and (t := schedule(new_text)) and _same_meeting(s[0], t[0])
                and s[1] == t[1])


def _zone_offsets(zone: str) -> tuple[float, ...] | None:
    if m := re.fullmatch(r"utc([+-])(\d{1,2})(?::(\d{2}))?", zone):
        return ((1 if m[1] == "+" else -1) * (int(m[2]) + int(m[3] or 0) / 60),)
    return _OFFSETS.get(zone)


def _timed(read: tuple[str, ...]) -> tuple[list[str], list[tuple[float, tuple[float, ...] | None]]]:
    """A read schedule's other words, and each time (in hours) with the offsets of the zone after it."""
    rest: list[str] = []
    times: list[tuple[float, tuple[float, ...] | None]] = []
    pending: list[float] = []
    for w in read:
        if re.fullmatch(r"\d\d:\d\d", w):
            pending.append(int(w[:2]) + int(w[3:]) / 60)
        elif w in _ZONES.values() or w.startswith(("utc+", "utc-")):
            times += [(h, _zone_offsets(w)) for h in pending]
            pending = []
        else:
            rest.append(w)
    return rest, times + [(h, None) for h in pending]


def _maybe_one_time(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Could two schedules in other zones be one: the same words but times and zones, and each time the same
    hour of UTC for some reading of its zone? Unknown zones or another number of times: maybe."""
    rest_a, times_a = _timed(a)
    rest_b, times_b = _timed(b)
    if rest_a != rest_b:
        return False  # another frequency or day pattern besides the zone
    if len(times_a) != len(times_b):
        return True
    for (x, zx), (y, zy) in zip(times_a, times_b):
        if zx is None or zy is None:
            return True
        if not any(round((x - p) - (y - q), 4) % 24 == 0 for p in zx for q in zy):
            return False
    return True


def holder_left(old_text: str, new_text: str) -> bool:
    """Does ``new_text`` name a role's holders with one of ``old_text``'s left out ("... championed by A and B"
    -> "... by A")? Its words are the old ones with some dropped, which would read as saying nothing new."""
    a, b = holders(old_text), holders(new_text)
    return bool(a and b and _same_slot(a[0], b[0]) and a[1] > b[1])


def _same_slot(a: tuple[str, str], b: tuple[str, str]) -> bool:
    """One role of one group, the role named in full or by its initials ("governance committee liaison" / "GC
    liaison"): the same last word, and the words before it one the initials of the other's."""
    (role_a, group_a), (role_b, group_b) = a, b
    if group_a != group_b:
        return False
    if role_a == role_b:
        return True
    x, y = role_a.split(), role_b.split()
    if x[-1] != y[-1]:
        return False
    x, y = sorted((x[:-1], y[:-1]), key=len)
    return len(x) == 1 and len(y) > 1 and x[0] == "".join(w[0] for w in y)


def _respelled(a: str, b: str) -> bool:
    """One person's name spelled twice ("Jeremia Senkpiel" / "Jeremiah Senkpiel"): nine tenths of the letters
    alike."""
    return difflib.SequenceMatcher(a=a, b=b, autojunk=False).ratio() >= 0.9


def _listed(names: frozenset[str]) -> str:
    return " and ".join(sorted(names))
