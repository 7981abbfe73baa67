"""Who holds what in a project's governance: seats, standings, terms, employers and addresses, in any wording.

Governance and MAINTAINERS pages tell one person's place in a project in many shapes, and a change of it
rarely repeats the older sentence with one name swapped (the frame rules' case):

- **a seat and its holder**: "Ana Ribeiro is Bramble's representative on the ecosystem steering council" ->
  "Lukas Meyer now represents Bramble on the ecosystem steering council"; "Kittiwake Widgets is represented on
  the SSC by Ida Dahl" -> "Kittiwake Widgets' SSC rep: Sylvie Corre"; "The end user seat on the Gannet
  steering committee is held by Priya Raman" -> "... passed to Jonas Berg of SVA"; "The Server seat on the
  Software Steering Council is vacant ..." (:func:`seats`). The seat is what is represented and the body it
  sits on, read as bags of words: a body named in full matches its initials ("Software Steering Council" /
  "SSC"), and a name one side adds ("Kittiwake Server" / "Server", "the Gannet steering committee" / "the
  steering committee") is the same seat. "P represents Y on G" and "P sits on G for Y" also say which seat
  one person holds on G: one at a time ("Bruno Grant sits on the board for the Executive Council" -> "Bruno
  Grant represents AWS on the board");
- **a standing**: reviewer, committer, maintainer, releaser, emeritus ("Mina Okafor is a reviewer on Plover"
  -> "Mina Okafor was promoted to committer" -> "... moved to emeritus"): another active standing only with a
  word of change ("promoted to", "became", "moved to"), since "X is a committer" and "X is a maintainer" may
  both hold; a move to emeritus ends what the older text said of the person's active role, so its other
  clauses about that person ("; he signs release tags with his GPG key") go with it (:func:`standing`);
- **a term's end**: "Andrea Ferri's seat on the Alder Governing Committee runs until Feb 2024" -> "Andrea
  Ferri was re-elected; her Governing Committee term now ends in Feb 2026" (:func:`term_end`);
- **an employer** in the shapes :func:`knotwork.hygiene.slots.employer` reads and two more, "P's employer:
  C" and "P is at / is with C", the looser of which counts only against a strict one (:func:`employer`);
- **a person's address** in one list ("Kenji Sato's address in the MAINTAINERS file is kenji.sato@amazon.com"
  -> "Kenji Sato's MAINTAINERS entry: kenji@fly.io"), and an address given up ("the security@ address is no
  longer used") against a text that gives it (:func:`address_change`).

The earlier text (the one that would retire) must make one statement, read whole, but for the two cases
named above; the later one is read clause by clause (";" and sentences). Names are matched as written
(capitalised words); a hedge, a question or a negation other than the ones read leaves a text unread.

These readers key on a person's or a seat's name, which the embedder weighs little against the rest of the
sentence ("Tomasz Lewicki's employer: Stacklok." / "Tomasz Lewicki works at VMware." are at cosine 0.54), so
consolidation asks them of the nearest candidates below its cosine floor too
(:data:`knotwork.hygiene.consolidate.READER_COSINE`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from knotwork.hygiene import slots

_NAME_WORD = r"[A-Z\u00C0-\u00DE][\w\u00C0-\u024F'-]*"
_NAME = rf"{_NAME_WORD}(?:\s+(?:(?:van|von|de|da|di|du|le|la)\s+)?{_NAME_WORD}){{1,2}}"  # two or three words
_CLAUSES = re.compile(r";\s*|(?<=[a-z0-9)])\.\s+(?=[A-Z])")
_HEDGE = re.compile(r"\?|\b(?:may|might|maybe|perhaps|probably|could|would|should|if|unless|whether|plans?|"
                    r"planned|proposed|expected|will)\b", re.I)
_NOT = re.compile(r"\b(?:not|never|no|n't)\b", re.I)


@lru_cache(maxsize=4096)
def clauses(text: str) -> tuple[str, ...]:
    """The clauses of ``text`` (split at ";" and between sentences), end punctuation and a leading "now" off."""
    parts = (c.strip().rstrip(".").strip() for c in _CLAUSES.split(" ".join(text.replace("\u2019", "'").split())))
    return tuple(p for p in parts if p)


def _person(name: str) -> str:
    return " ".join(name.lower().split())


# -- seats ------------------------------------------------------------------------------------------------------
_REP = r"(?:representative|rep)"
_HOLDER = rf"(?P<p>{_NAME})(?:\s+\([^()]*\)|\s+of\s+[A-Z][\w&.-]*(?:\s+[A-Z][\w&.-]*)?)?"
# (shape, whether it also says which seat the person holds on the body: "P represents Y on G")
_SEAT_SHAPES = [
    (re.compile(rf"^{_HOLDER}\s+(?:now\s+)?(?:still\s+)?represents\s+(?P<y>.+?)\s+on\s+(?P<g>.+)$"), True),
    (re.compile(rf"^(?P<y>.+?)\s+is\s+(?:now\s+)?represented\s+on\s+(?P<g>.+?)\s+by\s+{_HOLDER}$"), True),
    (re.compile(rf"^{_HOLDER}\s+is\s+(?:now\s+)?(?P<y>[A-Z].*?)'s?\s+{_REP}\s+(?:on|to|at)\s+(?P<g>.+)$"), False),
    (re.compile(rf"^{_HOLDER}\s+is\s+(?:now\s+)?the\s+(?P<y>[A-Z].*?)\s+{_REP}\s+(?:on|to|at)\s+(?P<g>.+)$"), False),
    (re.compile(rf"^{_HOLDER}\s+is\s+(?:now\s+)?the\s+(?P<g>[A-Z][\w-]*)\s+{_REP}\s+(?:for|of)\s+(?P<y>.+)$"), False),
    # a heading: "Kittiwake Widgets' SSC rep: Sylvie Corre", "Voila dashboards SSC seat: Marten Rey"
    (re.compile(rf"^(?P<y>[A-Z].*?)(?:'s?)?\s+(?P<g>[A-Z]{{2,6}})\s+(?:{_REP}|seat):\s+{_HOLDER}$"), False),
    # "The end user seat on G is held by / belongs to / passed to P"
    (re.compile(rf"^(?:the\s+)?(?P<y>.+?)\s+seat\s+on\s+(?P<g>.+?)\s+(?:is\s+(?:now\s+)?held\s+by|belongs\s+to|"
                rf"(?:has\s+)?passed\s+to|went\s+to)\s+{_HOLDER}$", re.I), False),
    (re.compile(r"^(?:the\s+)?(?P<y>.+?)\s+seat\s+on\s+(?P<g>.+?)\s+is\s+(?:now\s+)?(?P<vacant>vacant|empty)\b.*$",
                re.I), False),
]
_SITS_FOR = re.compile(rf"^{_HOLDER}\s+(?:now\s+)?sits\s+on\s+(?P<g>.+?)\s+for\s+(?P<y>.+)$")
_SEAT_DROP = frozenset("the a an of on for to at its their s seat subproject project".split())
_BODY_WORDS = frozenset("council committee board group team sig wg steering".split())


def _bag(words: str) -> tuple[frozenset[str], frozenset[str]]:
    """(every word, the words written as names) of a seat's or body's words, articles and possessives off."""
    raw = re.findall(r"[A-Za-z0-9][\w.-]*", words.replace("'s", " ").replace("'", " "))
    every = {w.lower() for w in raw} - _SEAT_DROP
    names = {w.lower() for w in raw if w[0].isupper() and w.lower() not in _SEAT_DROP}
    return frozenset(every), frozenset(names)


def _initials(words: str) -> str | None:
    """The initials of a body named in capitalised words ("Software Steering Council" -> "ssc")."""
    caps = [w for w in re.findall(r"[A-Za-z][\w-]*", words) if w[0].isupper()]
    return "".join(w[0] for w in caps).lower() if len(caps) >= 2 else None


def _same_words(a: str, b: str) -> bool:
    """One seat or one body: the same words, or one side's more words names only ("Kittiwake Server" /
    "Server"), or one side the other's initials ("SSC" / "Software Steering Council")."""
    (wa, na), (wb, nb) = _bag(a), _bag(b)
    if not wa or not wb:
        return False
    if wa == wb:
        return True
    small, large, large_names = (wa, wb, nb) if len(wa) <= len(wb) else (wb, wa, na)
    if small < large and large - small <= large_names and (len(small) >= 2 or small - _BODY_WORDS):
        return True
    for x, y in ((a, wb), (b, wa)):
        if (acr := _initials(x)) and len(y) == 1 and acr in y:
            return True
        # "the Alder Governing Committee" / "the Governing Committee": initials of the longer read from its end
        if (acr := _initials(x)) and len(y) == 1 and any(acr.endswith(w) and len(w) >= 2 for w in y):
            return True
    return False


@lru_cache(maxsize=1024)
def _seat(clause: str) -> tuple[tuple[str, str, str] | None, tuple[str, str, str] | None]:
    """(seat, holder) and (person, body, seat) read from one clause; either may be None."""
    if _HEDGE.search(clause):
        return None, None
    for shape, personal in _SEAT_SHAPES:
        if m := shape.match(clause):
            holder = "vacant" if m.groupdict().get("vacant") else _person(m["p"])
            if holder != "vacant" and _NOT.search(clause):
                return None, None
            y, g = m["y"].strip(), m["g"].strip()
            if not _bag(y)[0] or not _bag(g)[0] or re.search(r",|\band\b", y):
                return None, None
            return (y, g, holder), ((holder, g, y) if personal and holder != "vacant" else None)
    if (m := _SITS_FOR.match(clause)) and not _NOT.search(clause):
        return None, (_person(m["p"]), m["g"].strip(), m["y"].strip())
    return None, None


def seats(earlier: str, later: str) -> str | None:
    """"old holder -> new holder" when both texts name the holder of one seat on one body, or "old seat -> new
    seat" when both name the one seat a person holds on one body, with other values; else None."""
    first = clauses(earlier)
    if len(first) != 1:
        return None
    held, mine = _seat(first[0])
    for clause in clauses(later):
        now_held, now_mine = _seat(clause)
        if held and now_held and _same_words(held[0], now_held[0]) and _same_words(held[1], now_held[1]):
            return None if held[2] == now_held[2] else f"{held[2]} -> {now_held[2]}"
        if mine and now_mine and mine[0] == now_mine[0] and _same_words(mine[1], now_mine[1]):
            return None if _same_words(mine[2], now_mine[2]) else f"{mine[2]} -> {now_mine[2]}"
    return None


# -- standings --------------------------------------------------------------------------------------------------
_STANDINGS = r"(?P<r>reviewer|committer|maintainer|releaser|approver|emeritus)s?"
_PROJECT = r"(?:\s+(?:on|of|for|in|at)\s+(?P<of>[A-Z][\w.-]*))?"
_STANDING_SHAPES = [
    # "Mina Okafor is a reviewer on Plover", "Dawn Ito is a Plover committer", "Rafael Costa is one of the
    # releasers", "Dawn Ito is an emeritus maintainer of Plover"
    (re.compile(rf"^(?P<p>{_NAME})\s+is\s+(?:a|an|one\s+of\s+the|one\s+of\s+(?P<of2>[A-Z][\w.-]*)'s)\s+"
                rf"(?:(?P<pre>[A-Z][\w.-]*)\s+)?(?P<emeritus>emeritus\s+)?{_STANDINGS}{_PROJECT}"
                r"(?P<more>(?:\s+\(.*?\))?(?:\s+and\s+.+)?)$"), False),
    # "Mina Okafor was promoted to committer", "Mina Okafor moved to emeritus", "Rafael Costa moved to the
    # emeritus releasers", "Dawn Ito became a committer"
    (re.compile(rf"^(?P<p>{_NAME})\s+(?:was\s+|has\s+been\s+)?(?:promoted|moved|became|has\s+become)\s+"
                rf"(?:to\s+)?(?:the\s+|a\s+|an\s+)?(?P<emeritus>emeritus\s+)?{_STANDINGS}{_PROJECT}"
                r"(?P<more>(?:\s+and\s+.+)?)$"), True),
]


@lru_cache(maxsize=1024)
def _standing(clause: str) -> tuple[str, str, str | None, bool, bool] | None:
    """(person, standing, project, said with a word of change, more said after it) for one clause."""
    if _HEDGE.search(clause):
        return None
    for shape, cue in _STANDING_SHAPES:
        if m := shape.match(clause):
            emeritus = bool(m["emeritus"]) or m["r"] == "emeritus"
            if _NOT.search(clause[: m.start("more")] if m["more"] else clause):
                return None
            project = m["of"] or m.groupdict().get("of2") or m.groupdict().get("pre")
            return (_person(m["p"]), "emeritus" if emeritus else m["r"], project.lower() if project else None, cue,
                    bool(m["more"]))
    return None


def standing(earlier: str, later: str) -> str | None:
    """"old -> new" standing of one person in one project (module docstring), else None."""
    first = clauses(earlier)
    read = _standing(first[0]) if first else None
    if read is None:
        return None
    person, was, project, _, more = read
    for clause in clauses(later):
        now = _standing(clause)
        if now is None or now[0] != person or now[1] == was:
            continue
        if project and now[2] and project != now[2]:
            return None  # a standing in another project
        if now[1] != "emeritus" and not now[3]:
            return None  # "is a committer" / "is a maintainer": both may hold
        # Retiring the earlier text drops all it says: one clause, or (on a move to emeritus) clauses that go on
        # about the same person ("...; he signs release tags")
        rest = first[1:]
        if (more or rest) and now[1] != "emeritus":
            return None
        if any(not re.match(r"(?:he|she|they)\s", c, re.I) for c in rest):
            return None
        return f"{was} -> {now[1]}"
    return None


# -- terms ------------------------------------------------------------------------------------------------------
_DATE = r"(?P<d>(?:[A-Z][a-z]{2,8}\.?\s+)?\d{4}(?:-\d{2}(?:-\d{2})?)?)"
_TERM = re.compile(rf"^(?:(?P<p>{_NAME})'s|(?:his|her|their))\s+(?:[\w\s-]{{0,40}}?\s)?(?:seat|term)\b"
                   rf"(?:\s+on\s+[^,;]+?)?\s+(?:now\s+)?(?:runs|lasts|ends|expires|is\s+up)\s+(?:until|in|on)\s+{_DATE}$")
_ON_BODY = re.compile(rf"^(?P<p>{_NAME})\s+(?:sits|serves|is)\s+on\s+(?P<g>.+)$")
_OPENING = re.compile(rf"^(?P<p>{_NAME})\b")


def _term(text: str) -> tuple[str, str, list[str]] | None:
    """(person, end date, the other clauses) when one clause of ``text`` says when a person's term ends; the
    person is the one named in it or, for "his/her term", the one the text opens with."""
    parts = [p for c in clauses(text) for p in re.split(r",\s+so\s+", c)]  # "..., so his term now ends in 2027"
    found = [(i, m) for i, c in enumerate(parts) if (m := _TERM.match(c))]
    if len(found) != 1 or _HEDGE.search(text):
        return None
    i, m = found[0]
    who = m["p"] or ((o := _OPENING.match(parts[0])) and o["p"])
    if not who:
        return None
    return _person(who), m["d"].lower(), [c for j, c in enumerate(parts) if j != i]


def term_end(earlier: str, later: str) -> str | None:
    """"old end -> new end" of one person's term; the earlier text may also say the person sits on the body,
    which a re-election in the later text says again."""
    a, b = _term(earlier), _term(later)
    if a is None or b is None or a[0] != b[0] or a[1] == b[1]:
        return None
    re_elected = re.search(r"\bre-?elected\b|\belected\s+again\b", later, re.I)
    for other in a[2]:
        m = _ON_BODY.match(other)
        if not (m and _person(m["p"]) == a[0] and re_elected):
            return None
    return f"{a[1]} -> {b[1]}"


# -- employers --------------------------------------------------------------------------------------------------
_COMPANY = r"(?P<c>[A-Z][\w.&-]*(?:\s+[A-Z][\w.&-]*){0,2})"
_EMPLOYER_HEADING = re.compile(rf"^(?P<p>{_NAME})'s\s+employer:\s+{_COMPANY}$")
_NOW = re.compile(r"\bnow\b", re.I)
_LOOSE_EMPLOYER = re.compile(rf"^(?P<p>{_NAME})\s+is\s+(?:now\s+)?(?:at|with)\s+{_COMPANY}(?:\s+now)?$")


@lru_cache(maxsize=1024)
def _employer(clause: str) -> tuple[str, str, bool] | None:
    """(person, company, strict) for one clause: the employer shapes of :mod:`~knotwork.hygiene.slots` and "P's
    employer: C" (strict), "P is at / with C" (loose)."""
    if _HEDGE.search(clause) or _NOT.search(clause):
        return None
    if m := _EMPLOYER_HEADING.match(clause):
        return _person(m["p"]), m["c"], True
    if found := slots.employer(clause):
        return _person(found[0]), found[1], True
    if (m := _LOOSE_EMPLOYER.match(clause)) and (_NOW.search(clause) or not re.search(r"\bis\s+with\b", clause)):
        return _person(m["p"]), m["c"], False  # "is with" names company kept as often as a company: only with "now"
    return None


def employer(earlier: str, later: str) -> str | None:
    """"old -> new" employer of one person, one side at least in a strict shape; a loose later side only with
    "now"."""
    first = clauses(earlier)
    if len(first) != 1 or (was := _employer(first[0])) is None:
        return None
    for clause in clauses(later):
        # a loose later clause tells a new employer only with "now": "P is at KubeCon" after "P works at
        # Google" is a visit, not a new job
        if (now := _employer(clause)) and now[0] == was[0] and (now[2] or (was[2] and _NOW.search(clause))):
            same = re.sub(r"[^a-z0-9]", "", was[1].lower()), re.sub(r"[^a-z0-9]", "", now[1].lower())
            if same[0] == same[1] or same[0].startswith(same[1]) or same[1].startswith(same[0]):
                return None
            return f"{was[1]} -> {now[1]}"
    return None


# -- addresses --------------------------------------------------------------------------------------------------
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_OWN_ADDRESS = re.compile(rf"^(?P<p>{_NAME})'s\s+(?P<what>[\w\s-]{{1,40}}?)(?::|\s+is)\s+(?P<e>{_EMAIL.pattern})$")
_ADDRESS_WORDS = frozenset("address email e-mail entry contact mail the in of file".split())
_GIVEN_UP = re.compile(r"\b(?:the\s+)?(?P<local>[\w.+-]+)@\s+(?:address|alias|mailbox)\s+is\s+no\s+longer\s+"
                       r"(?:used|monitored|in\s+use)\b", re.I)


def address_change(earlier: str, later: str) -> str | None:
    """One person's address in one list changed ("Kenji Sato's address in the MAINTAINERS file is a@x" ->
    "Kenji Sato's MAINTAINERS entry: b@y"), or an address given up ("the security@ address is no longer used")
    that the earlier text gives as its one address."""
    first = clauses(earlier)
    if len(first) != 1:
        return None
    given = _EMAIL.findall(first[0])
    for clause in clauses(later):
        if (m := _GIVEN_UP.search(clause)) and len(given) == 1 and given[0].lower().startswith(m["local"].lower() + "@"):
            return f"{given[0]} -> none"
    a = _OWN_ADDRESS.match(first[0])
    if a is None or _HEDGE.search(earlier) or _NOT.search(earlier):
        return None
    for clause in clauses(later):
        if (b := _OWN_ADDRESS.match(clause)) and _person(b["p"]) == _person(a["p"]):
            wa = {w.lower() for w in a["what"].split()} - _ADDRESS_WORDS
            wb = {w.lower() for w in b["what"].split()} - _ADDRESS_WORDS
            if (wa <= wb or wb <= wa) and a["e"].lower() != b["e"].lower():
                return f"{a['e']} -> {b['e']}"
    return None


def first_read(readers: tuple[Callable[[str, str], str | None], ...], old_text: str, new_text: str,
               old_is_later: bool = False) -> str | None:
    """The change the first of ``readers`` (each of an earlier and a later text) reads, told from ``old_text`` to
    ``new_text``, else None; the later text is ``new_text`` unless ``old_is_later``."""
    earlier, later = (new_text, old_text) if old_is_later else (old_text, new_text)
    for reader in readers:
        if found := reader(earlier, later):
            if old_is_later:
                before, after = found.split(" -> ", 1)
                return f"{after} -> {before}"
            return found
    return None


def change(old_text: str, new_text: str, old_is_later: bool = False) -> str | None:
    """The change told from ``old_text`` to ``new_text`` when one of the readers above reads one, else None.
    The later text is ``new_text`` unless ``old_is_later``."""
    return first_read((seats, standing, term_end, employer, address_change), old_text, new_text, old_is_later)


def reads_by_date(text: str) -> bool:
    """Whether these readers read ``text`` otherwise as the later of two: it has more than one clause."""
    return len(clauses(text)) > 1
